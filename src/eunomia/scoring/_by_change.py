"""Which kinds of diagram elements a system struggles with: detection and miss rates by the
element types and kinds of change each case is about (its structural diff against the
example solution), by mutation operator for generated cases, and whether feedback points
at the changed elements (localization).

A case counts once per group it is about, its repeats averaged (a case run three times is
one case); a rate's interval is a bootstrap over those cases and says when there are too
few of them to tell (``Interval.too_few``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from statistics import fmean
from typing import Literal

from eunomia import defaults
from eunomia.apollon import DiagramDiff, DiagramError, diff_diagrams
from eunomia.athena import AthenaFeedback
from eunomia.scenarios import Scenario, TestCase
from eunomia.scoring._outcome import CaseOutcome
from eunomia.stats import Interval, bootstrap_mean_ci

Grouping = Literal["element_type", "change", "operator"]
NO_CHANGE = "(no change)"
"""The group of a case that does not differ from the example solution."""


def case_diff(example_solution: str | None, submission: str) -> DiagramDiff | None:
    """The structural diff of a case's diagram (JSON text) against the example solution;
    None when either is missing or not a diagram."""
    if not example_solution or not submission:
        return None
    try:
        return diff_diagrams(json.loads(example_solution), json.loads(submission))
    except (ValueError, DiagramError):
        return None


def case_diffs(scenario: Scenario) -> dict[str, DiagramDiff]:
    """Every loaded case's diff (cases whose text is not kept, as in a stored scenario,
    are left out: give their texts to :func:`case_diff`)."""
    out: dict[str, DiagramDiff] = {}
    for case in scenario.test_cases:
        found = case_diff(scenario.exercise.example_solution, case.submission)
        if found is not None:
            out[case.name] = found
    return out


def groups_of(case: TestCase, diff: DiagramDiff | None) -> dict[Grouping, tuple[str, ...]]:
    """The element types, kinds of change and (generated cases) operators a case is about."""
    if diff is None:
        types: tuple[str, ...] = ()
        kinds: tuple[str, ...] = ()
    else:
        types = diff.element_types or (NO_CHANGE,)
        kinds = tuple(diff.kinds) or (NO_CHANGE,)
    return {"element_type": types, "change": kinds,
            "operator": tuple(dict.fromkeys(op for op, _ in case.mutations))}


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """Detection of the cases about one element type, kind of change or operator."""

    grouping: Grouping
    key: str
    cases: int
    """Scored cases about it (repeats averaged: each case once)."""
    generated: int
    """... of which made by ``eunomia mutate``."""
    detection: Interval | None
    """Mean per-case share of scored repeats detected correctly, with its 95% interval
    (bootstrap over cases); ``too_few`` below ``defaults.MIN_CASES_FOR_INTERVAL``."""

    @property
    def detection_rate(self) -> float | None:
        return None if self.detection is None else self.detection.estimate

    @property
    def miss_rate(self) -> float | None:
        rate = self.detection_rate
        return None if rate is None else 1.0 - rate


@dataclass(frozen=True, slots=True)
class KeptCase:
    """A scored outcome of a labelled case as detection by change keeps it, fed one case at
    a time: whether it was detected correctly, and only the feedback items on its case's
    changed instructions (what localization reads); not the outcome's score or answer, so
    that a long run keeps a few objects per case."""

    case: str
    repeat: int
    detected: bool
    feedback: tuple[AthenaFeedback, ...] = ()

    @classmethod
    def of(cls, scenario: Scenario, outcome: CaseOutcome) -> KeptCase | None:
        """``outcome`` (of a case of ``scenario``) as kept, or None when it is not a scored
        outcome of a labelled case."""
        score = outcome.score
        if not outcome.ok or score is None or not score.labelled:
            return None
        case = scenario.case_named(outcome.case)
        changed = case.diff_instructions if case is not None else frozenset()
        return cls(outcome.case, outcome.repeat, score.detected_correctly, tuple(
            f for f in outcome.feedback if f.structured_grading_instruction_id in changed))


@dataclass(slots=True)
class _Acc:
    shares: list[float] = field(default_factory=list)
    generated: int = 0


def _per_case(scenario: Scenario,
              outcomes: Iterable[CaseOutcome | KeptCase]) -> dict[str, list[KeptCase]]:
    """The scored outcomes of labelled cases, as kept, by case."""
    by: dict[str, list[KeptCase]] = {}
    for o in outcomes:
        kept = KeptCase.of(scenario, o) if isinstance(o, CaseOutcome) else o
        if kept is not None:
            by.setdefault(kept.case, []).append(kept)
    return by


def rates_by_change(scenario: Scenario, outcomes: Iterable[CaseOutcome | KeptCase],
                    diffs: Mapping[str, DiagramDiff]) -> list[ChangeRow]:
    """Detection and miss rates per element type, kind of change and operator, over the
    scored cases of one scenario and target (``diffs``: :func:`case_diffs`). Rows by
    grouping, then the worst detected first."""
    acc: dict[tuple[Grouping, str], _Acc] = {}
    for name, reps in _per_case(scenario, outcomes).items():
        case = scenario.case_named(name)
        if case is None:
            continue
        share = fmean(float(o.detected) for o in reps)
        for grouping, keys in groups_of(case, diffs.get(name)).items():
            for key in keys:
                a = acc.setdefault((grouping, key), _Acc())
                a.shares.append(share)
                a.generated += case.generated
    order = {"element_type": 0, "change": 1, "operator": 2}
    rows = [ChangeRow(g, k, len(a.shares), a.generated,
                      bootstrap_mean_ci(a.shares, confidence=defaults.CONFIDENCE,
                                        resamples=defaults.BOOTSTRAP_RESAMPLES,
                                        seed=defaults.BOOTSTRAP_SEED))
            for (g, k), a in acc.items()]
    rows.sort(key=lambda r: (order[r.grouping], r.detection_rate or 0.0, -r.cases, r.key))
    return rows


@dataclass(frozen=True, slots=True)
class LocalizationRow:
    """Whether feedback on a case's changed instructions points at the changed elements,
    for the cases about one element type."""

    element_type: str
    items: int
    """Feedback items that returned one of the case's changed instructions."""
    naming: int
    """... of which name some element (``elementIds`` or ``reference``)."""
    on_change: int
    """... of which name an element the change is about (the element itself, a
    relationship's ends, or what surrounded a removed element)."""

    @property
    def rate(self) -> float | None:
        """Share of the items naming an element that name a changed one."""
        return self.on_change / self.naming if self.naming else None


