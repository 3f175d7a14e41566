"""Judge-check with the answers that look right and are wrong, for the local judges (issue 28).

``eunomia judge-check`` scores five answers per case (the reference, another case's, its
first third, a refusal, the reference padded). This script adds the new ones — the
content-free answer, the reference with its numbers changed, a name swapped, the key claim
negated, the key sentence dropped, the requested form ignored (``eunomia.tasks``) — and
reports per kind the mean score and the AUC against the reference, and the verdicts
(lenient, blind to errors) of ``eunomia.judge``. Until judge-check itself scores them (phase
2 of issue 28: the wiring into ``kinds/judge_check``), it is driven from here, with the judge
prompted exactly as ``eval`` prompts it (the case's category runner builds the judge's item,
the bundled rubric, the category's guidance).

    .venv/bin/python bench/judge_floor.py examples/tasks/ecommerce \\
        --judge likelihood:local:qwen2.5-coder-1.5b --judge local:qwen2.5-coder-1.5b \\
        --max-cases 2 --out bench/results/judge_floor

Each judge's answers are cached in ``<out>/<judge>.jsonl`` (one line per judged answer:
its score, probability-weighted score, seconds and the load average when it ran), so an
interrupted run resumes. ``<out>/<judge>.json`` holds the figures; ``--table`` prints the
Markdown table of bench/judge_floor.md from the JSON files.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from eunomia.judge import (
    CONTENT_FREE,
    FACT_KINDS,
    KIND_WORDS,
    Judge,
    JudgeCall,
    JudgeItem,
    Verdict,
    blind_verdict,
    form_verdict,
    kind_figures,
    lenient_verdict,
    pooled_auc,
)
from eunomia.models import (
    ChatMessage,
    ChatRequest,
    ChatResult,
    GenerationSettings,
    get_model,
    resolve_spec,
)
from eunomia.tasks import (
    Built,
    CallRecord,
    LoadedCase,
    altered_answers,
    category_named,
    content_free,
    iter_entries,
    load_suites,
    loaded_case,
)

REFUSAL = "I cannot help with that."
OLD_BAD = ("other", "truncated", "refusal")
KINDS = ("good", *OLD_BAD, "padded", CONTENT_FREE, *FACT_KINDS, "form")
PADDING = ("On a different note, the history of tea is a fascinating subject in its own right. "
           "Tea was first cultivated in China thousands of years ago, and over the centuries "
           "it spread along trade routes to Japan, India and eventually Europe.")


def truncated(text: str) -> str | None:
    third = len(text) // 3
    ends = [i for i, ch in enumerate(text[: third + 1]) if ch.isspace()]
    cut = text[: ends[-1]].rstrip() if ends else ""
    return cut if cut and cut != text else None


@dataclass
class Answer:
    suite: str
    case: LoadedCase
    kind: str
    text: str
    how: str = ""


@dataclass
class FixedContext:
    """A :class:`eunomia.tasks.CaseContext` whose candidate's answer is fixed."""

    answer: str
    judge: Judge
    caller: Any
    guidance: str
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    calls: list[CallRecord] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)

    async def ask(self, messages: Sequence[ChatMessage], *, max_tokens: int | None = None,
                  stream: bool = False) -> ChatResult:
        return ChatResult(text=self.answer, model="judge-floor")

    async def judge_answer(self, item: JudgeItem) -> list[Verdict]:
        item = item.model_copy(update={"guidance": item.guidance or self.guidance})
        self.verdicts = await self.judge.score(item, self.caller)
        return self.verdicts


