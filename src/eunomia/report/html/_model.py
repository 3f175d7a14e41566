"""The report's data model (no HTML here): what one run's report shows, kind by kind.

Built from the run store by :func:`eunomia.report.html.build_run_report`, each kind filling
in its own groups (``eunomia.kinds``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eunomia.apollon import ApollonDiagram
from eunomia.report._leaderboard import Columns, LeaderboardRow
from eunomia.scoring import TutorAgreement
from eunomia.stats import Interval, quantile

NONE_LABEL = "(none)"
"""Row / column of the confusion matrix: nothing expected / nothing returned."""


# --- small value types ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Metric:
    label: str
    value: float | int | None
    kind: str = "num"
    """How to format it: num, int, pct (0..1), score (0..100), score2 (two decimals, as the
    tables show a 0-5 score), cost, seconds, text."""
    text: str = ""
    detail: str = ""
    """The sentence behind a short value (a verdict's figures), shown under the tiles."""


@dataclass(frozen=True, slots=True)
class LatencyStats:
    values: tuple[float, ...]

    @property
    def count(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float | None:
        return sum(self.values) / len(self.values) if self.values else None

    def quantile(self, q: float) -> float | None:
        return quantile(self.values, q)

    @property
    def p50(self) -> float | None:
        return self.quantile(0.5)

    @property
    def p90(self) -> float | None:
        return self.quantile(0.9)

    @property
    def max(self) -> float | None:
        return max(self.values) if self.values else None



@dataclass(frozen=True, slots=True)
class ModelCost:
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    """Cost of the calls with a known price; ``None`` when no call had one."""
    role: str = "candidate"
    """``judge`` for a judge's calls: never a candidate's."""


@dataclass(frozen=True, slots=True)
class CaseLine:
    """One stored case, for the generic table (every kind of run)."""

    suite: str
    target: str
    case: str
    repeat: int
    status: str
    score: float | None
    latency_s: float | None
    cost: float | None
    cached: bool
    error: str | None
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class CasePointsCells:
    """A scenario case's points, for the columns of the table of every case."""

    awarded: float | None
    """Points the system awarded (its feedback's credits, as Artemis totals them)."""
    tutor: float | None
    """The tutor's points, when the case carries a tutor's grade."""
    credits: str = ""
    """Credit expectations met, ``met/checked``; empty without any."""
    unmet: tuple[str, ...] = ()
    """The credit expectations not met, in words."""


CaseKey = tuple[str, str, str, int]
"""(suite, target, case, repeat) of a stored case."""


# --- structured-grading sections -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CriterionRow:
    textual_id: str
    title: str
    cases: int
    missed: int

    @property
    def miss_rate(self) -> float | None:
        return self.missed / self.cases if self.cases else None

    @property
    def detection_rate(self) -> float | None:
        return None if self.miss_rate is None else 1.0 - self.miss_rate


@dataclass(frozen=True, slots=True)
class InstructionRow:
    textual_id: str
    criterion: str
    credits: float
    expected: int
    missed: int
    returned_unexpected: int

    @property
    def miss_rate(self) -> float | None:
        return self.missed / self.expected if self.expected else None


@dataclass(frozen=True, slots=True)
class ConfusionMatrix:
    """Rows: the instruction expected; columns: the one returned (``(none)`` for nothing)."""

    criterion: str
    title: str
    labels: tuple[str, ...]
    """Instruction textual ids of the criterion, then ``(none)``; rows and columns alike."""
    counts: tuple[tuple[int, ...], ...]

    @property
    def total(self) -> int:
        return sum(sum(r) for r in self.counts)

    @property
    def correct(self) -> int:
        return sum(self.counts[i][i] for i in range(len(self.labels) - 1))


@dataclass(frozen=True, slots=True)
class FeedbackView:
    """One feedback item as a student would see it."""

    title: str
    description: str
    credits: float
    instruction: str
    """The instruction it names (textual id), ``unknown #N``, or empty."""
    element_ids: tuple[str, ...] = ()
    """The diagram elements (or relationships) it names (``elementIds``)."""
    marks: tuple[int, ...] = ()
    """The numbered badges of those elements in the drawn submission."""
    unplaced: tuple[str, ...] = ()
    """Named ids the submission does not have (nothing to outline)."""


@dataclass(frozen=True, slots=True)
class CaseDiagram:
    """A case's submission as the report draws it."""

    diagram: ApollonDiagram | None
    """``None`` when it could not be found or read (``note`` says why)."""
    source: str = ""
    """Where it came from: the stored request, the stored scenario, the case file."""
    note: str = ""
    highlight: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Element or relationship id → the feedback labels naming it, badge order."""


@dataclass(frozen=True, slots=True)
class CriterionMiss:
    """A criterion whose instruction was missed or returned without being expected."""

    criterion: str
    title: str
    missed: tuple[str, ...]
    """Expected instructions that did not come back."""
    extra: tuple[str, ...]
    """Returned instructions that were not expected (in place of the missed ones)."""


@dataclass(frozen=True, slots=True)
class WorstCase:
    case: str
    repeat: int
    target: str
    score_percent: float
    detected: bool
    expected_score: float
    returned_score: float
    expected: tuple[str, ...]
    returned: tuple[str, ...]
    missing: tuple[str, ...]
    extra: tuple[str, ...]
    unrecognized: tuple[int, ...]
    diagram: str | None
    """The submission as text."""
    feedback: tuple[FeedbackView, ...]
    drawing: CaseDiagram | None = None
    criteria: tuple[CriterionMiss, ...] = ()
    mutations: tuple[str, ...] = ()
    """A generated case's mutations of the example solution (``eunomia mutate``)."""


@dataclass(frozen=True, slots=True)
class SectionTable:
    """A table a kind adds to a group's section: title, hint, header and rows of text (the
    columns from ``numeric_from`` on are figures, aligned right)."""

    title: str
    hint: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric_from: int = 1


@dataclass(frozen=True, slots=True)
class FailedCase:
    case: str
    repeat: int
    status: str
    error: str
    attempts: int
    expected: tuple[str, ...] = ()
    """The instructions the case expects (textual ids), when the kind knows them."""
    drawing: CaseDiagram | None = None
    diagram: str | None = None
    """The submission as text."""


@dataclass(frozen=True, slots=True)
class InstructionAgreement:
    instruction: str
    share: float
    """Share of the scored repeats that returned this instruction."""


@dataclass(frozen=True, slots=True)
class ConsistencyCase:
    case: str
    repeats: int
    """Scored repeats."""
    failed_repeats: int
    flip_rate: float | None
    """Mean over criteria of the share of consecutive repeats whose answer changed."""
    consistent: bool
    """Every scored repeat returned exactly the same instructions."""
    unstable: tuple[InstructionAgreement, ...]
    """The instructions returned in some repeats but not in all."""
    score_mean: float | None
    score_min: float | None
    score_max: float | None


@dataclass(frozen=True, slots=True)
class Consistency:
    repeats: int
    cases: tuple[ConsistencyCase, ...]
    """Most unstable first."""
    kappa: float | None
    """Fleiss' kappa of the criterion answers across repeats (None when undefined)."""
    agreement: float | None
    mean_flip_rate: float | None
    consistent_cases: int


@dataclass(slots=True)
class GroupReport:
    """One suite on one target."""

    suite: str
    target: str
    kind: str
    metrics: list[Metric] = field(default_factory=list)
    total: int = 0
    failed: int = 0
    mean_score: float | None = None
    detection_rate: float | None = None
    cost: float | None = None
    criteria: list[CriterionRow] = field(default_factory=list)
    instructions: list[InstructionRow] = field(default_factory=list)
    confusion: list[ConfusionMatrix] = field(default_factory=list)
    worst: list[WorstCase] = field(default_factory=list)
    failures: list[FailedCase] = field(default_factory=list)
    """The cases that failed or are invalid (not the unscored ones)."""
    unscored: int = 0
    """Cases answered that nothing could score (listed in :attr:`unscored_cases`, with why)."""
    unscored_cases: list[FailedCase] = field(default_factory=list)
    consistency: Consistency | None = None
    latency: LatencyStats = field(default_factory=lambda: LatencyStats(()))
    case_scores: dict[str, float] = field(default_factory=dict)
    """Mean score of each scored case over its repeats (for comparisons)."""
    summary: Any = None
    """The kind's aggregates of this group (for the leaderboard of a matrix run)."""
    structured: bool = False
    """A structured-grading group: detection, criteria, confusion, worst cases."""
    warnings: list[str] = field(default_factory=list)
    """Systematic problems that make this group's figures mean nothing (said by its kind)."""
    example: ApollonDiagram | None = None
    """The example solution, drawn beside each worst and failed case's submission."""
    undrawn_failures: int = 0
    """Failed cases whose diagram is left out (past the limit of drawings)."""
    tables: list[SectionTable] = field(default_factory=list)
    """More tables of the kind's (scenarios: detection by element type, localization,
    the generated cases and their mutations), shown after the instructions."""
    agreement: TutorAgreement | None = None
    """The awarded points against the tutors' grades (a scenario whose cases carry them)."""
    case_points: dict[tuple[str, int], CasePointsCells] = field(default_factory=dict)
    """(case, repeat) -> its points (scenario groups), for the table of every case."""

    @property
    def key(self) -> str:
        return f"{self.suite} @ {self.target}"


@dataclass(slots=True)
class RunReport:
    name: str
    kind: str
    status: str
    created: str
    finished: str | None
    targets: list[str]
    eunomia_version: str
    store_path: str
    repeats: int
    total: int
    failed: int
    mean_score: float | None
    cost: float | None
    duration_s: float | None
    score_label: str
    unscored: int = 0
    """Cases answered that nothing could score: neither failed nor scored."""
    invalid: int = 0
    """What the score column means: ``Score %`` (scenarios) or ``Judge score (0-5)`` (tasks)."""
    score_digits: int = 1
    """Decimals shown for scores: 1 for a score % (0-100), 2 for a judge score (0-5)."""
    groups: list[GroupReport] = field(default_factory=list)
    model_costs: list[ModelCost] = field(default_factory=list)
    latency: LatencyStats = field(default_factory=lambda: LatencyStats(()))
    cases: list[CaseLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Every group's warnings, named by group, for the top of the page."""
    leaderboard: list[LeaderboardRow] = field(default_factory=list)
    """With several targets (a matrix run): one ranked row per target, as in the terminal."""
    leaderboard_columns: Columns | None = None
    target_scores: list[tuple[str, Interval | None]] = field(default_factory=list)
    """Each target's score as its kind computes it (the terminal's figure and interval;
    the leaderboard's column), in rank order: the summary's score tiles."""
    status_hint: str = ""
    """Beside the status: how to continue an interrupted run, which process runs a live one
    (:func:`eunomia.store.status_hint`)."""
    case_points: dict[CaseKey, CasePointsCells] = field(default_factory=dict)
    """Every group's :attr:`GroupReport.case_points`: the points columns of the case table
    (shown when some case has them)."""

    @property
    def judge_cost(self) -> float | None:
        """What the judges' calls cost (None when no judge call was booked or none priced)."""
        costs = [m.cost for m in self.model_costs if m.role == "judge"]
        known = [c for c in costs if c is not None]
        return sum(known) if known else None

    @property
    def has_judge(self) -> bool:
        return any(m.role == "judge" for m in self.model_costs)

    @property
    def structured(self) -> bool:
        """Some group has the structured-grading sections (detection, criteria...)."""
        return any(g.structured for g in self.groups)


@dataclass(frozen=True, slots=True)
class RunListing:
    """One line of the viewer's list of runs."""

    name: str
    kind: str
    status: str
    created: str
    targets: tuple[str, ...]
    suites: tuple[str, ...]
    cases: int
    failed: int
    mean_score: float | None
    cost: float | None
    duration_s: float | None
    status_hint: str = ""
    """Beside the status (:func:`eunomia.store.status_hint`)."""
    unscored: int = 0
    invalid: int = 0
