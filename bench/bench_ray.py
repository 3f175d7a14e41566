"""Benchmark: the same N-case scenario through the local executor and the Ray executor.

Mirrors ``bench_scenario.py`` (a fast local Athena-contract server in its own process)
and runs the evaluation twice, once per executor, on the same machine. Ray starts a
local cluster (all CPUs) first; its start-up and the workers' first build are timed
apart, with a warm-up run, so the figures are the steady overhead per case.

    python bench/bench_ray.py --cases 5000
    python bench/bench_ray.py --cases 1000 --latency 0.2 --concurrency 100

Prints, per executor: wall time, cases/s, wall ms per case, driver CPU ms per case and
Ray processes' CPU ms per case (workers, raylet, GCS) and machine CPU ms per case (every
process, other users' too: only meaningful on an idle machine).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scenario import make_scenario, start_server
from eunomia.api import CaseSelection, RunOptions, load_all, run_scenarios
from eunomia.executors import Executor, LocalExecutor, TargetRecipe
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.targets import TargetConfig, build_target


def ray_cpu_s() -> float:
    """CPU seconds used so far by the live Ray processes (workers, raylet, GCS...)."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if b"ray::" in cmd or b"/ray/" in cmd or b"raylet" in cmd or b"gcs_server" in cmd:
            total += int(stat[11]) + int(stat[12])  # utime + stime
    return total / os.sysconf("SC_CLK_TCK")


def machine_cpu_s() -> float:
    """CPU seconds used by the whole machine so far (user + nice + system)."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    return (int(fields[0]) + int(fields[1]) + int(fields[2])) / os.sysconf("SC_CLK_TCK")


async def timed_run(scenario: Path, url: str, concurrency: int, results: Path,
                    executor: Executor, name: str, max_cases: int | None = None
                    ) -> tuple[float, float, float, float, int]:
    sources, _ = discover([scenario])
    loaded, _ = load_all(sources)
    config = TargetConfig(server_url=url, max_connections=concurrency)
    target = build_target("athena", config)
    options = RunOptions(concurrency, RetryPolicy(retries=0, timeout_s=60))
    selection = CaseSelection(max_cases=max_cases)
    cases = len(selection.apply(loaded[0].scenario))
    wall0, cpu0, mcpu0, rcpu0 = (time.perf_counter(), time.process_time(), machine_cpu_s(),
                                 ray_cpu_s())
    report = await run_scenarios(loaded, target, run_name=name, results_dir=results,
                                 options=options, selection=selection, executor=executor,
                                 recipes={target.name: TargetRecipe("athena", config)},
                                 use_cache=False)
    wall = time.perf_counter() - wall0
    cpu, mcpu = time.process_time() - cpu0, machine_cpu_s() - mcpu0
    rcpu = ray_cpu_s() - rcpu0
    assert report.failed_cases == 0, f"{report.failed_cases} cases failed"
    return wall, cpu, rcpu, mcpu, cases


def line(label: str, wall: float, cpu: float, rcpu: float, mcpu: float, cases: int) -> str:
    return (f"{label:<6} cases={cases} wall={wall:.2f}s rate={cases / wall:.0f} cases/s "
            f"wall={1000 * wall / cases:.3f} ms/case driver-cpu={1000 * cpu / cases:.3f} "
            f"ms/case ray-processes-cpu={1000 * rcpu / cases:.3f} ms/case "
            f"eunomia-cpu={1000 * (cpu + rcpu) / cases:.3f} ms/case "
            f"machine-cpu={1000 * mcpu / cases:.3f} ms/case")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--workers", type=int, default=None, help="Ray worker actors")
    parser.add_argument("--max-overhead-ms", type=float, default=None,
                        help="fail when Ray's wall ms/case exceeds local's by more than this")
    args = parser.parse_args()
    try:
        import ray

        from eunomia.executors.ray import RayExecutor
    except ImportError:
        print("Ray is not installed: pip install 'eunomia[ray]'")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        scenario = make_scenario(Path(tmp), args.cases)
        proc, url = start_server(args.latency)
        try:
            local = asyncio.run(timed_run(scenario, url, args.concurrency, Path(tmp) / "res",
                                          LocalExecutor(), "local"))
            t0 = time.perf_counter()
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False,
                     _node_ip_address="127.0.0.1")
            started = time.perf_counter() - t0
            executor = RayExecutor(workers=args.workers)
            try:
                warm = asyncio.run(timed_run(scenario, url, args.concurrency,
                                             Path(tmp) / "res", executor, "warm", 100))
                remote = asyncio.run(timed_run(scenario, url, args.concurrency,
                                               Path(tmp) / "res", executor, "ray"))
                workers = len(executor.workers())
            finally:
                executor.close()
                ray.shutdown()
        finally:
            proc.terminate()
            proc.wait()
    print(f"concurrency={args.concurrency} latency={args.latency}s ray-workers={workers} "
          f"ray-start={started:.1f}s first-100-cases-on-ray={warm[0]:.2f}s")
    print(line("local", *local))
    print(line("ray", *remote))
    n_local, n_ray = local[4], remote[4]
    extra = 1000 * (remote[0] / n_ray - local[0] / n_local)
    cpu_extra = 1000 * ((remote[1] + remote[2]) / n_ray - (local[1] + local[2]) / n_local)
    print(f"ray overhead: {extra:+.3f} ms wall per case, {cpu_extra:+.3f} ms Eunomia CPU "
          f"per case (driver + Ray processes); load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")
    if args.max_overhead_ms is not None and extra > args.max_overhead_ms:
        print(f"MISS: overhead {extra:.3f} > target {args.max_overhead_ms} ms/case")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
