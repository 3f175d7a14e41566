"""Benchmark: the YAML of a task suite's result file, written a chunk of cases at a time.

Generates realistic judged task cases (seeded; shaped like llmevalforge's result files:
instruction, system prompt, expected response, potential challenges, the candidate's
markdown answer, score, the judge's feedback with markdown hard breaks ``"  \\n"``, status,
check results; some answers with emoji, tabs or trailing spaces), checks that what
``exports.SuiteYaml`` writes of them reads back as the data and is ``yaml.dump``'s text, and
times in µs of CPU per case, the corpus generated beforehand, interleaved round by round:

- ``SuiteYaml``: ``add`` each case, ``close`` (into a sink that keeps nothing): libyaml's
  emitter fed with the events built by ``exports._yaml``;
- ``yaml.dump``: ``yaml.dump(chunk, Dumper=exports._yaml.Dumper)`` (``CSafeDumper`` with
  ``|`` for multi-line text) a chunk of ``CASES_TOGETHER`` cases at a time: the same text by
  PyYAML's representer.

Then streams ``--memory-cases`` generated cases through ``SuiteYaml`` into a file and
reports the peak of Python's allocations (tracemalloc) and the process's peak RSS.

``--from FILE`` times the cases of a suite or result file instead (at most ``--cases``).
``--side DIR`` (repeatable) times ``SuiteYaml`` of the ``src`` folder of other checkouts
instead (for instance the commit before a change: ``git archive REV | tar -x -C /tmp/before``
gives ``/tmp/before/src``): each side runs in a child process of its own
(``PYTHONPATH=DIR``), the sides interleaved round by round.

    python bench/bench_yaml.py --cases 5000 --max-us 100 --memory-cases 100000 --max-peak-mb 20
    python bench/bench_yaml.py --cases 5000 --rounds 7 --memory-cases 0 --side /tmp/before/src
"""

from __future__ import annotations

import argparse
import io
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

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


LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Null:
    def write(self, text: str) -> int:
        return len(text)


def _writer(out: Any, top_level: dict[str, Any]) -> Any:
    from eunomia.exports import SuiteYaml

    return SuiteYaml(out, "mapping", top_level)


def suite_yaml_us(corpus: list[dict[str, Any]]) -> float:
    """CPU µs per case of one pass of ``SuiteYaml`` over the corpus."""
    writer = _writer(_Null(), {"metadata": {"name": "bench", "version": "1.0"}})
    start = time.process_time()
    for case in corpus:
        writer.add(case)
    writer.close()
    return 1e6 * (time.process_time() - start) / len(corpus)


def yaml_dump_us(corpus: list[dict[str, Any]]) -> float:
    """CPU µs per case of ``yaml.dump`` with the exports' dumper, a chunk at a time."""
    from eunomia.exports._yaml import CASES_TOGETHER, DUMP_OPTIONS, Dumper

    start = time.process_time()
    for at in range(0, len(corpus), CASES_TOGETHER):
        _Null().write(yaml.dump(corpus[at:at + CASES_TOGETHER], Dumper=Dumper,
                                **DUMP_OPTIONS))
    return 1e6 * (time.process_time() - start) / len(corpus)


