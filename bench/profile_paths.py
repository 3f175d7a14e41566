"""cProfile the tasks or scenario path (Eunomia process only; the server runs apart).

    python bench/profile_paths.py tasks --cases 2000 [--rerun]
    python bench/profile_paths.py scenario --cases 2000
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_scenario
import bench_tasks


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", choices=["tasks", "scenario"])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--rerun", action="store_true", help="profile the cached re-run")
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--sort", default="tottime")
    args = parser.parse_args()
    prof = cProfile.Profile()
    with tempfile.TemporaryDirectory() as tmp:
        if args.path == "tasks":
            suite = bench_tasks.make_suite(Path(tmp), args.cases)
            proc, url = bench_tasks.start_server(args.latency)
            os.environ["OPENAI_BASE_URL"] = url
            try:
                res = Path(tmp) / "res"
                if args.rerun:
                    asyncio.run(bench_tasks.run_once(suite, res, "warm", 100, None))
                prof.enable()
                asyncio.run(bench_tasks.run_once(suite, res, "prof", 100, None))
                prof.disable()
            finally:
                proc.terminate()
                proc.wait()
        else:
            scenario = bench_scenario.make_scenario(Path(tmp), args.cases)
            proc, url = bench_scenario.start_server(args.latency)
            try:
                prof.enable()
                asyncio.run(bench_scenario.run(scenario, url, 100, Path(tmp) / "res"))
                prof.disable()
            finally:
                proc.terminate()
                proc.wait()
    stats = pstats.Stats(prof)
    stats.sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
