"""Run one command and write its wall time and resource usage as JSON (for bench_cli.py).

    python -I -S bench/_spawn.py RESULT.json TIMEOUT_S -- COMMAND [ARG ...]

Why a launcher: on Linux a process's peak RSS (``ru_maxrss``) keeps, across ``exec``, the
high-water mark of the memory it had before: a child started by the benchmark's own process
(forked or vforked from it) reports at least the benchmark's RSS. This small process (no
imports beyond the standard library's core) forks and execs the command, so the floor is its
own few MB; it times the command from the fork to its exit and takes the command's own
resource usage from ``os.wait4``. Standard input, output and error are inherited. On
TIMEOUT_S or SIGTERM the command is killed. The exit code is the command's.
"""

import json
import os
import signal
import sys
import time


def main() -> int:
    result, timeout, sep, *cmd = sys.argv[1:]
    assert sep == "--" and cmd, "usage: _spawn.py RESULT.json TIMEOUT_S -- COMMAND [ARG ...]"
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)

    def kill(signum: int, _frame: object) -> None:
        os.kill(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, kill)
    signal.signal(signal.SIGTERM, kill)
    signal.setitimer(signal.ITIMER_REAL, float(timeout))
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    signal.setitimer(signal.ITIMER_REAL, 0)
    code = os.waitstatus_to_exitcode(status)
    with open(result, "w", encoding="utf-8") as out:
        json.dump({"wall": wall, "user": usage.ru_utime, "sys": usage.ru_stime,
                   "maxrss_kb": usage.ru_maxrss, "rc": code}, out)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
