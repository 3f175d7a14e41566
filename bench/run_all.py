"""Run every benchmark with its target flags; write ``bench/results.md``; exit non-zero on a miss.

    python bench/run_all.py            # everything (the 100,000-case run takes minutes)
    python bench/run_all.py --quick    # skip the 100,000-case and local-model benchmarks
    python bench/run_all.py --only tasks-5000 --only scenario-rerun

Each benchmark is its own process (so peak memory and CPU are its own). The table has one
row per benchmark: its figures (the lines it printed), the target, pass/miss (its exit
code), the date and the machine's load average when it started and ended: on a shared
machine, CPU-per-case figures are the ones to trust, wall-time figures depend on the load.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PY = sys.executable


@dataclass(frozen=True)
class Bench:
    name: str
    script: str
    args: tuple[str, ...]
    target: str
    slow: bool = False


BENCHES = [
    Bench("tasks-5000", "bench_tasks.py",
          ("--cases", "5000", "--min-rate", "1000", "--max-cpu-ms", "1"),
          "≥ 1,000 cases/s and ≤ 1 ms Eunomia CPU per case (judged-task suite, checks only, "
          "no judge; fast local OpenAI-compatible server)"),
    Bench("scenario-5000", "bench_scenario.py",
          ("--cases", "5000", "--min-rate", "1000", "--max-cpu-ms", "1"),
          "≥ 1,000 cases/s and ≤ 1 ms Eunomia CPU per case (SGI scenario; fast local "
          "Athena-contract server)"),
    Bench("tasks-latency", "bench_tasks.py",
          ("--cases", "1000", "--latency", "0.2", "--concurrency", "100", "--max-ratio", "1.3"),
          "1,000 cases, 200 ms latency, 100 in flight: wall ≤ 1.3 × ideal (2.00 s)"),
    Bench("scenario-latency", "bench_scenario.py",
          ("--cases", "1000", "--latency", "0.2", "--concurrency", "100", "--max-ratio", "1.3"),
          "1,000 cases, 200 ms latency, 100 in flight: wall ≤ 1.3 × ideal (2.00 s)"),
    Bench("tasks-rerun", "bench_tasks.py",
          ("--cases", "5000", "--rerun", "--max-rerun-s", "3"),
          "cached re-run of 5,000 task cases: < 3 s and 0 requests"),
    Bench("scenario-rerun", "bench_scenario.py",
          ("--cases", "5000", "--rerun", "--max-rerun-s", "3"),
          "cached re-run of 5,000 scenario cases: < 3 s and 0 requests"),
    Bench("mutate", "bench_mutate.py", ("--pairs", "0"),
          "every mutant `eunomia mutate` writes is valid (1,400 on both bundled scenarios: "
          "100 %); mutants/s, detection on generated cases and interval widths reported "
          "(bench/mutate.md)"),
    Bench("tasks-100k-memory", "bench_tasks.py",
          ("--cases", "100000", "--synthetic", "--max-rss-mb", "300"),
          "100,000 judged-task cases (synthetic, in-process answers): peak RSS < 300 MB",
          slow=True),
    Bench("local-model", "bench_local_model.py",
          ("--model", "gemma3-270m", "--threads", "1", "--min-ratio", "0.9"),
          "Eunomia tokens/s within 10 % of llama-cpp-python direct (gemma3-270m, same "
          "settings and prompt; tokens per CPU-second)", slow=True),
]

_KEEP = re.compile(r"^(cases=|rerun:|peak_rss=|tokens per CPU|model=|MISS:)")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f}/{five:.1f}"


def run(bench: Bench, timeout: float, tmp: Path | None) -> tuple[bool, str, str]:
    cmd = [PY, str(BENCH / bench.script), *bench.args]
    env = dict(os.environ)
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    before = load()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             check=False, env=env)
        ok, text = out.returncode == 0, out.stdout
        if out.returncode and not any(_KEEP.match(x) for x in text.splitlines()):
            text += "\nerror: " + (out.stderr.strip().splitlines() or ["(no output)"])[-1]
    except subprocess.TimeoutExpired:
        ok, text = False, f"MISS: timed out after {timeout:.0f} s"
    lines = [x.strip() for x in text.splitlines()
             if _KEEP.match(x.strip()) or x.startswith("error:")]
    return ok, "<br>".join(lines) or "(no figure)", f"{before} → {load()}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true",
                        help="skip the slow benchmarks (100,000 cases, local model)")
    parser.add_argument("--only", action="append", default=[],
                        help="run only this benchmark (repeatable): "
                             + ", ".join(b.name for b in BENCHES))
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--output", type=Path, default=BENCH / "results.md")
    parser.add_argument("--tmp", default=str(BENCH / ".tmp"),
                        help="where the benchmarks put their suites, results and stores "
                             "(TMPDIR of each benchmark; removed afterwards). On the "
                             "reference machine creating a file in /tmp costs ~0.3 ms of "
                             "CPU (against ~0.02-0.1 ms on the same disk elsewhere), which "
                             "would dominate the per-case result files; --tmp '' keeps the "
                             "system default")
    args = parser.parse_args()
    tmp: Path | None = Path(args.tmp) if args.tmp else None
    if tmp is not None:
        tmp.mkdir(parents=True, exist_ok=True)
    chosen = [b for b in BENCHES if (not args.only or b.name in args.only)
              and not (args.quick and b.slow and not args.only)]
    rows = []
    missed = 0
    for bench in chosen:
        print(f"== {bench.name}: {bench.target}", flush=True)
        ok, figure, loadavg = run(bench, args.timeout, tmp)
        missed += not ok
        date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        print(f"   {'pass' if ok else 'MISS'}: {figure.replace('<br>', ' | ')}", flush=True)
        rows.append(f"| {bench.name} | {figure} | {bench.target} | "
                    f"{'pass' if ok else '**miss**'} | {date} | {loadavg} |")
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    cores = os.cpu_count()
    text = "\n".join([
        "# Benchmark results",
        "",
        f"Written by `bench/run_all.py` on a {cores}-core machine. CPU figures are the "
        "Eunomia process's own (`time.process_time`; servers run as separate processes). "
        "Load average: 1 min / 5 min, at the start → the end of each benchmark. "
        f"Working files (suites, stores, result files) in {tmp or 'the system temp folder'}.",
        "",
        "| benchmark | figure | target | result | date | load average |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ])
    args.output.write_text(text, encoding="utf-8")
    print(f"{len(rows) - missed} of {len(rows)} benchmarks met their target; "
          f"table in {args.output}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
