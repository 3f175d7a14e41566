"""Benchmark: the built-in LLM feedback engine on the example scenario (14 cases).

Runs ``--target llm:<spec>`` through ``run_scenarios`` exactly as the CLI does
(concurrency 1 for in-process models) and prints the model load time, the wall time
and the process CPU time of the cases, per-case latency, and the scores.

On a shared machine the wall time depends on the other load; the CPU time does not
(with ``--threads 1``, where no llama.cpp thread spins waiting for another one):
it is the wall time the run would take on one otherwise idle core.

    python bench/bench_llm_engine.py local:qwen2.5-coder-0.5b
    python bench/bench_llm_engine.py local:qwen2.5-coder-1.5b --threads 1 --case 'perfect*'
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from eunomia.api import CaseSelection, RunOptions, load_all, run_scenarios
from eunomia.models import ModelProvider
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.targets.llm import LLMTarget

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "scenarios"


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def bench(spec: str, timeout_s: float, retries: int, threads: int | None,
                cases: tuple[str, ...]) -> dict[str, Any]:
    sources, _ = discover([EXAMPLES])
    loaded, _ = load_all(sources)
    if threads is not None and spec.startswith("local"):
        from eunomia.models import resolve_spec
        from eunomia.models.providers.local import LocalProvider

        provider: ModelProvider = LocalProvider(resolve_spec(spec).model, threads=threads)
        target = LLMTarget(provider)
    else:
        target = LLMTarget(spec)
    started = time.perf_counter()
    await target.open()
    load = getattr(target.engine.model, "load", None) if target.engine else None
    if load is not None:  # in-process models: load time is reported apart
        await load()
    load_s = time.perf_counter() - started
    load1 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        cpu_started = _cpu_s()
        await run_scenarios(
            loaded, target, run_name="bench", results_dir=Path(tmp),
            options=RunOptions(target.max_concurrency or 4,
                               RetryPolicy(retries=retries, timeout_s=timeout_s)),
            selection=CaseSelection(cases), use_cache=False,
        )
        wall_s = time.perf_counter() - started
        cpu_s = _cpu_s() - cpu_started
        folder = Path(tmp) / "bench" / "project_management"
        data = json.loads((folder / "scenario_results.json").read_text("utf-8"))
        done = [json.loads(p.read_text("utf-8"))
                for p in sorted((folder / "test_cases").glob("*.json"))]
    await target.close()
    return {"spec": spec, "threads": threads, "load_s": load_s, "wall_s": wall_s,
            "cpu_s": cpu_s, "loadavg_before": load1,
            "loadavg_after": os.getloadavg()[0], "summary": data, "cases": done}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="model spec, e.g. local:qwen2.5-coder-0.5b")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--retries", type=int, default=0)
    parser.add_argument("--threads", type=int, help="llama.cpp threads (local models)")
    parser.add_argument("--case", action="append", default=[], help="only these cases (glob)")
    parser.add_argument("--json", type=Path, help="write the full results here")
    args = parser.parse_args()
    result = asyncio.run(bench(args.spec, args.timeout, args.retries, args.threads,
                               tuple(args.case)))
    s = result["summary"]
    keys = ("total_cases", "scored_cases", "failed_cases", "fully_correct_cases",
            "score_matched_count", "correctly_detected_cases", "average_test_case_score",
            "input_tokens", "output_tokens")
    print(f"{args.spec} (threads {args.threads or 'all'}): load {result['load_s']:.1f} s, "
          f"{len(result['cases'])} cases in {result['wall_s']:.1f} s wall, "
          f"{result['cpu_s']:.1f} s CPU "
          f"(load average {result['loadavg_before']:.2f} -> {result['loadavg_after']:.2f})")
    print("  " + ", ".join(f"{k}={s.get(k)}" for k in keys))
    for case in result["cases"]:
        expected = {i["id"] for i in case.get("expected_instructions") or []}
        returned = {i["id"] for i in case.get("returned_instructions") or []}
        time_s = case.get("request_time_s") or 0.0
        print(f"  {case['test_case']:40} {case['status']:7} {time_s:6.1f} s "
              f"score {case.get('test_case_score_percent') or 0:5.1f}% "
              f"missed {sorted(expected - returned)} extra {sorted(returned - expected)}"
              + (f" error: {case['error']}" if case.get("error") else ""))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), "utf-8")


if __name__ == "__main__":
    main()
