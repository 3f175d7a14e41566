"""What a scenario run's figures can tell, in every view (terminal, CSV, JSON, HTML): the
score's interval (said as "too few cases to tell" below the minimum; a case's repeats one
cluster), the minimum detectable effect of a future comparison of equal size, and detection
by element type, kind of change and operator (:class:`ChangeBook`), with localization."""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from typing import Any

from eunomia.apollon import DiagramDiff
from eunomia.errors import EunomiaError
from eunomia.kinds.scenarios._summary import ScenarioSummary
from eunomia.scenarios import Scenario
from eunomia.scoring import (
    CaseOutcome,
    ChangeRow,
    KeptCase,
    LocalizationRow,
    case_diff,
    localization,
    rates_by_change,
)
from eunomia.stats import TOO_FEW, Interval, Power, too_few_text
from eunomia.store import RunStore

CLUSTERED = "repeats treated as clusters"
"""Said beside an interval of a run with ``--repeat``: a case's repeats are resampled together."""


def interval_text(interval: Interval | None, repeats: int = 1, digits: int = 1) -> str:
    """``[low, high]`` with what it is over, or "too few cases to tell" below the minimum."""
    if interval is None:
        return "-"
    if interval.too_few:
        return too_few_text(interval.n)
    over = f"{100 * interval.confidence:.0f}% CI over {interval.n} cases"
    if repeats > 1:
        over += f"; {CLUSTERED}"
    return f"[{interval.low:.{digits}f}, {interval.high:.{digits}f}] ({over})"


def power_text(power: Power) -> str:
    """The minimum detectable effect of a future comparison of equal size, in words."""
    if power.too_few or power.mde is None:
        return too_few_text(power.n)
    return (f"{power.mde:.1f} points at {100 * power.power:.0f}% power, alpha "
            f"{power.alpha:g}, for a future comparison of {power.n} cases (sd "
            f"{power.sd or 0.0:.1f} of the case scores)")


def figure_rows(summary: ScenarioSummary) -> list[tuple[str, str]]:
    """The score's interval and the MDE as metric rows (terminal and ``scenario_summary.csv``)."""
    if not summary.labelled:
        return []
    return [("Average Test Case Score 95% CI",
             interval_text(summary.score_interval(), 2 if summary.repeated else 1)),
            ("Minimum Detectable Effect (future comparison)", power_text(summary.power()))]


def figures_json(summary: ScenarioSummary) -> dict[str, Any]:
    """The same for ``scenario_results.json``."""
    if not summary.labelled:
        return {}
    iv = summary.score_interval()
    power = summary.power()
    repeats = 2 if summary.repeated else 1
    return {
        "score_interval": None if iv is None else {
            **asdict(iv), "too_few": iv.too_few, "clustered_repeats": repeats > 1,
            "text": interval_text(iv, repeats)},
        "power": {**asdict(power), "too_few": power.too_few, "text": power_text(power)},
        **changes_json(summary.by_change, summary.localized),
    }


def stored_request(store: RunStore, request_hash: str | None) -> tuple[Any, str | None]:
    """A case's stored request (None when there is none or it cannot be read) and, for an
    Athena request, the diagram it sent (``submission.model``)."""
    data: Any = None
    if request_hash:
        try:
            data = store.get_json(request_hash)
        except (EunomiaError, ValueError):
            data = None
    submission = data.get("submission") if isinstance(data, dict) else None
    if isinstance(submission, dict) and isinstance(submission.get("model"), str):
        return data, str(submission["model"])
    return data, None


def submission_of(scenario: Scenario, case: str, store: RunStore | None,
                  request_hash: str | None) -> str | None:
    """A case's diagram (JSON text): the loaded case's, else the stored request's
    (``submission.model`` of an Athena request), else the case file's."""
    found = scenario.case_named(case)
    if found is not None and found.submission.strip():
        return found.submission
    if store is not None:
        sent = stored_request(store, request_hash)[1]
        if sent is not None:
            return sent
    if found is None:
        return None
    try:
        return found.path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


