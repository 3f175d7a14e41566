"""The system's LLM traffic as metered at ``eunomia serve-model`` (``--llm-usage`` or a target's
``?llm_usage=``): the run's totals per target, exact whatever the per-case attribution.

Each metered target's totals are stored with the run when its turn ends (one record per
attempt: a resumed run adds its own), so ``eunomia export`` writes ``llm_usage.json`` again
from the store; the end of a run says them in the terminal. The cost is priced with the
scenarios' ``llm_cost.yml``, or unknown with the reason — never 0 for calls not measured.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from eunomia.errors import EunomiaError
from eunomia.files import write_text_atomic
from eunomia.kinds import Exported
from eunomia.metering import MeterTotals
from eunomia.pricing import PriceTable, TokenCount
from eunomia.store import RunInfo, RunStore

SETTING = "metered_llm_totals"
"""Where the run's settings keep each metered target's totals (a list, one per attempt)."""
FILE = "llm_usage.json"
_COUNTS = ("calls", "input_tokens", "output_tokens", "cached_input_tokens", "without_usage",
           "seconds", "exact", "by_overlap", "unattributed", "dropped")


def record_totals(store: RunStore, run: RunInfo, target: str, source: str,
                  totals: MeterTotals) -> None:
    """Store one target's totals of this attempt of the run."""
    store.add_setting(run, SETTING, {"target": target, "source": source, **asdict(totals)})


def _combined(records: Iterable[dict[str, Any]]) -> MeterTotals:
    """The totals of every attempt of a target, added up."""
    total = MeterTotals()
    for record in records:
        for name in _COUNTS:
            setattr(total, name, getattr(total, name) + record.get(name, 0))
        for model, counts in (record.get("per_model") or {}).items():
            entry = total.per_model.setdefault(model, [0, 0, 0, 0])
            for i, n in enumerate(counts[:4]):
                entry[i] += int(n)
    return total


def _price(totals: MeterTotals, tables: Sequence[PriceTable]
           ) -> tuple[float | None, list[str], str | None]:
    """The totals' cost, its price notes, and why it is unknown (None: known)."""
    if totals.dropped:
        return None, [], (f"{totals.dropped} call(s) were no longer kept by serve-model when "
                          "read (it keeps the latest calls only): the totals miss them")
    if totals.without_usage:
        return None, [], (f"serve-model could not tell the tokens of {totals.without_usage} "
                          "call(s) (failed calls, or an upstream that reported no usage)")
    if not tables:
        return None, [], "the run's scenarios have no price table"
    for model in totals.per_model:
        if len({json.dumps(m.price.model_dump() if (m := t.resolve(model)) else None)
                for t in tables}) > 1:
            return None, [], (f"the run's scenarios price {model} differently (each "
                              "llm_cost.yml): the totals cannot be priced as one")
    cost = tables[0].summarize(TokenCount(model, c[1], c[2], c[3])
                               for model, c in totals.per_model.items())
    if cost.total_cost is None:
        return None, [], (f"no price for {', '.join(cost.unknown_models)} in llm_cost.yml")
    return cost.total_cost, list(cost.notes), None


def usage_json(run: RunInfo, tables: Sequence[PriceTable]) -> dict[str, Any] | None:
    """What ``llm_usage.json`` says: per metered target, its totals, cost and attribution;
    None when the run metered nothing."""
    records: list[dict[str, Any]] = list(run.settings.get(SETTING) or [])
    if not records:
        return None
    targets: list[dict[str, Any]] = []
    for target in dict.fromkeys(r["target"] for r in records):
        mine = [r for r in records if r["target"] == target]
        totals = _combined(mine)
        cost, notes, why = _price(totals, tables)
        attributed = totals.exact + totals.by_overlap
        targets.append({
            "target": target,
            "sources": sorted({r["source"] for r in mine}),
            "attempts": len(mine),
            "calls": totals.calls,
            "input_tokens": totals.input_tokens,
            "cached_input_tokens": totals.cached_input_tokens,
            "output_tokens": totals.output_tokens,
            "calls_without_usage": totals.without_usage,
            "calls_dropped": totals.dropped,
            "llm_seconds": round(totals.seconds, 6),
            "total_cost": cost,
            "cost_unknown_because": why,
            "price_notes": notes,
            "attribution": {
                "method": "approximate" if totals.by_overlap else "exact",
                "exact": totals.exact, "by_overlap": totals.by_overlap,
                "outside_every_request": totals.unattributed,
                "attributed": attributed, "words": totals.attribution,
            },
            "per_model": [{"model": m, "calls": c[0], "input_tokens": c[1],
                           "output_tokens": c[2], "cached_input_tokens": c[3]}
                          for m, c in totals.per_model.items()],
        })
    return {"run_name": run.name, "run_status": run.status,
            "note": "every call serve-model recorded during the run, exact whatever the "
                    "per-case attribution; a case's own share is in its case file "
                    "(cost.metered)", "targets": targets}


def _words(entry: dict[str, Any]) -> str:
    """One target's totals in one sentence, for the terminal and the Markdown summary."""
    cost = entry["total_cost"]
    priced = (f"cost {cost:.6g}" if cost is not None and math.isfinite(cost)
              else f"cost unknown: {entry['cost_unknown_because']}")
    cached = f" ({entry['cached_input_tokens']:,} cached)" if entry["cached_input_tokens"] else ""
    return (f"LLM calls of {entry['target']} metered at {', '.join(entry['sources'])}: "
            f"{entry['calls']:,} call(s), {entry['input_tokens']:,} input{cached} + "
            f"{entry['output_tokens']:,} output tokens, {entry['llm_seconds']:.1f} s; {priced}; "
            f"attribution {entry['attribution']['method']}: {entry['attribution']['words']}")


def add_llm_usage(exported: Sequence[Exported[Any]], run: RunInfo, results_dir: Path,
                  tables: Sequence[PriceTable]) -> None:
    """Write ``llm_usage.json`` when the run metered a target, and say each target's totals
    after its last summary (a note: the terminal and the Markdown summary show it)."""
    data = usage_json(run, tables)
    if data is None:
        return
    path = results_dir / run.name / FILE
    try:
        write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False))
    except OSError as exc:
        raise EunomiaError(f"cannot write {path}: {exc.strerror or exc}") from None
    last: Mapping[str, Exported[Any]] = {e.target: e for e in exported}
    listed = False
    for entry in data["targets"]:
        where = last.get(entry["target"])
        if where is not None:
            where.notes.append(f"{_words(entry)} ({path})")
            if not listed:
                where.files.append(path)
                listed = True