def answers_of(paths: Sequence[Path], max_cases: int | None) -> tuple[list[Answer], dict[str, int]]:
    """Every answer of the first ``max_cases`` checkable cases of each suite, and the count
    of altered answers skipped per kind."""
    suites, problems = load_suites(list(paths))
    for p in problems:
        print(f"note: {p}", file=sys.stderr)
    out: list[Answer] = []
    skipped: dict[str, int] = {}
    for suite in suites:
        cases = [loaded_case(e) for e in iter_entries(suite)]
        refs = [None if c.case.conversation else (c.case.expected_response or "").strip() or None
                for c in cases]
        checkable = [i for i, r in enumerate(refs) if r is not None]
        for n, i in enumerate(checkable):
            if max_cases is not None and n >= max_cases:
                break
            case, own = cases[i], refs[i]
            assert own is not None
            prev = [j for j in checkable if j < i]
            other = refs[prev[-1]] if prev else (refs[checkable[1]] if len(checkable) > 1
                                                 else None)
            made: dict[str, tuple[str, str]] = {"good": (own, "")}
            if other is not None and other != own:
                made["other"] = (other, "")
            cut = truncated(own)
            if cut is not None:
                made["truncated"] = (cut, "")
            made["refusal"] = (REFUSAL, "")
            made["padded"] = (own + "\n\n" + PADDING, "")
            free = content_free(case, own)
            made[CONTENT_FREE] = (free.text, free.how)
            others = [r for j, r in enumerate(refs) if r is not None and j != i]
            for got in altered_answers(case, own, others):
                if isinstance(got, Built):
                    made[got.kind] = (got.text, got.how)
                else:
                    skipped[got.kind] = skipped.get(got.kind, 0) + 1
            out += [Answer(suite.name, case, k, t, h) for k, (t, h) in made.items()]
    return out, skipped