def named_elements(item: AthenaFeedback) -> set[str]:
    """The element ids a feedback item names: ``elementIds`` and ``reference`` (both may be
    ``"<Type>:<id>"``)."""
    out = set()
    for ref in [*item.element_ids, *([item.reference] if item.reference else [])]:
        text = str(ref).strip()
        if text:
            out.add(text.split(":", 1)[1] if ":" in text else text)
    return out


def localization(scenario: Scenario, outcomes: Iterable[CaseOutcome | KeptCase],
                 diffs: Mapping[str, DiagramDiff]) -> list[LocalizationRow]:
    """Per element type: the feedback items on the cases' changed instructions, how many
    name an element and how many name a changed one. Most items first."""
    acc: dict[str, list[int]] = {}
    for name, reps in _per_case(scenario, outcomes).items():
        case = scenario.case_named(name)
        diff = diffs.get(name)
        if case is None or diff is None or not case.diff_instructions:
            continue
        anchors = diff.anchors
        counts = [0, 0, 0]
        for o in reps:
            for item in o.feedback:
                if item.structured_grading_instruction_id not in case.diff_instructions:
                    continue
                counts[0] += 1
                named = named_elements(item)
                counts[1] += bool(named)
                counts[2] += bool(named & anchors)
        for key in diff.element_types or (NO_CHANGE,):
            row = acc.setdefault(key, [0, 0, 0])
            for i in range(3):
                row[i] += counts[i]
    rows = [LocalizationRow(k, *v) for k, v in acc.items()]
    rows.sort(key=lambda r: (-r.items, r.element_type))
    return rows
