"""What a task run's summary holds (:class:`TasksSummary`): per kind, category,
sub-category, difficulty and suite, the flat and difficulty-weighted mean judge score with
bootstrap confidence intervals (:class:`GroupStat`); judge self-agreement over
``--judge-repeats`` and judge–human agreement (:class:`Agreement`); speed statistics;
tokens, cost and latency.

Statistical units are cases: the scores of a case's repeats are averaged first, so a case
run five times does not count five times in an interval. The figures are computed a case at
a time by :class:`eunomia.kinds.tasks._summary_builder.SummaryBuilder`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from eunomia.kinds._task_suites import NO_JUDGE, HumanAgreement
from eunomia.kinds.tasks._controls import Floor
from eunomia.kinds.tasks._costs import ModelUse
from eunomia.kinds.tasks._summary_rows import RepeatConsistency, SpeedRow
from eunomia.stats import Interval, LinearFit, Power

GROUPINGS = ("kind", "category", "sub_category", "difficulty", "suite")
FAILURES_KEPT = 100
"""Unscored cases kept in :attr:`TasksSummary.failures` (all of them are counted, and
written to ``failures.json``)."""


@dataclass(frozen=True, slots=True)
class GroupStat:
    grouping: str
    """``overall``, ``kind``, ``category``, ``sub_category``, ``difficulty`` or ``suite``."""
    value: str
    cases: int
    scored: int
    unscored: int
    failed: int
    mean: Interval | None
    weighted: Interval | None
    checks_passed: int
    checks_total: int


@dataclass(frozen=True, slots=True)
class Agreement:
    judge_repeats: int
    answers: int
    """Answers scored at least twice (the units of the self-agreement)."""
    alpha: float | None
    icc: float | None
    human_cases: int
    qwk: float | None
    mad: float | None
    human: HumanAgreement | None = None
    """The judge against the human scores: kappa with its interval, or "too few cases"."""


@dataclass(slots=True)
class TasksSummary:
    candidate: str
    judge: str
    weights: dict[str, float]
    total: int = 0
    scored: int = 0
    unscored: int = 0
    failed: int = 0
    invalid: int = 0
    overall: GroupStat | None = None
    groups: list[GroupStat] = field(default_factory=list)
    agreement: Agreement | None = None
    repeat_consistency: RepeatConsistency | None = None
    """With ``--repeat`` > 1: how the candidate's scores moved across repeats."""
    speed: Sequence[SpeedRow] = field(default_factory=list)
    speed_fit: LinearFit | None = None
    """Latency (s) against output words."""
    candidate_tokens: tuple[int, int] = (0, 0)
    judge_tokens: tuple[int, int] = (0, 0)
    cost: float | None = None
    candidate_cost: float | None = None
    """The candidate's calls only (the judge's left out): what the model under test cost."""
    reported_cost: float | None = None
    """What the candidate's system itself says its calls cost (an ``http:`` model's ``cost``
    path), summed over the calls that say it; None when none does."""
    reported_cost_computed: float | None = None
    """Eunomia's own figure for those same calls (tokens × price); None without a price."""
    models: list[ModelUse] = field(default_factory=list)
    """Calls, tokens and cost per model and role: the candidate's apart from the judge's."""
    reported_calls: int = 0
    cost_disagreements: int = 0
    """Calls whose reported cost differs from Eunomia's by more than 1 %
    (:func:`eunomia.pricing.cost_disagrees`)."""
    unknown_models: list[str] = field(default_factory=list)
    latency_mean_s: float | None = None
    latency_p95_s: float | None = None
    cache_hits: int = 0
    failures: list[tuple[str, str, int, str, str]] = field(default_factory=list)
    """(suite, case, repeat, status, reason) of the first :data:`FAILURES_KEPT` cases not
    scored (``failures.json`` lists all of them)."""
    failure_count: int = 0
    """Cases not scored (every one counted)."""
    judge_scores: Counter[int] = field(default_factory=Counter)
    """How often the judge gave each score (its own verdicts; with ``--judge none`` the
    checks' verdicts)."""
    answers: int = 0
    """Candidate answers read (cases not failed or invalid)."""
    empty_answers: int = 0
    distinct_answers: int = 0
    """Distinct candidate answers, counted up to 2 (enough to tell "all the same")."""
    failure_reasons: Counter[str] = field(default_factory=Counter)
    """The reasons of the cases that failed, up to :data:`FAILURES_KEPT` distinct ones."""
    floor: Floor | None = None
    """The candidate beside the eval's controls (read from the store when exported)."""
    prob_mean: Interval | None = None
    """Mean probability-weighted (G-Eval) judge score over the cases that have one
    (``CaseResult.prob_score``), with its 95% interval; None when none has."""
    prob_sampled_mean: float | None = None
    """The mean sampled score of those same cases (to set beside :attr:`prob_mean`)."""
    prob_cases: int = 0
    """Scored cases with a probability-weighted score."""
    prob_missing: int = 0
    """Scored cases without one (the judge's provider gave no log-probabilities)."""
    @property
    def judge_cost(self) -> float | None:
        """The judge's calls' cost: the whole cost less the candidate's (None when either
        is unknown)."""
        if self.cost is None or self.candidate_cost is None:
            return None
        return max(0.0, self.cost - self.candidate_cost)

    @property
    def scorer(self) -> str:
        """What scored the cases, for labels: ``Judge``, or ``Checks`` with ``--judge none``
        (each case's score is then its checks', round(5 x passed / total))."""
        return "Checks" if self.judge == NO_JUDGE else "Judge"

    @property
    def score_name(self) -> str:
        """``judge score``, or with ``--judge none`` ``checks' score``."""
        return "judge score" if self.scorer == "Judge" else "checks' score"

    power: Power | None = None
    """What a future comparison of these cases could detect: the minimum detectable change
    of the mean judge score at 80% power, planned from the spread of the case scores
    (``too_few`` below ``defaults.MIN_CASES_FOR_INTERVAL`` cases)."""
