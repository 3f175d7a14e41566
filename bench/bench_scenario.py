"""Benchmark: a scenario of N SGI test cases against a fast local Athena-contract server.

Measures Eunomia end to end (loading excluded): scheduling, HTTP, scoring, pricing,
per-case JSON files and tables. Prints cases/s and Eunomia CPU ms per case, and the
concurrency efficiency at a given server latency.

    python bench/bench_scenario.py --cases 5000
    python bench/bench_scenario.py --cases 1000 --latency 0.2 --concurrency 100
    python bench/bench_scenario.py --cases 5000 --rerun --max-rerun-s 3

``--rerun`` runs the same scenario a second time into the same store (a new run name):
every answer comes from the response cache, so it must make zero requests (the server
counts them) and finish within ``--max-rerun-s``. The runs reuse answers across runs as
``eunomia run --cache`` does (a system reached over HTTP is otherwise asked again by each
new run: it may have changed behind its URL).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from eunomia.api import CaseSelection, RunOptions, load_all, run_scenarios
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.targets.athena import AthenaTarget

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"


def make_scenario(folder: Path, cases: int) -> Path:
    """Copy the example scenario and replicate its test cases to ``cases`` files."""
    scenario = folder / "scenarios" / "bench"
    shutil.copytree(EXAMPLE, scenario, ignore=shutil.ignore_patterns("test_cases", "_*.py"))
    shutil.copy(ROOT / "examples" / "scenarios" / "llm_cost.yml", folder / "scenarios")
    sources = sorted((EXAMPLE / "test_cases").glob("*.json"))
    out = scenario / "test_cases"
    out.mkdir()
    for i in range(cases):
        shutil.copy(sources[i % len(sources)], out / f"case_{i:06d}.json")
    return scenario


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "fast_athena_server.py"), "--latency", str(latency)],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    url = json.loads(proc.stdout.readline())["url"]
    return proc, url


def server_requests(url: str) -> int:
    root = url.rsplit("/", 1)[0]
    with urllib.request.urlopen(f"{root}/stats", timeout=10) as response:
        return int(json.load(response)["requests"])


async def run(
    scenario: Path, url: str, concurrency: int, results: Path, run_name: str = "bench"
) -> tuple[float, float, int]:
    sources, _ = discover([scenario])
    loaded, _ = load_all(sources)
    cases = len(loaded[0].scenario.test_cases)
    target = AthenaTarget(url, max_connections=concurrency)
    options = RunOptions(concurrency, RetryPolicy(retries=0, timeout_s=60))
    wall0, cpu0 = time.perf_counter(), time.process_time()
    report = await run_scenarios(loaded, target, run_name=run_name, results_dir=results,
                                 options=options, selection=CaseSelection(),
                                 cache_systems=True)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    assert report.failed_cases == 0, f"{report.failed_cases} cases failed"
    return wall, cpu, cases


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--min-rate", type=float, default=None, help="fail below this cases/s")
    parser.add_argument("--max-cpu-ms", type=float, default=None, help="fail above this")
    parser.add_argument("--max-ratio", type=float, default=None,
                        help="fail when wall time exceeds this multiple of the ideal")
    parser.add_argument("--rerun", action="store_true",
                        help="run twice into one store; the second run must be all cache")
    parser.add_argument("--max-rerun-s", type=float, default=None,
                        help="with --rerun: fail when the second run takes longer")
    args = parser.parse_args()
    rerun: tuple[float, float, int] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        scenario = make_scenario(Path(tmp), args.cases)
        proc, url = start_server(args.latency)
        try:
            wall, cpu, cases = asyncio.run(run(scenario, url, args.concurrency, Path(tmp) / "res"))
            if args.rerun:
                before = server_requests(url)
                wall2, cpu2, _ = asyncio.run(run(scenario, url, args.concurrency,
                                                 Path(tmp) / "res", "bench2"))
                rerun = (wall2, cpu2, server_requests(url) - before)
        finally:
            proc.terminate()
            proc.wait()
    rate = cases / wall
    cpu_ms = 1000 * cpu / cases
    ideal = cases * args.latency / args.concurrency if args.latency else None
    print(f"cases={cases} concurrency={args.concurrency} latency={args.latency}s "
          f"wall={wall:.2f}s rate={rate:.0f} cases/s cpu={cpu_ms:.3f} ms/case"
          + (f" ideal={ideal:.2f}s ratio={wall / ideal:.2f}" if ideal else ""))
    ok = True
    if args.min_rate is not None and rate < args.min_rate:
        print(f"MISS: rate {rate:.0f} < target {args.min_rate:.0f} cases/s")
        ok = False
    if args.max_cpu_ms is not None and cpu_ms > args.max_cpu_ms:
        print(f"MISS: cpu {cpu_ms:.3f} > target {args.max_cpu_ms} ms/case")
        ok = False
    if args.max_ratio is not None and ideal and wall / ideal > args.max_ratio:
        print(f"MISS: wall/ideal {wall / ideal:.2f} > target {args.max_ratio}")
        ok = False
    if rerun is not None:
        wall2, cpu2, served = rerun
        print(f"rerun: wall={wall2:.2f}s cpu={1000 * cpu2 / cases:.3f} ms/case "
              f"served_by_server={served}")
        if served:
            print(f"MISS: the re-run made {served} request(s); target 0")
            ok = False
        if args.max_rerun_s is not None and wall2 > args.max_rerun_s:
            print(f"MISS: re-run {wall2:.2f}s > target {args.max_rerun_s} s")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
