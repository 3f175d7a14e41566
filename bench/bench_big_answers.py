"""Benchmark (issue 31): peak memory of ``eunomia run`` as a whole process when the system
under test answers 50 MB per case.

The 14 cases of examples/scenarios/project_management against ``big_answer_server.py`` (its
own process, so its memory is not counted), at concurrency 1 and 4, for two answers:
``garbage`` (50 MB that is not JSON) and ``valid`` (a feedback answer whose one item has a
50 MB description), each sent with a Content-Length and chunked (no length: the reader only
finds out as it reads). Every run is a fresh ``eunomia run`` started by ``_spawn.py``, which
takes the child's own peak RSS from ``os.wait4`` (the same figure ``/usr/bin/time -v``
prints as "Maximum resident set size"); the results folder's size is measured after it.

    .venv/bin/python bench/bench_big_answers.py                     # this checkout
    .venv/bin/python bench/bench_big_answers.py --src /path/to/src  # another version's code
    .venv/bin/python bench/bench_big_answers.py --limit-mb 60       # the limit raised

``--src`` is put on the child's PYTHONPATH (the installed ``eunomia`` command then runs that
code); ``--limit-mb`` passes ``--max-response-mb`` to the runs. Targets (with the default 10 MB
limit): peak RSS at most ``--max-rss-mb`` (250) in every run, whatever the answer, and result
files at most ``--max-results-mb`` (5) per run; the exit code is non-zero on a miss.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"


@dataclass
class Result:
    mode: str
    transfer: str
    concurrency: int
    rss_mb: float
    wall_s: float
    results_mb: float
    rc: int
    failed: str
    reason: str


def start_server(mb: float, mode: str, chunked: bool) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, str(BENCH / "big_answer_server.py"), "--mb", str(mb), "--mode", mode]
    proc = subprocess.Popen([*cmd, "--chunked"] if chunked else cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())["url"]


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def run_once(url: str, concurrency: int, work: Path, env: dict[str, str],
             timeout: float, limit_mb: float | None = None
             ) -> tuple[float, float, float, int, str, str]:
    """One ``eunomia run``: peak RSS (MB), wall (s), results (MB), exit code, failed cases and
    the first one's reason."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    results = work / "results"
    eunomia = str(Path(sys.executable).parent / "eunomia")
    usage = work / "usage.json"
    cmd = [sys.executable, "-I", "-S", str(BENCH / "_spawn.py"), str(usage), str(timeout), "--",
           eunomia, "run", str(EXAMPLE), "--server-url", url, "--concurrency", str(concurrency),
           "--retries", "0", "--results", str(results), "--run-name", "big",
           *(["--max-response-mb", f"{limit_mb:g}"] if limit_mb is not None else [])]
    with (work / "stdout.txt").open("wb") as out, (work / "stderr.txt").open("wb") as err:
        rc = subprocess.run(cmd, cwd=work, env=env, stdout=out, stderr=err, check=False).returncode
    got = json.loads(usage.read_text())
    summary = results / "big" / "project_management" / "scenario_results.json"
    failed, reason = "?", ""
    if summary.is_file():
        data = json.loads(summary.read_text())
        failed = str(data.get("failed_cases", "?"))
        failures = data.get("failures") or [{}]
        reason = str(failures[0].get("reason", ""))
        reason = reason if len(reason) <= 70 else reason[:67] + "..."
    return got["maxrss_kb"] / 1024, got["wall"], folder_mb(results), rc, failed, reason


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of every answer")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--modes", nargs="+", default=["garbage", "valid"])
    parser.add_argument("--transfers", nargs="+", default=["length", "chunked"])
    parser.add_argument("--src", type=Path, default=ROOT / "src",
                        help="the code the eunomia command runs (put on PYTHONPATH)")
    parser.add_argument("--limit-mb", type=float, default=None,
                        help="--max-response-mb for the runs (default: not given)")
    parser.add_argument("--max-rss-mb", type=float, default=250.0)
    parser.add_argument("--max-results-mb", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--workdir", type=Path, default=BENCH / ".tmp" / "big_answers")
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    env = {k: v for k, v in os.environ.items() if not k.startswith("EUNOMIA_")}
    env.update({"PYTHONPATH": str(args.src.resolve()), "NO_COLOR": "1",
                "TMPDIR": str(args.workdir)})
    env.pop("ATHENA_SECRET", None)
    args.workdir.mkdir(parents=True, exist_ok=True)
    rows: list[Result] = []
    for mode in args.modes:
        for transfer in args.transfers:
            proc, url = start_server(args.mb, mode, transfer == "chunked")
            try:
                for concurrency in args.concurrency:
                    rss, wall, results_mb, rc, failed, reason = run_once(
                        url, concurrency, args.workdir / f"{mode}_{transfer}_{concurrency}",
                        env, args.timeout, args.limit_mb)
                    rows.append(Result(mode, transfer, concurrency, rss, wall, results_mb, rc,
                                       failed, reason))
                    print(f"{mode:8} {transfer:8} c={concurrency}: peak RSS {rss:7.1f} MB, "
                          f"{wall:6.2f} s, results {results_mb:8.2f} MB, exit {rc}, "
                          f"failed {failed}/14", flush=True)
            finally:
                proc.terminate()
                proc.wait(10)
    limit = f"--max-response-mb {args.limit_mb:g}" if args.limit_mb else "default limit"
    print(f"\n### {args.mb:g} MB answers, 14 cases, {limit}"
          f"{' — ' + args.label if args.label else ''} ({time.strftime('%Y-%m-%d %H:%M')})\n")
    print("| answer | sent | concurrency | peak RSS | wall | result files | failed | first "
          "reason |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r.mode} | {r.transfer} | {r.concurrency} | {r.rss_mb:,.0f} MB | "
              f"{r.wall_s:.1f} s | {r.results_mb:,.1f} MB | {r.failed}/14 | {r.reason} |")
    if args.limit_mb is not None:
        return 0  # the targets are for the default limit
    missed = [r for r in rows if r.rss_mb > args.max_rss_mb or r.results_mb >
              args.max_results_mb]
    print(f"\ntarget: peak RSS <= {args.max_rss_mb:g} MB and result files <= "
          f"{args.max_results_mb:g} MB in every run: "
          f"{'MISS' if missed else 'pass'} ({len(missed)} of {len(rows)} runs over)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