def _written(corpus: list[dict[str, Any]], top: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = _writer(out, top)
    for case in corpus:
        writer.add(case)
    writer.close()
    return out.getvalue()


def check(corpus: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the text ``SuiteYaml`` writes of ``corpus`` (nothing: [])."""
    from eunomia.exports import dump_yaml

    top = {"metadata": {"name": "bench", "version": "1.0"}}
    text = _written(corpus, top)
    wrong = []
    if yaml.load(text, Loader=LOADER) != {**top, "test_cases": corpus}:
        wrong.append("the text written does not read back as the data")
    if text != dump_yaml({**top, "test_cases": corpus}):
        wrong.append("the text written is not yaml.dump's")
    return wrong


def stream_memory(count: int, folder: Path) -> tuple[float, float, float, int]:
    """Stream ``count`` generated cases into a file through ``SuiteYaml``:
    (tracemalloc peak MB, peak RSS MB, CPU µs per case including generation, bytes)."""
    path = folder / "suite.yaml"
    tracemalloc.start()
    start = time.process_time()
    with path.open("w", encoding="utf-8") as out:
        writer = _writer(out, {"metadata": {"name": "bench", "version": "1.0"}})
        for case in cases(count, seed=11):
            writer.add(case)
        writer.close()
    cpu = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return peak / 2**20, rss, 1e6 * cpu / count, path.stat().st_size


def corpus_of(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The cases timed: generated, or those of ``--from`` (a suite or a result file)."""
    if args.source is None:
        return list(cases(args.cases))
    data = yaml.load(args.source.read_text(encoding="utf-8"), Loader=LOADER)
    found = data.get("test_cases") if isinstance(data, dict) else data
    assert isinstance(found, list), f"{args.source}: no list of cases"
    return found[:args.cases]


def _child(args: argparse.Namespace) -> int:
    """One timed pass of this interpreter's ``eunomia`` (``--child``): prints µs per case."""
    corpus = corpus_of(args)
    suite_yaml_us(corpus[:200])  # warm: imports, the first chunk
    print(f"{suite_yaml_us(corpus):.2f}")
    return 0


def _summary(name: str, values: list[float]) -> str:
    return (f"{name}: min {min(values):.1f} median {statistics.median(values):.1f} µs/case "
            f"over {len(values)} rounds ({', '.join(f'{v:.1f}' for v in values)})")


def _sides(args: argparse.Namespace) -> int:
    """Interleaved rounds of this checkout and each ``--side``, a child process each."""
    here = str(Path(__file__).resolve().parents[1] / "src")
    sides = [here, *(str(Path(s).resolve()) for s in args.side)]
    found: dict[str, list[float]] = {s: [] for s in sides}
    for _ in range(args.rounds):
        for side in sides:
            env = {**os.environ, "PYTHONPATH": side}
            given = [] if args.source is None else ["--from", str(args.source)]
            done = subprocess.run([sys.executable, __file__, "--child", "--cases",
                                   str(args.cases), *given], env=env, check=True,
                                  capture_output=True, text=True)
            found[side].append(float(done.stdout.split()[-1]))
    for side, values in found.items():
        print(_summary(f"SuiteYaml of {'this checkout' if side == here else side}", values))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5, help="passes timed")
    parser.add_argument("--memory-cases", type=int, default=100_000,
                        help="cases streamed for the memory figure (0: none)")
    parser.add_argument("--max-us", type=float, default=None,
                        help="fail when the writer takes more µs per case")
    parser.add_argument("--max-peak-mb", type=float, default=None,
                        help="fail when the streamed cases' Python allocations peak higher")
    parser.add_argument("--side", action="append", default=[],
                        help="the src folder of another checkout, timed beside this one")
    parser.add_argument("--from", dest="source", type=Path, default=None,
                        help="time the cases of this suite or result file (at most --cases)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args)
    if args.side:
        return _sides(args)
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
    corpus = corpus_of(args)
    for wrong in check(corpus):
        print(f"MISS: {wrong}")
        ok = False
    suite_yaml_us(corpus[:200])  # warm
    timed: dict[str, list[float]] = {"SuiteYaml": [], "yaml.dump a chunk at a time": []}
    for _ in range(args.rounds):
        timed["SuiteYaml"].append(suite_yaml_us(corpus))
        timed["yaml.dump a chunk at a time"].append(yaml_dump_us(corpus))
    print(f"corpus: {len(corpus)} cases, written as yaml.dump writes them and read back")
    for name, values in timed.items():
        print(_summary(name, values))
    us = statistics.median(timed["SuiteYaml"])
    if args.max_us is not None and us > args.max_us:
        print(f"MISS: SuiteYaml {us:.1f} > target {args.max_us} µs/case")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
