"""Benchmark: Eunomia's tokens/s on the embedded model against llama-cpp-python called
directly, with the same model file, the same settings and the same prompt.

Both run in this process, alternately, ``--repeat`` times each: Eunomia through the real
``LocalProvider`` (its worker thread, streaming, token counting, state reset), the baseline
with ``llama_cpp.Llama(...).create_chat_completion`` on its own ``Llama`` loaded with the
same parameters (context, threads, seed, chat format, no extra CPU buffer types). On a
shared machine the rate is measured as output tokens per CPU-second of this process (one
thread by default: then CPU time is the wall time on an idle core); the best run of each
side is compared. Eunomia must reach ``--min-ratio`` (default 0.9: within 10 %).

    python bench/bench_local_model.py --model gemma3-270m --threads 1 --min-ratio 0.9
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from eunomia import defaults
from eunomia.models import (
    ChatMessage,
    ChatRequest,
    GenerationSettings,
    ensure_weights,
    local_model,
)
from eunomia.models.providers import local as local_mod
from eunomia.models.providers.local import LocalProvider

PROMPT = ("Explain in about 150 words how binary search works and why it needs a sorted "
          "array.")


def direct_llama(model: str, context: int, threads: int) -> Any:
    llama_cpp = local_mod.import_llama_cpp()
    spec = local_model(model)
    with local_mod._without_extra_buffers(llama_cpp):  # the same load settings as Eunomia
        return llama_cpp.Llama(
            model_path=str(ensure_weights(spec.name)), n_ctx=context, n_threads=threads,
            n_threads_batch=threads, seed=defaults.MODEL_SEED, chat_format=spec.chat_format,
            verbose=False,
        )


def run_direct(llama: Any, max_tokens: int) -> tuple[int, float, float]:
    llama.reset()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    out = llama.create_chat_completion(
        messages=[{"role": "user", "content": PROMPT}], temperature=0.0,
        max_tokens=max_tokens, seed=defaults.MODEL_SEED)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return int(out["usage"]["completion_tokens"]), cpu, wall


async def run_eunomia(provider: LocalProvider, max_tokens: int) -> tuple[int, float, float]:
    request = ChatRequest(messages=(ChatMessage(role="user", content=PROMPT),),
                          settings=GenerationSettings(temperature=0.0, max_tokens=max_tokens))
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = await provider.chat(request)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return result.usage.output_tokens, cpu, wall


async def main_async(args: argparse.Namespace) -> int:
    provider = LocalProvider(args.model, context_tokens=args.context, threads=args.threads)
    await run_eunomia(provider, 8)  # load and warm up
    llama = direct_llama(args.model, args.context, args.threads)
    run_direct(llama, 8)
    eun: list[tuple[int, float, float]] = []
    base: list[tuple[int, float, float]] = []
    for _ in range(args.repeat):
        base.append(run_direct(llama, args.max_tokens))
        eun.append(await run_eunomia(provider, args.max_tokens))
    await provider.close()

    def best(runs: list[tuple[int, float, float]], k: int) -> float:
        return max(r[0] / r[k] for r in runs if r[k] > 0)

    e_cpu, b_cpu = best(eun, 1), best(base, 1)
    e_wall, b_wall = best(eun, 2), best(base, 2)
    ratio = e_cpu / b_cpu
    print(f"model={args.model} threads={args.threads} max_tokens={args.max_tokens} "
          f"tokens eunomia={eun[0][0]} direct={base[0][0]}")
    print(f"tokens per CPU-second: eunomia={e_cpu:.1f} direct={b_cpu:.1f} ratio={ratio:.3f}; "
          f"tokens/s wall (load-dependent): eunomia={e_wall:.1f} direct={b_wall:.1f}")
    if ratio < args.min_ratio:
        print(f"MISS: eunomia/direct {ratio:.3f} < target {args.min_ratio}")
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="gemma3-270m")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--context", type=int, default=defaults.LOCAL_CONTEXT_TOKENS)
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--min-ratio", type=float, default=None,
                        help="fail when Eunomia's tokens per CPU-second fall below this "
                             "fraction of the direct call's")
    args = parser.parse_args()
    if args.min_ratio is None:
        args.min_ratio = 0.0
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
