"""Benchmark: the YAML of a task suite's result file, one judged case at a time.

Generates realistic judged task cases (seeded; shaped like llmevalforge's result files:
instruction, system prompt, expected response, potential challenges, the candidate's
markdown answer, score, the judge's feedback with markdown hard breaks ``"  \\n"``, status,
check results; some answers with emoji, tabs or trailing spaces) and times each writer of
one case (``case_yaml``: ``- ...`` through its last line), in µs of CPU per case:

- ``today``: the hand-written emitter's ``case_yaml`` (``eunomia.exports._yaml_legacy``,
  formerly ``_task_files``), while it exists;
- ``pyyaml``: ``eunomia.exports._yaml.slow_case_yaml``, PyYAML's pure-Python dumper: the
  reference text;
- ``CSafeDumper``: ``yaml.dump([case], Dumper=<CSafeDumper with our representers>)``, libyaml
  alone: not the reference text (the cases that differ are counted);
- ``new``: ``eunomia.exports._yaml.case_yaml``: libyaml fed with events, with the reference
  text (checked on every case: a difference fails the benchmark).

Then streams ``--memory-cases`` generated cases through ``SuiteYaml`` into a file and
reports the peak of Python's allocations (tracemalloc) and the process's peak RSS.

    python bench/bench_yaml.py --cases 5000 --max-us 100 --memory-cases 100000 --max-peak-mb 20
"""

from __future__ import annotations

import argparse
import importlib
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from eunomia.exports._yaml import (
    DUMP_OPTIONS,
    SuiteYaml,
    case_yaml,
    libyaml_case_yaml,
    slow_case_yaml,
)

CATEGORIES = ("summarization", "general_knowledge", "instruction_following",
              "common_sense_reasoning", "ethical_reasoning", "inference_speed")
WORDS = ("product", "battery", "screen", "display", "customer", "quality", "premium",
         "wireless", "design", "lightweight", "performance", "storage", "warranty", "price",
         "delivery", "return", "policy", "feature", "sleek", "durable", "the", "a", "with",
         "and", "for", "your", "this", "our", "of", "to", "in", "is", "experience",
         "connectivity", "4K", "HDR10+", "Wi-Fi", "16GB", "USB-C", "eco-friendly", "café",
         "naïve", "résumé", "—", "“quoted”", "it's", "don't", "e.g.", "(optional)", "50%")
SYSTEM_PROMPTS = (
    "You are a helpful e-commerce assistant. Answer briefly and accurately.",
    "You are a product description expert helping to generate concise, customer-friendly "
    "product descriptions in standard paragraph form based on given technical "
    "specifications. Ensure that the description is clear and highlights key features.",
    "You are a customer support agent for an online store: be polite, factual and short.",
)
EMOJI = ("😀", "🚀", "✅", "🎉", "📦", "👍")


def _sentence(rng: random.Random, low: int = 6, high: int = 22) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + rng.choice(".!?.")


def _paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(_sentence(rng) for _ in range(sentences))


