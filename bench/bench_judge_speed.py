"""Seconds per judged answer of the local judge, generating against scoring by likelihood,
measured as users run it: the installed ``eunomia judge-check`` command as a whole process,
on the same cases, each judge in its own fresh store (nothing cached).

    .venv/bin/python bench/bench_judge_speed.py examples/tasks/ecommerce --max-cases 1 \\
        --judge local:qwen2.5-coder-1.5b --judge likelihood:local:qwen2.5-coder-1.5b

Prints, per judge: wall and CPU seconds of the whole command (CPU: user + system of the
process and its children, from ``wait4``), the judged answers, seconds per answer, and the
load average before and after; then the ratio of the first judge's seconds per answer to
each other's. The CPU ratio is the headline on a shared machine (wall time there measures
the other jobs as much as the judge). Exits non-zero when a ratio of CPU seconds is below
``--min-ratio`` (issue 28's goal: 4).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def run(eunomia: str, suites: list[str], spec: str, max_cases: int, folder: Path
        ) -> dict[str, Any]:
    results = folder / "results"
    command = [eunomia, "judge-check", *suites, "--judge", spec, "--max-cases", str(max_cases),
               "--results", str(results), "--store", str(folder / "eunomia.db"),
               "--run-name", "speed", "--timeout", "3600"]
    load_before = os.getloadavg()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    output = process.stdout.read() if process.stdout else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({code}):\n{output}")
    found = next(results.rglob("judge_check.json"))
    data = json.loads(found.read_text())
    answers = sum(g.get("answers", 0) for g in data.get("suites", []))
    cpu = usage.ru_utime + usage.ru_stime
    return {"judge": spec, "answers": answers, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "wall_per_answer": round(wall / answers, 2) if answers else None,
            "cpu_per_answer": round(cpu / answers, 2) if answers else None,
            "load_before": round(load_before[0], 2), "load_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="+")
    parser.add_argument("--judge", action="append", required=True)
    parser.add_argument("--max-cases", type=int, default=1)
    parser.add_argument("--min-ratio", type=float, default=4.0)
    parser.add_argument("--eunomia", default=shutil.which("eunomia") or "eunomia")
    args = parser.parse_args()
    rows = []
    for spec in args.judge:
        with tempfile.TemporaryDirectory(prefix="judge-speed-") as folder:
            row = run(args.eunomia, args.suites, spec, args.max_cases, Path(folder))
        print(json.dumps(row), flush=True)
        rows.append(row)
    base = rows[0]
    missed = False
    for row in rows[1:]:
        if not (base["cpu_per_answer"] and row["cpu_per_answer"]):
            continue
        cpu_ratio = base["cpu_per_answer"] / row["cpu_per_answer"]
        wall_ratio = base["wall_per_answer"] / row["wall_per_answer"]
        ok = cpu_ratio >= args.min_ratio
        missed |= not ok
        print(f"{row['judge']}: {cpu_ratio:.1f}x fewer CPU seconds per judged answer than "
              f"{base['judge']} ({wall_ratio:.1f}x wall); target {args.min_ratio:g}x: "
              f"{'met' if ok else 'MISSED'}")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
