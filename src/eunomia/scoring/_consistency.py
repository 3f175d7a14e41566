"""Consistency across repeats: where the system under test changes its mind.

Each repeat of a case gives, per criterion, a *label*: the instructions of that
criterion it returned (``"-"`` for none). Per case we report how often each
instruction came back, the flip rate of each criterion's label across repeats and
the spread of the case score. Per scenario, Fleiss' kappa treats every
(case, criterion) pair as an item rated once per repeat.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from eunomia.scenarios import Scenario
from eunomia.scoring._outcome import CaseOutcome
from eunomia.stats import fleiss_kappa, flip_rate, percent_agreement


@dataclass(frozen=True, slots=True)
class CaseConsistency:
    case: str
    repeats: int
    """Scored repeats (failed repeats are not part of the consistency figures)."""
    failed_repeats: int
    instruction_share: dict[int, float]
    """Instruction id → share of scored repeats returning it (ids returned at least once)."""
    criterion_labels: dict[int, tuple[str, ...]]
    """Criterion id → its label in each scored repeat."""
    flip_rate: float | None
    """Mean over criteria of the share of consecutive repeats whose label changed."""
    score_mean: float | None
    score_stdev: float | None
    score_min: float | None
    score_max: float | None
    detected_share: float | None
    consistent: bool
    """Every scored repeat returned exactly the same instructions."""


def _label(scenario: Scenario, returned: Sequence[int], criterion_id: int) -> str:
    ids = sorted(i for i in returned if scenario.instructions[i].criterion_id == criterion_id)
    return "+".join(scenario.instructions[i].textual_id for i in ids) if ids else "-"


def case_consistency(scenario: Scenario, outcomes: Sequence[CaseOutcome]) -> CaseConsistency:
    """Consistency of one case from its outcomes across repeats."""
    scored = [o for o in sorted(outcomes, key=lambda o: o.repeat) if o.score is not None]
    n = len(scored)
    counts: dict[int, int] = {}
    for o in scored:
        assert o.score is not None
        for i in o.score.returned:
            counts[i] = counts.get(i, 0) + 1
    labels = {
        c.id: tuple(_label(scenario, o.score.returned, c.id) for o in scored if o.score)
        for c in scenario.criteria
    }
    flips = [r for r in (flip_rate(list(v)) for v in labels.values()) if r is not None]
    # an unlabelled scenario's cases have no score: only what they returned is compared
    scores = [o.score.score_percent for o in scored if o.score and o.score.labelled]
    returned_sets = {frozenset(o.score.returned) for o in scored if o.score}
    return CaseConsistency(
        case=outcomes[0].case if outcomes else "",
        repeats=n,
        failed_repeats=len(outcomes) - n,
        instruction_share={i: k / n for i, k in sorted(counts.items())} if n else {},
        criterion_labels=labels,
        flip_rate=sum(flips) / len(flips) if flips else None,
        score_mean=statistics.fmean(scores) if scores else None,
        score_stdev=statistics.stdev(scores) if len(scores) > 1 else None,
        score_min=min(scores) if scores else None,
        score_max=max(scores) if scores else None,
        detected_share=(sum(o.score.detected_correctly for o in scored if o.score) / n
                        if n and scenario.labelled else None),
        consistent=len(returned_sets) <= 1,
    )


@dataclass(slots=True)
class ConsistencySummary:
    """Streaming: ``add`` the outcomes of one case (all its repeats) at a time."""

    scenario: Scenario
    cases: list[CaseConsistency] = field(default_factory=list)
    _items: list[list[str]] = field(default_factory=list)

    def add(self, outcomes: Sequence[CaseOutcome]) -> CaseConsistency:
        result = case_consistency(self.scenario, outcomes)
        self.cases.append(result)
        for labels in result.criterion_labels.values():
            if len(labels) >= 2:
                self._items.append(list(labels))
        return result

    @property
    def fleiss_kappa(self) -> float | None:
        """Agreement of the criterion labels across repeats (None when undefined)."""
        return fleiss_kappa(self._equal_length_items()) if self._items else None

    @property
    def percent_agreement(self) -> float | None:
        return percent_agreement(self._equal_length_items()) if self._items else None

    def _equal_length_items(self) -> list[list[str]]:
        # Fleiss' kappa needs the same number of ratings per item: use the most common
        # count (cases with failed repeats have fewer ratings and are left out).
        sizes = [len(i) for i in self._items]
        common = max(set(sizes), key=sizes.count)
        return [i for i in self._items if len(i) == common]

    @property
    def mean_flip_rate(self) -> float | None:
        rates = [c.flip_rate for c in self.cases if c.flip_rate is not None]
        return sum(rates) / len(rates) if rates else None

    @property
    def consistent_cases(self) -> int:
        return sum(c.consistent for c in self.cases if c.repeats)

    @property
    def inconsistent(self) -> list[CaseConsistency]:
        """Cases whose answers changed across repeats, most unstable first."""
        return sorted((c for c in self.cases if not c.consistent),
                      key=lambda c: -(c.flip_rate or 0.0))