def _answer(rng: random.Random) -> str:
    """The candidate's markdown answer: paragraphs, a list, sometimes emoji, a hard break, a
    tab-indented code block or a trailing space."""
    parts = [_paragraph(rng, rng.randint(1, 4)) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.5:
        parts.append("\n".join(f"- **{rng.choice(WORDS)}**: {_sentence(rng, 3, 10)}"
                               for _ in range(rng.randint(2, 6))))
    text = "\n\n".join(parts)
    roll = rng.random()
    if roll < 0.10:
        text = text.replace(".", f". {rng.choice(EMOJI)}", 2)
    elif roll < 0.25:
        text = text.replace("\n\n", "  \n", 1)  # a markdown hard break
    elif roll < 0.30:
        text += "\n\n```python\ndef f(x):\n\treturn x * 2\n```"
    elif roll < 0.35:
        text += " "
    return text + ("\n" if rng.random() < 0.3 else "")


def _feedback(rng: random.Random, score: int) -> str:
    """The judge's feedback, as llmevalforge's judge writes it (markdown hard breaks)."""
    text = (f"Evaluation:\n**Score**: {score}  \n**Explanation**: {_paragraph(rng, 3)} \n\n"
            f"However, {_paragraph(rng, 2)}")
    return text if rng.random() < 0.7 else text.replace("  \n", "\n").replace(" \n", "\n")


def make_case(rng: random.Random, i: int) -> dict[str, Any]:
    category = rng.choice(CATEGORIES)
    score = rng.randint(1, 5)
    status = rng.choices(("scored", "unscored", "failed"), (0.95, 0.03, 0.02))[0]
    case: dict[str, Any] = {
        "case_id": f"{category[:3]}-{i:05d}",
        "category": category,
        "sub_category": "Product Information Understanding and Generation",
        "difficulty_level": rng.choice(("easy", "medium", "hard")),
        "system_prompt": rng.choice(SYSTEM_PROMPTS),
        "instruction": (_paragraph(rng, rng.randint(1, 3)) if rng.random() < 0.6 else
                        "Generate a product description for the following specs:\n"
                        + "\n".join(f"- {rng.choice(WORDS)}: {_sentence(rng, 2, 6)}"
                                    for _ in range(rng.randint(3, 8)))),
        "expected_response": _paragraph(rng, rng.randint(1, 4)) + "\n",
        "potential_challenges": [_sentence(rng) for _ in range(rng.randint(1, 4))],
        "response_candidate_model": _answer(rng) if status != "failed" else None,
        "score": float(score) if status == "scored" else None,
        "judge_feedback": _feedback(rng, score) if status == "scored" else None,
        "status": status,
    }
    if status == "failed":
        case["error"] = "timeout after 60 s"
    if rng.random() < 0.5:
        case["check_results"] = [
            {"name": rng.choice(("contains", "max_words", "regex", "json")),
             "passed": rng.random() < 0.8, "detail": rng.choice(("", "120 > 100 words"))}
            for _ in range(rng.randint(1, 3))]
    if category == "inference_speed":
        words = rng.randint(20, 400)
        latency = rng.uniform(0.2, 9.0)
        case["speed"] = {"latency_s": round(latency, 4), "time_to_first_token_s": 0.12,
                         "output_words": words, "output_tokens": int(words * 1.3),
                         "words_per_second": round(words / latency, 4),
                         "expected_words": 150, "length_adherence": round(words / 150, 4)}
    return case


def cases(count: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for i in range(count):
        yield make_case(rng, i)


class LibyamlDumper(yaml.CSafeDumper):
    """libyaml alone: ``CSafeDumper`` with the same representer (``|`` for multi-line)."""


LibyamlDumper.add_representer(
    str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v,
                                         style="|" if "\n" in v else None))


def csafe_case_yaml(case: Any) -> tuple[str, bool]:
    text: str = yaml.dump([case], Dumper=LibyamlDumper, **DUMP_OPTIONS)
    ended = text.endswith("\n...\n")
    return (text[:-4] if ended else text), ended


def today() -> Callable[[Any], tuple[str, bool]] | None:
    """The hand-written emitter's ``case_yaml`` (wherever the restructuring put it), if it
    is still there."""
    for name in ("eunomia.exports._yaml_legacy", "eunomia.exports._task_files"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        hand_written: Callable[[Any], tuple[str, bool]] | None = getattr(
            module, "case_yaml", None)
        if hand_written is not None and hasattr(module, "_CaseEmitter"):
            print(f"today: {name}.case_yaml")
            return hand_written
    print("today: the hand-written emitter is gone; row left out")
    return None


def per_case_us(write: Callable[[Any], object], corpus: list[dict[str, Any]],
                rounds: int) -> float:
    """CPU µs per case: the best of ``rounds`` passes over the corpus."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for case in corpus:
            write(case)
        best = min(best, time.process_time() - start)
    return 1e6 * best / len(corpus)


class _Null:
    def write(self, text: str) -> int:
        return len(text)


def stream_memory(count: int, folder: Path) -> tuple[float, float, float, int]:
    """Stream ``count`` generated cases into a file through :class:`SuiteYaml`:
    (tracemalloc peak MB, peak RSS MB, CPU µs per case including generation, bytes)."""
    path = folder / "suite.yaml"
    tracemalloc.start()
    start = time.process_time()
    with path.open("w", encoding="utf-8") as out:
        writer = SuiteYaml(out, "mapping", {"metadata": {"name": "bench", "version": "1.0"}})
        for case in cases(count, seed=11):
            writer.add(case)
        writer.close()
    cpu = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return peak / 2**20, rss, 1e6 * cpu / count, path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3, help="passes timed (the best)")
    parser.add_argument("--memory-cases", type=int, default=100_000,
                        help="cases streamed for the memory figure (0: none)")
    parser.add_argument("--max-us", type=float, default=None,
                        help="fail when the new writer takes more µs per case")
    parser.add_argument("--max-peak-mb", type=float, default=None,
                        help="fail when the streamed cases' Python allocations peak higher")
    args = parser.parse_args()
    ok = True
    if args.memory_cases:  # first, so that the peak RSS is the stream's, not the corpus's
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        with tempfile.TemporaryDirectory() as tmp:
            peak, rss, us, size = stream_memory(args.memory_cases, Path(tmp))
        print(f"stream: {args.memory_cases} cases ({size / 2**20:.0f} MB of YAML) "
              f"tracemalloc_peak={peak:.1f} MB peak_rss={rss:.0f} MB (before {rss0:.0f} MB) "
              f"{us:.0f} µs/case with generation and tracing")
        if args.max_peak_mb is not None and peak > args.max_peak_mb:
            print(f"MISS: peak {peak:.1f} > target {args.max_peak_mb} MB")
            ok = False

    corpus = list(cases(args.cases))
    reference = [slow_case_yaml(c) for c in corpus]
    ours = [case_yaml(c) for c in corpus]
    wrong = sum(a != b for a, b in zip(ours, reference, strict=True))
    by_libyaml = sum(libyaml_case_yaml(c) is not None for c in corpus)
    csafe_differs = sum(csafe_case_yaml(c) != r for c, r in zip(corpus, reference, strict=True))
    print(f"corpus: {args.cases} cases, {sum(len(t) for t, _ in reference) / args.cases:.0f} "
          f"characters of YAML each; new == pyyaml on {args.cases - wrong}, written by "
          f"libyaml {by_libyaml} (the rest by PyYAML); CSafeDumper alone differs on "
          f"{csafe_differs}")
    if wrong:
        print(f"MISS: the new writer differs from PyYAML on {wrong} cases")
        ok = False
    writers: list[tuple[str, Callable[[Any], object]]] = []
    hand_written = today()
    if hand_written is not None:
        if any(hand_written(c) != r for c, r in zip(corpus, reference, strict=True)):
            print("today: differs from PyYAML")
        writers.append(("today (hand-written emitter)", hand_written))
    writers += [("pyyaml (slow_case_yaml)", slow_case_yaml),
                ("CSafeDumper alone (not the same text)", csafe_case_yaml),
                ("new (_yaml.case_yaml)", case_yaml)]
    new_us = 0.0
    for name, write in writers:
        rounds = 1 if write is slow_case_yaml else args.rounds
        us = per_case_us(write, corpus, rounds)
        print(f"{name}: {us:.1f} µs/case")
        if write is case_yaml:
            new_us = us
    if args.max_us is not None and new_us > args.max_us:
        print(f"MISS: new {new_us:.1f} > target {args.max_us} µs/case")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