class ChangeBook:
    """Detection by element type, kind of change and operator, and localization, fed one
    outcome at a time: each scored outcome is kept without its raw answer and with only the
    feedback items on its case's changed instructions (what localization reads)."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._outcomes: list[KeptCase] = []
        self._requests: dict[str, str | None] = {}

    def add(self, outcome: CaseOutcome) -> None:
        kept = KeptCase.of(self.scenario, outcome)
        if kept is None:
            return
        self._outcomes.append(kept)
        self._requests.setdefault(outcome.case, outcome.request_hash)

    def diffs(self, store: RunStore | None) -> dict[str, DiagramDiff]:
        out: dict[str, DiagramDiff] = {}
        solution = self.scenario.exercise.example_solution
        by_text: dict[bytes, DiagramDiff | None] = {}  # cases that submit the same diagram
        for case, request in self._requests.items():
            text = submission_of(self.scenario, case, store, request)
            if text is None:
                continue
            key = hashlib.sha256(text.encode()).digest()  # not the text: kept for every case
            if key not in by_text:
                by_text[key] = case_diff(solution, text)
            found = by_text[key]
            if found is not None:
                out[case] = found
        return out

    def finish(self, store: RunStore | None) -> tuple[list[ChangeRow], list[LocalizationRow]]:
        if not self._outcomes:
            return [], []
        diffs = self.diffs(store)
        # in case order, whatever order they finished in: the intervals resample a list
        ordered = sorted(self._outcomes, key=lambda o: (o.case, o.repeat))
        return (rates_by_change(self.scenario, ordered, diffs),
                localization(self.scenario, ordered, diffs))


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.1f}"


CHANGE_COLUMNS = ("Grouping", "Key", "Cases", "Generated Cases", "Detection Rate (%)",
                  "Miss Rate (%)", "CI Low (%)", "CI High (%)", "Interval")
LOCALIZATION_COLUMNS = ("Element Type", "Items On Changed Instructions", "Naming An Element",
                        "Naming A Changed Element", "Localization Rate (%)")


def change_cells(row: ChangeRow) -> list[str]:
    """One row of ``element_types.csv``: the rate, and its interval or "too few"."""
    iv = row.detection
    few = iv is None or iv.too_few
    return [row.grouping, row.key, str(row.cases), str(row.generated),
            _pct(row.detection_rate), _pct(row.miss_rate),
            "" if few or iv is None else _pct(iv.low), "" if few or iv is None else _pct(iv.high),
            "-" if iv is None else (too_few_text(iv.n) if iv.too_few
                                    else f"95% CI over {iv.n} cases")]


def localization_cells(row: LocalizationRow) -> list[str]:
    return [row.element_type, str(row.items), str(row.naming), str(row.on_change),
            _pct(row.rate)]


def rate_text(row: ChangeRow) -> str:
    """A detection rate with its interval, for the terminal and the HTML report."""
    iv = row.detection
    if iv is None:
        return "-"
    if iv.too_few:
        return f"{100 * iv.estimate:.1f}% ({TOO_FEW}, n={iv.n})"
    return f"{100 * iv.estimate:.1f}% [{100 * iv.low:.1f}, {100 * iv.high:.1f}]"


def changes_json(rows: list[ChangeRow], located: list[LocalizationRow]) -> dict[str, Any]:
    return {
        "by_change": [{"grouping": r.grouping, "key": r.key, "cases": r.cases,
                       "generated": r.generated, "detection_rate": r.detection_rate,
                       "miss_rate": r.miss_rate,
                       "interval": None if r.detection is None else {
                           **asdict(r.detection), "too_few": r.detection.too_few}}
                      for r in rows],
        "localization": [{**asdict(r), "rate": r.rate} for r in located],
    }


def mutations_text(scenario: Scenario, case: str) -> tuple[str, str]:
    """The Generated and Mutations cells of a case: ``("Yes", "op: what; ...")`` for a
    case ``eunomia mutate`` made, ``("No", "")`` for a hand-made one."""
    found = scenario.case_named(case)
    if found is None or not found.generated:
        return "No", ""
    return "Yes", "; ".join(f"{op}: {what}" for op, what in found.mutations)
