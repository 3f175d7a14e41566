"""Benchmark the local models: load time, tokens/s, and a small judgement sanity check.

Run: ``.venv/bin/python bench/local_models.py [model ...] [--threads N] [--repeat N]``.
Each model runs in its own subprocess (fresh load, no shared memory), through the
real ``LocalProvider``, at temperature 0. Prints one JSON line per model; the
figures go into ``bench/local_models.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

from eunomia.models import ChatMessage, ChatRequest, GenerationSettings
from eunomia.models.providers.local import LocalProvider

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["correct", "incorrect"]},
        "reason": {"type": "string"},
    },
    "required": ["verdict", "reason"],
}

SYSTEM = (
    "You are a strict teaching assistant. Decide whether the student's answer is correct. "
    "Reply with JSON: verdict and a one-sentence reason."
)

# (question, student answer, expected verdict): a sanity check, not a quality benchmark.
CASES = [
    ("What is 7 * 8?", "56", "correct"),
    ("What is 7 * 8?", "54", "incorrect"),
    ("What does `len([1, 2, 3])` return in Python?", "3", "correct"),
    ("What does `len([1, 2, 3])` return in Python?", "6, the sum of the items", "incorrect"),
    ("What is the time complexity of binary search on a sorted array?", "O(log n)", "correct"),
    ("What is the time complexity of binary search on a sorted array?", "O(n^2)", "incorrect"),
    ("Which HTTP status code means 'Not Found'?", "404", "correct"),
    ("Which HTTP status code means 'Not Found'?", "500", "incorrect"),
]

FREE_PROMPT = "Explain in about 150 words how binary search works and when to use it."


def _grading(question: str, answer: str) -> ChatRequest:
    return ChatRequest(
        messages=(
            ChatMessage(role="system", content=SYSTEM),
            ChatMessage(role="user", content=f"Question: {question}\nStudent answer: {answer}"),
        ),
        settings=GenerationSettings(max_tokens=96),
        json_schema=SCHEMA,
    )


async def _timed(provider: LocalProvider, request: ChatRequest) -> tuple[Any, float]:
    """The result and the process CPU seconds it took (with 1 thread: the generation's CPU)."""
    cpu0 = time.process_time()
    result = await provider.chat(request)
    return result, time.process_time() - cpu0


def _rate(result: Any) -> float:
    gen_s = result.latency_s - (result.time_to_first_token_s or 0.0)
    return result.usage.output_tokens / gen_s if gen_s > 0 else float("nan")


async def _measure(model: str, threads: int | None, repeat: int) -> dict[str, Any]:
    provider = LocalProvider(model, threads=threads)
    load_avg_before = os.getloadavg()[0]
    load_s = await provider.load()
    cpu0 = time.process_time()
    json_timed = [await _timed(provider, _grading(*CASES[0][:2])) for _ in range(repeat)]
    json_runs = [r for r, _ in json_timed]
    free_request = ChatRequest(
        messages=(ChatMessage(role="user", content=FREE_PROMPT),),
        settings=GenerationSettings(max_tokens=200),
    )
    free_timed = [await _timed(provider, free_request) for _ in range(repeat)]
    free_runs = [r for r, _ in free_timed]
    verdicts = []
    for question, answer, expected in CASES:
        result = await provider.chat(_grading(question, answer))
        verdicts.append((result.parsed or {}).get("verdict") == expected)
    cpu_s = time.process_time() - cpu0
    await provider.close()
    return {
        "model": model,
        "threads": provider.threads_used,
        "load_s": round(load_s, 2),
        "json_latency_s_median": round(statistics.median(r.latency_s for r in json_runs), 2),
        "json_output_tokens": json_runs[0].usage.output_tokens,
        "json_prompt_tokens": json_runs[0].usage.input_tokens,
        "json_tok_s_best": round(max(_rate(r) for r in json_runs), 1),
        "json_tok_s_median": round(statistics.median(_rate(r) for r in json_runs), 1),
        "ttft_s_median": round(
            statistics.median(r.time_to_first_token_s or 0 for r in json_runs), 2
        ),
        "free_output_tokens": free_runs[0].usage.output_tokens,
        "free_latency_s_median": round(statistics.median(r.latency_s for r in free_runs), 2),
        "free_tok_s_best": round(max(_rate(r) for r in free_runs), 1),
        "free_tok_s_median": round(statistics.median(_rate(r) for r in free_runs), 1),
        # CPU seconds per call (prompt + answer); with --threads 1 this is close to the
        # wall time of the same call on an otherwise idle core.
        "json_cpu_s_min": round(min(c for _, c in json_timed), 2),
        "free_cpu_s_min": round(min(c for _, c in free_timed), 2),
        "free_tok_per_cpu_s": round(
            free_runs[0].usage.output_tokens / min(c for _, c in free_timed), 1
        ),
        "json_tok_per_cpu_s": round(
            json_runs[0].usage.output_tokens / min(c for _, c in json_timed), 1
        ),
        "same_text_each_run": len({r.text for r in json_runs}) == 1
        and len({r.text for r in free_runs}) == 1,
        "sanity_correct": f"{sum(verdicts)}/{len(verdicts)}",
        "json_example": json_runs[0].text,
        "free_example": free_runs[0].text[:160],
        "process_cpu_s": round(cpu_s, 1),
        "load_avg_1m_before": round(load_avg_before, 2),
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models", nargs="*", default=[])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    models = args.models or ["gemma3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
    if args.child:
        print(json.dumps(asyncio.run(_measure(models[0], args.threads, args.repeat))))
        return
    print(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "machine": f"{platform.processor() or platform.machine()}, "
                f"{os.cpu_count()} cores, {platform.python_version()}",
            }
        ),
        flush=True,
    )
    for model in models:
        cmd = [sys.executable, __file__, model, "--child", "--repeat", str(args.repeat)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
        print(line or json.dumps({"model": model, "error": out.stderr[-500:]}), flush=True)


if __name__ == "__main__":
    main()