class Cache:
    """The judged answers of one judge, one JSON line each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, dict[str, Any]] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                row = json.loads(line)
                self.rows[row["key"]] = row

    def add(self, row: dict[str, Any]) -> None:
        self.rows[row["key"]] = row
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")


def key_of(spec: str, a: Answer) -> str:
    return hashlib.sha256(json.dumps([spec, a.suite, a.case.name, a.kind, a.text]).encode()
                          ).hexdigest()[:24]


async def judge_one(provider: Any, judge: Judge, spec: str, a: Answer) -> dict[str, Any]:
    """One answer judged as ``eval`` judges it: its row (score, seconds, CPU, load)."""
    category = category_named(a.case.kind)
    timings: list[float] = []
    cpu: list[float] = []

    async def call(request: ChatRequest, k: int, validate: Any) -> JudgeCall:
        started, cpu_started = time.perf_counter(), time.process_time()
        result = await provider.chat(request)
        timings.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
        validate(result)
        return JudgeCall(result, 1, False)

    ctx = FixedContext(a.text, judge, call, category.guidance())
    load_before = os.getloadavg()[0]
    await category.runner(a.case, ctx)
    verdict = ctx.verdicts[0] if ctx.verdicts else None
    return {"key": key_of(spec, a), "judge": spec, "suite": a.suite, "case": a.case.name,
            "kind": a.kind, "how": a.how, "score": verdict.score if verdict else None,
            "weighted": verdict.weighted_score if verdict else None,
            "seconds": sum(timings), "cpu_seconds": sum(cpu),
            "load": round((load_before + os.getloadavg()[0]) / 2, 2)}


async def judge_all(spec: str, answers: list[Answer], cache: Cache) -> None:
    resolved = resolve_spec(spec)
    provider = get_model(resolved)
    judge = Judge()
    todo = [a for a in answers if key_of(resolved.spec, a) not in cache.rows]
    print(f"{resolved.spec}: {len(answers) - len(todo)} answers cached, {len(todo)} to judge",
          file=sys.stderr)
    for n, a in enumerate(todo, 1):
        row = await judge_one(provider, judge, resolved.spec, a)
        cache.add(row)
        print(f"  [{n}/{len(todo)}] {a.suite}/{a.case.name}#{a.kind}: {row['score']} "
              f"({row['weighted']}) {row['seconds']:.1f}s wall, {row['cpu_seconds']:.1f}s CPU, "
              f"load {row['load']}", file=sys.stderr)
    await provider.close()


def _interval(i: Any) -> list[float] | None:
    return None if i is None else [round(i.estimate, 3), round(i.low, 3), round(i.high, 3)]


def figures(rows: list[dict[str, Any]], skipped: dict[str, int]) -> dict[str, Any]:
    """Per kind: mean and AUC against the reference (sampled and weighted), and verdicts."""
    out: dict[str, Any] = {"answers": len(rows), "skipped": skipped}
    for field_ in ("score", "weighted"):
        by_case: dict[tuple[str, str], dict[str, float | None]] = {}
        for r in rows:
            by_case.setdefault((r["suite"], r["case"]), {})[r["kind"]] = r[field_]
        cases = list(by_case.values())
        if not any(v is not None for c in cases for v in c.values()):
            continue
        kinds = [k for k in KINDS if any(k in c for c in cases)]
        per_kind = kind_figures(cases, kinds)
        lenient = lenient_verdict(per_kind.get(CONTENT_FREE), "these suites")
        blind = blind_verdict(cases, per_kind)
        form = form_verdict(cases, per_kind)
        out[field_] = {
            "cases": len(cases),
            "auc_easy": _interval(pooled_auc(cases, OLD_BAD)),
            "auc_facts": _interval(pooled_auc(cases, FACT_KINDS)),
            "kinds": {k: {"n": f.answers, "mean": _interval(f.mean), "auc": _interval(f.auc)}
                      for k, f in per_kind.items()},
            "verdicts": [{"finding": v.finding, "level": v.level, "text": v.text,
                          "evidence": v.evidence} for v in (lenient, blind, form)],
        }
    seconds = [r["seconds"] for r in rows if r.get("seconds")]
    cpu = [r["cpu_seconds"] for r in rows if r.get("cpu_seconds")]
    loads = [r["load"] for r in rows if r.get("load") is not None]
    out["seconds_per_answer"] = round(fmean(seconds), 2) if seconds else None
    out["cpu_seconds_per_answer"] = round(fmean(cpu), 2) if cpu else None
    out["load"] = [min(loads), round(fmean(loads), 2), max(loads)] if loads else None
    return out


def table(out: Path) -> str:
    lines = ["| judge | AUC easy (other, third, refusal) | AUC facts altered | "
             + " | ".join(KIND_WORDS.get(k, k) for k in KINDS) + " | s/answer (load) |",
             "|---" * (len(KINDS) + 4) + "|"]
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text())
        for field_ in ("score", "weighted"):
            f = data.get(field_)
            if f is None:
                continue

            def cell(i: list[float] | None) -> str:
                return "–" if i is None else f"{i[0]:.2f} [{i[1]:.2f}, {i[2]:.2f}]"

            means = " | ".join(
                "–" if (m := f["kinds"].get(k, {}).get("mean")) is None else f"{m[0]:.2f}"
                for k in KINDS)
            load = data.get("load")
            speed = f"{data['seconds_per_answer']} ({load[0]}–{load[2]})" if load else "–"
            label = f" ({data['label']})" if data.get("label") else ""
            lines.append(f"| `{data['judge']}`{label} {field_} | {cell(f['auc_easy'])} | "
                         f"{cell(f['auc_facts'])} | {means} | {speed} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", type=Path)
    parser.add_argument("--judge", action="append", default=[])
    parser.add_argument("--max-cases", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("bench/results/judge_floor"))
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--label", default="", help="appended to the JSON file's name (a "
                        "subset of the cases: the answers stay in the judge's cache)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.table:
        print(table(args.out))
        return
    answers, skipped = answers_of(args.suites, args.max_cases)
    print(f"{len(answers)} answers; altered answers skipped: {skipped}", file=sys.stderr)
    for spec in args.judge:
        name = resolve_spec(spec).spec.replace(":", "_")
        cache = Cache(args.out / f"{name}.jsonl")
        asyncio.run(judge_all(spec, answers, cache))
        keys = {key_of(resolve_spec(spec).spec, a) for a in answers}
        rows = [r for k, r in cache.rows.items() if k in keys]
        result = {"judge": resolve_spec(spec).spec, "suites": [str(p) for p in args.suites],
                  "max_cases": args.max_cases, **figures(rows, skipped)}
        label = f"-{args.label}" if args.label else ""
        result["label"] = args.label
        (args.out / f"{name}{label}.json").write_text(json.dumps(result, indent=1) + "\n")
        print(json.dumps({k: result[k] for k in ("judge", "answers", "seconds_per_answer",
                                                  "cpu_seconds_per_answer", "load")}))


if __name__ == "__main__":
    main()
