"""Benchmark: the scheduler adapts to a server that rate-limits above a set concurrency.

The run starts at --concurrency (above the server's limit). On 429s the adaptive
limit halves and honours Retry-After, then grows back by additive increase. The
benchmark prints the limit over time and checks that (1) every call succeeded,
(2) the limit went below the server's capacity, (3) it grew back afterwards, and
(4) the wall time stays within --max-ratio of the ideal at the server's capacity.

    python bench/bench_adaptive.py --calls 600 --concurrency 32 --server-limit 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from eunomia.scheduler import (
    AdaptiveLimiter,
    CallError,
    RetryPolicy,
    call_with_retry,
    parse_retry_after,
    stream_results,
)

ROOT = Path(__file__).resolve().parents[1]


async def run(url: str, calls: int, concurrency: int) -> tuple[float, list[tuple[float, int]],
                                                                 AdaptiveLimiter, int]:
    limiter = AdaptiveLimiter(concurrency)
    policy = RetryPolicy(retries=20, timeout_s=10, backoff_initial_s=0.05, backoff_max_s=1.0)
    samples: list[tuple[float, int]] = []
    async with aiohttp.ClientSession() as session:

        async def attempt() -> int:
            async with session.post(f"{url}/call", data=b"{}") as r:
                await r.read()
                if r.status == 429:
                    raise CallError("429", retryable=True, status=429, rate_limited=True,
                                    retry_after=parse_retry_after(r.headers.get("Retry-After")))
                return r.status

        async def job(_: int) -> int:
            return (await call_with_retry(attempt, policy, limiter)).attempts

        started = time.perf_counter()

        async def sampler() -> None:
            while True:
                samples.append((time.perf_counter() - started, limiter.limit))
                await asyncio.sleep(0.05)

        sampling = asyncio.create_task(sampler())
        attempts = 0
        async for n in stream_results(range(calls), job, concurrency):
            attempts += n
        wall = time.perf_counter() - started
        sampling.cancel()
    return wall, samples, limiter, attempts


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=600)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--server-limit", type=int, default=8)
    p.add_argument("--latency", type=float, default=0.05)
    p.add_argument("--retry-after", type=float, default=0.3)
    p.add_argument("--max-ratio", type=float, default=3.0)
    a = p.parse_args()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "rate_limited_server.py"),
         "--max-in-flight", str(a.server_limit), "--latency", str(a.latency),
         "--retry-after", str(a.retry_after)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = json.loads(proc.stdout.readline())["url"]
    try:
        wall, samples, limiter, attempts = asyncio.run(run(url, a.calls, a.concurrency))
    finally:
        proc.terminate()
        proc.wait()
    ideal = a.calls * a.latency / a.server_limit
    lowest = min(limit for _, limit in samples) if samples else a.concurrency
    after_low = [limit for t, limit in samples if limit == lowest]
    first_low = next(t for t, limit in samples if limit == lowest) if samples else 0.0
    regrown = max((limit for t, limit in samples if t > first_low), default=lowest)
    trace = " ".join(f"{t:.1f}s:{limit}" for t, limit in samples[:: max(1, len(samples) // 12)])
    print(f"calls={a.calls} start_concurrency={a.concurrency} server_limit={a.server_limit} "
          f"latency={a.latency}s wall={wall:.2f}s ideal_at_capacity={ideal:.2f}s "
          f"ratio={wall / ideal:.2f} attempts={attempts} rate_limited={limiter.rate_limited_count}"
          f" lowest_limit={lowest} regrown_to={regrown}")
    print(f"limit over time: {trace}")
    ok = True
    if lowest >= a.concurrency:
        print("MISS: the limit never came down on 429s")
        ok = False
    if not after_low or regrown <= lowest:
        print("MISS: the limit did not grow back after coming down")
        ok = False
    if wall / ideal > a.max_ratio:
        print(f"MISS: wall/ideal {wall / ideal:.2f} > target {a.max_ratio}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
