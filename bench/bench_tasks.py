"""Benchmark: a judged-task suite of N cases with a deterministic check and no judge
(``--judge none``), against a fast local OpenAI-compatible server (a separate process).

Measures Eunomia end to end (loading excluded): scheduling, HTTP, checks, scoring,
pricing, the run store (one transaction per case) and the exports at the end. Prints
cases/s and Eunomia CPU ms per case (``time.process_time`` of this process; the server's
CPU is not counted).

    python bench/bench_tasks.py --cases 5000 --min-rate 1000 --max-cpu-ms 1
    python bench/bench_tasks.py --cases 5000 --rerun --max-rerun-s 3
    python bench/bench_tasks.py --cases 100000 --synthetic --max-rss-mb 300

``--rerun`` runs the same evaluation a second time into the same store (a new run name):
every answer comes from the response cache, so it must make zero requests (the server
counts them) and finish within ``--max-rerun-s``.

``--synthetic`` answers in-process (no HTTP, no server) and reports the peak RSS of this
process (``ru_maxrss``: the highest resident memory of the whole process, so loading the
suite, the run and the export at its end are all counted): the run must stream cases
through, not hold them. The loading pass (which checks every case and reports problems) is
timed apart (``load=``); the run reads the suite file once more as it stores its snapshot,
and that is counted in the run's CPU per case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from eunomia.api import RunOptions, run_tasks
from eunomia.models import ChatRequest, ChatResult, Usage, resolve_spec
from eunomia.scheduler import RetryPolicy
from eunomia.tasks import load_suites

ROOT = Path(__file__).resolve().parents[1]
ANSWER = "The answer is 42."
LAST: dict[str, float] = {}
"""Figures of the last :func:`run_once` beyond what it returns (``load_cpu_s``)."""


def make_suite(folder: Path, cases: int) -> Path:
    """One suite file of ``cases`` general-knowledge cases, each with a deterministic check."""
    path = folder / "bench_suite.yaml"
    with path.open("w", encoding="utf-8") as out:  # written line by line: no memory held
        out.write("metadata:\n  name: bench\ntest_cases:\n")
        for i in range(cases):
            out.write(f"- case_id: gk-{i:06d}\n  category: General Knowledge\n"
                      "  system_prompt: Answer briefly.\n"
                      f"  instruction: 'Question {i}: what is six times seven?'\n"
                      "  expected_response: '42'\n"
                      f"  difficulty_level: {('easy', 'medium', 'hard')[i % 3]}\n"
                      "  checks:\n  - contains: '42'\n")
    return path


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "fast_openai_server.py"), "--latency",
         str(latency), "--answer", ANSWER],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    url = json.loads(proc.stdout.readline())["url"]
    return proc, url


def server_requests(base_url: str) -> int:
    root = base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/stats", timeout=10) as response:
        return int(json.load(response)["requests"])


class InstantProvider:
    """An in-process model answering at once (``--synthetic``)."""

    name = "openai:bench"

    def __init__(self) -> None:
        self.calls = 0

    async def chat(self, request: ChatRequest) -> ChatResult:
        self.calls += 1
        return ChatResult(text=ANSWER, usage=Usage(input_tokens=50, output_tokens=8),
                          latency_s=0.0, model="bench")

    async def close(self) -> None:
        pass


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


async def run_once(suite_path: Path, results: Path, run_name: str, concurrency: int,
                   provider: InstantProvider | None) -> tuple[float, float, int, int, int]:
    load0 = time.process_time()
    suites, problems = load_suites([suite_path])
    LAST["load_cpu_s"] = time.process_time() - load0
    assert not problems, problems
    cases = sum(len(s.cases) for s in suites)
    candidate = resolve_spec("openai:bench")
    options = RunOptions(concurrency, RetryPolicy(retries=0, timeout_s=60))
    wall0, cpu0 = time.perf_counter(), time.process_time()
    report = await run_tasks(
        suites, candidate=candidate, judge=None, run_name=run_name, results_dir=results,
        options=options, providers=(provider, provider) if provider is not None else None,
    )
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    assert report.summary is not None
    assert report.failed_cases == 0, f"{report.failed_cases} cases failed"
    assert report.summary.scored == cases, f"{report.summary.scored} of {cases} scored"
    return wall, cpu, cases, report.requests_made, report.cache_hits


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--synthetic", action="store_true",
                        help="answer in-process (no server) and report the peak RSS")
    parser.add_argument("--rerun", action="store_true",
                        help="run twice into one store; the second run must be all cache")
    parser.add_argument("--min-rate", type=float, default=None, help="fail below this cases/s")
    parser.add_argument("--max-cpu-ms", type=float, default=None, help="fail above this")
    parser.add_argument("--max-ratio", type=float, default=None,
                        help="fail when wall time exceeds this multiple of the ideal")
    parser.add_argument("--max-rss-mb", type=float, default=None, help="fail above this")
    parser.add_argument("--max-rerun-s", type=float, default=None,
                        help="with --rerun: fail when the second run takes longer")
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        suite = make_suite(Path(tmp), args.cases)
        results = Path(tmp) / "res"
        proc = None
        provider: InstantProvider | None = None
        if args.synthetic:
            provider = InstantProvider()
        else:
            proc, url = start_server(args.latency)
            os.environ["OPENAI_BASE_URL"] = url
        try:
            rss0 = peak_rss_mb()
            wall, cpu, cases, requests, _ = asyncio.run(
                run_once(suite, results, "bench1", args.concurrency, provider))
            rate, cpu_ms = cases / wall, 1000 * cpu / cases
            ideal = cases * args.latency / args.concurrency if args.latency else None
            print(f"cases={cases} concurrency={args.concurrency} latency={args.latency}s "
                  f"wall={wall:.2f}s rate={rate:.0f} cases/s cpu={cpu_ms:.3f} ms/case "
                  f"requests={requests}"
                  + (f" ideal={ideal:.2f}s ratio={wall / ideal:.2f}" if ideal else ""))
            if args.synthetic:
                rss = peak_rss_mb()
                load = LAST.get("load_cpu_s", 0.0)
                print(f"peak_rss={rss:.0f} MB (before the run {rss0:.0f} MB; whole process: "
                      f"loading, run and export) load={load:.1f}s CPU "
                      f"({1000 * load / cases:.3f} ms/case)")
                if args.max_rss_mb is not None and rss > args.max_rss_mb:
                    print(f"MISS: peak RSS {rss:.0f} > target {args.max_rss_mb:.0f} MB")
                    ok = False
            if args.min_rate is not None and rate < args.min_rate:
                print(f"MISS: rate {rate:.0f} < target {args.min_rate:.0f} cases/s")
                ok = False
            if args.max_cpu_ms is not None and cpu_ms > args.max_cpu_ms:
                print(f"MISS: cpu {cpu_ms:.3f} > target {args.max_cpu_ms} ms/case")
                ok = False
            if args.max_ratio is not None and ideal and wall / ideal > args.max_ratio:
                print(f"MISS: wall/ideal {wall / ideal:.2f} > target {args.max_ratio}")
                ok = False
            if args.rerun:
                before = server_requests(url) if proc is not None else 0
                wall2, cpu2, _, requests2, hits = asyncio.run(
                    run_once(suite, results, "bench2", args.concurrency, provider))
                served = (server_requests(url) if proc is not None else 0) - before
                print(f"rerun: wall={wall2:.2f}s cpu={1000 * cpu2 / cases:.3f} ms/case "
                      f"requests={requests2} served_by_server={served} cache_hits={hits}")
                if requests2 or served:
                    print(f"MISS: the re-run made {max(requests2, served)} request(s); "
                          "target 0")
                    ok = False
                if args.max_rerun_s is not None and wall2 > args.max_rerun_s:
                    print(f"MISS: re-run {wall2:.2f}s > target {args.max_rerun_s} s")
                    ok = False
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
