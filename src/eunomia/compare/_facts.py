"""Each case's repeats averaged, from its stored rows and what its kind knows of them.

The store row of every case has its status, score, cost and latency; a kind may know more
of a scored repeat (a scenario's detection, full correctness, and the instructions missing
or extra per criterion), given as :class:`eunomia.compare.CaseFacts`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean

from eunomia.compare._kind import CaseFacts
from eunomia.store import CaseRow

SCORED = "scored"


@dataclass(slots=True)
class Rep:
    row: CaseRow
    facts: CaseFacts | None


@dataclass(slots=True)
class Agg:
    """One case on one side, its repeats averaged."""

    repeats: int
    status: str
    ok: bool
    """At least one repeat was scored."""
    failed_repeats: int
    """Repeats not scored: failed, invalid or unscored (:attr:`unscored_repeats` of them)."""
    score: float | None
    detection: float | None
    """Fraction of the scored repeats detected correctly (scenario runs)."""
    fully_correct: float | None
    costs: list[float]
    latencies: list[float]
    error: str | None
    missing: dict[str, set[str]] = field(default_factory=dict)
    """Criterion -> instructions missing in most scored repeats."""
    extra: dict[str, set[str]] = field(default_factory=dict)
    criterion_miss: dict[str, float] = field(default_factory=dict)
    """Criterion expected by the case -> fraction of scored repeats missing some of it."""
    credits_met: float | None = None
    """Fraction of the scored repeats meeting every credit expectation (cases with some)."""
    awarded: float | None = None
    """Mean points awarded over the scored repeats, in percent of the maximum."""
    tutor: float | None = None
    """The tutor's points in percent of the maximum (cases with a tutor's grade)."""
    unscored_repeats: int = 0
    """Repeats answered that nothing could score (not failed)."""

    @property
    def credits_ok(self) -> bool | None:
        return None if self.credits_met is None else self.credits_met > 0.5

    @property
    def detected(self) -> bool | None:
        return None if self.detection is None else self.detection > 0.5

    @property
    def fully(self) -> bool | None:
        return None if self.fully_correct is None else self.fully_correct > 0.5

    @property
    def cost(self) -> float | None:
        return fmean(self.costs) if self.costs else None

    @property
    def latency(self) -> float | None:
        return fmean(self.latencies) if self.latencies else None


def aggregate(reps: list[Rep]) -> Agg:
    """A case's repeats as one: mean score, shares detected and fully correct, and the
    instructions missing or extra in most of its scored repeats."""
    scored = [r for r in reps if r.row.status == SCORED]
    if len(scored) == len(reps):
        status = SCORED
    elif scored:
        status = "partial"
    else:
        status = reps[0].row.status
    found = [r.facts.score if r.facts is not None else r.row.score for r in scored]
    values = [v for v in found if v is not None]
    error = next((r.row.error for r in reps if r.row.status != SCORED and r.row.error), None)
    agg = Agg(
        repeats=len(reps), status=status, ok=bool(scored), failed_repeats=len(reps) - len(scored),
        score=fmean(values) if values else None, detection=None, fully_correct=None,
        costs=[r.row.cost for r in reps if r.row.cost is not None],
        latencies=[r.row.latency_s for r in reps if r.row.latency_s is not None],
        error=None if scored else error,
        unscored_repeats=sum(r.row.status == "unscored" for r in reps),
    )
    _add_facts(agg, [r.facts for r in scored if r.facts is not None])
    return agg


def facts_only(facts: Sequence[CaseFacts]) -> Agg:
    """A case known only by the facts of its scored repeats, with no stored row (e.g. what a
    trivial baseline would have scored, computed locally)."""
    scores = [f.score for f in facts if f.score is not None]
    agg = Agg(repeats=len(facts), status=SCORED if facts else "failed", ok=bool(facts),
              failed_repeats=0, score=fmean(scores) if scores else None, detection=None,
              fully_correct=None, costs=[], latencies=[], error=None)
    _add_facts(agg, facts)
    return agg


def _add_points(agg: Agg, known: Sequence[CaseFacts]) -> None:
    """Credit expectations met, points awarded and the tutor's (scenarios)."""
    met = [f.credits_met for f in known if f.credits_met is not None]
    agg.credits_met = sum(met) / len(met) if met else None
    awarded = [f.awarded_percent for f in known if f.awarded_percent is not None]
    agg.awarded = fmean(awarded) if awarded else None
    agg.tutor = next((f.tutor_percent for f in known if f.tutor_percent is not None), None)


def _add_facts(agg: Agg, known: Sequence[CaseFacts]) -> None:
    """Detection, full correctness and the majority's missing/extra instructions; the
    points (:func:`_add_points`)."""
    _add_points(agg, known)
    facts = [f for f in known if f.detected is not None]
    if not facts:
        return
    n = len(facts)
    agg.detection = sum(bool(f.detected) for f in facts) / n
    agg.fully_correct = sum(bool(f.fully_correct) for f in facts) / n
    for of_case, into in (([f.missing for f in facts], agg.missing),
                          ([f.extra for f in facts], agg.extra)):
        counts: Counter[tuple[str, str]] = Counter(
            (criterion, i) for by_criterion in of_case
            for criterion, ids in by_criterion.items() for i in ids)
        for (criterion, i), count in counts.items():
            if count > n / 2:
                into.setdefault(criterion, set()).add(i)
    misses: Counter[str] = Counter(c for f in facts for c, ids in f.missing.items() if ids)
    for criterion in facts[0].expected_criteria:
        agg.criterion_miss[criterion] = misses[criterion] / n
