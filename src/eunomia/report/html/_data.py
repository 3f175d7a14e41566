"""The report's data model, built from the run store only (no HTML here).

A structured-grading run ("scenarios") gives one :class:`GroupReport` per suite and
target: the summary, per-criterion detection rates, a confusion matrix of expected vs
returned instruction per criterion, the worst cases with their diagram as text and the
feedback a student would see, the failed cases, latencies and consistency across
repeats. Every run, whatever its kind (judged "tasks" runs too), gets the generic
per-case table, the latency distribution and the cost per model.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from eunomia import defaults
from eunomia.apollon import parse_diagram, render_diagram
from eunomia.errors import EunomiaError
from eunomia.exports import outcome_from_row
from eunomia.pricing import PriceTable
from eunomia.records import CaseOutcome
from eunomia.report._leaderboard import (
    SCENARIO_COLUMNS,
    TASK_COLUMNS,
    Columns,
    LeaderboardRow,
    rank,
    scenario_row,
)
from eunomia.scenarios import Scenario, scenario_from_json
from eunomia.scoring import ConsistencySummary, ScenarioSummary
from eunomia.stats import quantile
from eunomia.store import CaseRow, RunInfo, RunStore

NONE_LABEL = "(none)"
"""Row / column of the confusion matrix: nothing expected / nothing returned."""
_DIAGRAM_MARKER = "Student's diagram:"
"""Where the engine's user prompt puts the rendered diagram (LLM targets)."""
_MAX_DIAGRAM_CHARS = 20_000


# --- small value types ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Metric:
    label: str
    value: float | int | None
    kind: str = "num"
    """How to format it: num, int, pct (0..1), score (0..100), cost, seconds, text."""
    text: str = ""


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
    feedback: tuple[FeedbackView, ...]


@dataclass(frozen=True, slots=True)
class FailedCase:
    case: str
    repeat: int
    status: str
    error: str
    attempts: int


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
    consistency: Consistency | None = None
    latency: LatencyStats = field(default_factory=lambda: LatencyStats(()))
    case_scores: dict[str, float] = field(default_factory=dict)
    """Mean score of each scored case over its repeats (for comparisons)."""
    summary: ScenarioSummary | None = None
    """A scenario group's aggregates (for the leaderboard of a matrix run)."""

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
    """What the score column means: ``Score %`` (scenarios) or ``Judge score (0-5)`` (tasks)."""
    score_digits: int = 1
    """Decimals shown for scores: 1 for a score % (0-100), 2 for a judge score (0-5)."""
    groups: list[GroupReport] = field(default_factory=list)
    model_costs: list[ModelCost] = field(default_factory=list)
    latency: LatencyStats = field(default_factory=lambda: LatencyStats(()))
    cases: list[CaseLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    leaderboard: list[LeaderboardRow] = field(default_factory=list)
    """With several targets (a matrix run): one ranked row per target, as in the terminal."""
    leaderboard_columns: Columns = SCENARIO_COLUMNS

    @property
    def structured(self) -> bool:
        return any(g.kind == "scenarios" for g in self.groups)


# --- building ----------------------------------------------------------------------------------
def build_run_report(store: RunStore, run: RunInfo, *,
                     worst_cases: int = defaults.REPORT_WORST_CASES) -> RunReport:
    """Everything the HTML report shows about one run, read from the store."""
    rows = list(store.iter_cases(run))
    totals = store.run_totals(run)
    scenarios_kind = run.kind == "scenarios"
    report = RunReport(
        name=run.name, kind=run.kind, status=run.status, created=run.created,
        finished=run.finished, targets=list(run.targets), eunomia_version=run.eunomia_version,
        store_path=str(store.path), repeats=int(run.settings.get("repeats", 1) or 1),
        total=totals.cases, failed=totals.failed, mean_score=totals.mean_score,
        cost=totals.cost, duration_s=totals.duration_s,
        score_label="Score %" if scenarios_kind else "Judge score (0-5)",
        score_digits=1 if scenarios_kind else 2,
    )
    report.cases = [_case_line(r) for r in rows]
    report.latency = LatencyStats(tuple(r.latency_s for r in rows
                                        if r.latency_s is not None and not r.cached))
    model_costs: dict[str, _CostAcc] = {}
    for suite in store.suites(run):
        suite_rows = [r for r in rows if r.suite == suite.name]
        scenario, prices = _scenario_of(store, suite.definition, suite.prices) \
            if scenarios_kind else (None, None)
        if scenarios_kind and scenario is None:
            report.notes.append(f"suite {suite.name!r}: the stored snapshot cannot be read; "
                                "only the per-case table is shown")
        targets = sorted({r.target for r in suite_rows}) or run.targets[:1]
        for target in targets:
            target_rows = [r for r in suite_rows if r.target == target]
            if scenario is not None and prices is not None:
                group = _scenario_group(store, scenario, prices, target, target_rows,
                                        worst_cases, report.repeats, model_costs)
            else:
                kind = "generic" if scenarios_kind else run.kind  # unreadable snapshot
                group = _generic_group(suite.name, target, kind, target_rows, model_costs)
            report.groups.append(group)
    report.model_costs = [acc.result(name) for name, acc in sorted(model_costs.items())]
    if len(run.targets) > 1:
        _add_leaderboard(store, run, report)
    return report


def _add_leaderboard(store: RunStore, run: RunInfo, report: RunReport) -> None:
    """The same rows as the terminal's leaderboard at the end of the run."""
    if run.kind == "scenarios":
        groups = [g for g in report.groups if g.summary is not None]
        report.leaderboard = rank([scenario_row(
            t, [g.summary for g in groups if g.target == t and g.summary is not None],
            [g.consistency.kappa for g in groups if g.target == t and g.consistency])
            for t in run.targets])
    elif run.kind == "tasks":
        from eunomia.exports._task_files import stored_summary
        from eunomia.tasks._report import task_row

        rows = []
        try:
            for target in run.targets:
                rows.append(task_row(target, stored_summary(store, run, target, target)))
        except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
            report.notes.append("the stored suites cannot be read; no leaderboard")
            return
        report.leaderboard = rank(rows)
        report.leaderboard_columns = TASK_COLUMNS


@dataclass(slots=True)
class _CostAcc:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    unknown: bool = False

    def add(self, calls: int, input_tokens: int, output_tokens: int,
            cost: float | None) -> None:
        self.calls += calls
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        if cost is None:
            self.unknown = True
        else:
            self.cost += cost

    def result(self, model: str) -> ModelCost:
        return ModelCost(model, self.calls, self.input_tokens, self.output_tokens,
                         None if self.unknown and not self.cost else self.cost)


def _case_line(r: CaseRow) -> CaseLine:
    return CaseLine(r.suite, r.target, r.case_name, r.repeat, r.status, r.score, r.latency_s,
                    r.cost, r.cached, r.error)


def _scenario_of(store: RunStore, definition: str,
                 prices: str) -> tuple[Scenario | None, PriceTable | None]:
    try:
        return (scenario_from_json(store.get_json(definition)),
                PriceTable.from_json(store.get_json(prices)))
    except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
        return None, None


def _latencies(rows: Iterable[CaseRow]) -> LatencyStats:
    """Latencies of the requests actually made (cached answers took no time)."""
    return LatencyStats(tuple(r.latency_s for r in rows
                              if r.latency_s is not None and not r.cached))


def _generic_group(suite: str, target: str, kind: str, rows: list[CaseRow],
                   costs: dict[str, _CostAcc]) -> GroupReport:
    scored = [r.score for r in rows if r.status == "scored" and r.score is not None]
    known = [r.cost for r in rows if r.cost is not None]
    group = GroupReport(suite, target, kind)
    group.total = len(rows)
    group.failed = sum(r.status != "scored" for r in rows)
    group.mean_score = sum(scored) / len(scored) if scored else None
    group.cost = sum(known) if known else None
    group.latency = _latencies(rows)
    group.failures = [FailedCase(r.case_name, r.repeat, r.status, r.error or "unknown",
                                 r.attempts) for r in rows if r.status != "scored"]
    by_case: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.status == "scored" and r.score is not None:
            by_case[r.case_name].append(r.score)
    group.case_scores = {c: sum(v) / len(v) for c, v in by_case.items()}
    acc = costs.setdefault(target, _CostAcc())
    for r in rows:
        if r.cost is not None or r.input_tokens or r.output_tokens:
            acc.add(1, r.input_tokens, r.output_tokens, r.cost)
    group.metrics = [
        Metric("Cases", group.total, "int"),
        Metric("Failed cases", group.failed, "int"),
        Metric("Mean score", group.mean_score, "num"),
        Metric("Total cost", group.cost, "cost"),
        Metric("Mean latency", group.latency.mean, "seconds"),
    ]
    return group


def _scenario_group(store: RunStore, scenario: Scenario, prices: PriceTable, target: str,
                    rows: list[CaseRow], worst_cases: int, repeats: int,
                    costs: dict[str, _CostAcc]) -> GroupReport:
    outcomes = [outcome_from_row(store, scenario, prices, r) for r in rows]
    summary = ScenarioSummary(scenario)
    for o in outcomes:
        summary.add(o)
        for line in o.cost.details:
            costs.setdefault(line.llm, _CostAcc()).add(
                1, line.input_tokens, line.output_tokens, line.total)
    group = GroupReport(scenario.name, target, "scenarios", summary=summary)
    group.total, group.failed = summary.total, summary.failed
    group.mean_score = summary.average_score_percent
    group.detection_rate = summary.detected / summary.scored if summary.scored else None
    group.cost = summary.total_cost
    group.latency = _latencies(rows)
    group.metrics = [
        Metric("Cases", summary.total, "int"),
        Metric("Scored", summary.scored, "int"),
        Metric("Failed", summary.failed, "int"),
        Metric("Mean case score", summary.average_score_percent, "score"),
        Metric("Detected correctly", group.detection_rate, "pct",
               f"{summary.detected}/{summary.scored}"),
        Metric("Fully correct", summary.fully_correct / summary.scored
               if summary.scored else None, "pct", f"{summary.fully_correct}/{summary.scored}"),
        Metric("Score matched", summary.score_matched / summary.scored
               if summary.scored else None, "pct", f"{summary.score_matched}/{summary.scored}"),
        Metric("Total cost", summary.total_cost, "cost"),
        Metric("Mean cost per case", summary.average_cost, "cost"),
        Metric("Mean latency", group.latency.mean, "seconds"),
        Metric("Input / output tokens", None, "text",
               f"{summary.input_tokens:,} / {summary.output_tokens:,}"),
    ]
    group.criteria = [
        CriterionRow(c.textual_id, c.title, summary.criteria[c.id].cases,
                     summary.criteria[c.id].missed)
        for c in scenario.criteria
    ]
    group.instructions = [
        InstructionRow(i.textual_id, scenario.criteria[i.criterion_id - 1].textual_id,
                       i.credits, st.expected, st.missed, st.returned_unexpected)
        for i in scenario.instructions.values()
        for st in [summary.instructions[i.id]]
    ]
    group.confusion = confusion_matrices(scenario, outcomes)
    group.worst = _worst(store, scenario, outcomes, worst_cases)
    group.failures = [FailedCase(o.case, o.repeat, o.status.value, o.error or "unknown",
                                 o.attempts) for o in outcomes if not o.ok]
    by_case: dict[str, list[float]] = defaultdict(list)
    for o in outcomes:
        if o.ok and o.score is not None:
            by_case[o.case].append(o.score.score_percent)
    group.case_scores = {c: sum(v) / len(v) for c, v in by_case.items()}
    group.consistency = consistency(scenario, outcomes, repeats)
    return group


def confusion_matrices(scenario: Scenario,
                       outcomes: Iterable[CaseOutcome]) -> list[ConfusionMatrix]:
    """Per criterion: expected instruction (rows) vs returned instruction (columns).

    An expected instruction that came back counts on the diagonal. Within a criterion,
    a missed expected instruction is paired with a wrongly returned one as the scoring
    pairs them (``CriterionResult.mismatch_pairs``); what stays unpaired counts against
    ``(none)``: a miss in the ``(none)`` column, an extra one in the ``(none)`` row.
    """
    index: dict[int, dict[int, int]] = {}
    for c in scenario.criteria:
        index[c.id] = {ins.id: k for k, ins in enumerate(c.instructions)}
    counts = {c.id: [[0] * (len(c.instructions) + 1) for _ in range(len(c.instructions) + 1)]
              for c in scenario.criteria}
    for o in outcomes:
        s = o.score
        if not o.ok or s is None:
            continue
        returned = set(s.returned)
        for i in s.expected:
            if i in returned:
                cid = scenario.instructions[i].criterion_id
                k = index[cid][i]
                counts[cid][k][k] += 1
        for cr in s.criteria_results:
            idx, m = index[cr.criterion_id], counts[cr.criterion_id]
            none = len(idx)
            for pair in cr.mismatch_pairs:
                m[idx[pair.expected.id]][idx[pair.received.id]] += 1
            for ins in cr.missing_instructions:
                m[idx[ins.id]][none] += 1
            for ins in cr.extra_instructions:
                m[none][idx[ins.id]] += 1
    return [
        ConfusionMatrix(c.textual_id, c.title,
                        (*(i.textual_id for i in c.instructions), NONE_LABEL),
                        tuple(tuple(row) for row in counts[c.id]))
        for c in scenario.criteria
    ]


def _worst(store: RunStore, scenario: Scenario, outcomes: Sequence[CaseOutcome],
           limit: int) -> list[WorstCase]:
    scored = [o for o in outcomes if o.ok and o.score is not None and not o.score.fully_correct]
    scored.sort(key=lambda o: (o.score.score_percent if o.score else 0.0,
                               o.score.detected_correctly if o.score else False,
                               o.case, o.repeat))
    names = {i: ins.textual_id for i, ins in scenario.instructions.items()}
    diagrams: dict[str, str | None] = {}
    out: list[WorstCase] = []
    for o in scored[:limit]:
        s = o.score
        assert s is not None
        diagram = None
        if o.request_hash:
            if o.request_hash not in diagrams:
                diagrams[o.request_hash] = diagram_text(store, o.request_hash)
            diagram = diagrams[o.request_hash]
        out.append(WorstCase(
            case=o.case, repeat=o.repeat, target=o.target, score_percent=s.score_percent,
            detected=s.detected_correctly, expected_score=s.expected_score,
            returned_score=s.returned_score,
            expected=tuple(names[i] for i in s.expected),
            returned=tuple(names[i] for i in s.returned),
            missing=tuple(names[i] for i in s.missing),
            extra=tuple(names[i] for i in s.extra),
            unrecognized=s.unrecognized,
            diagram=diagram,
            feedback=tuple(
                FeedbackView(
                    f.title or "", f.description or "", f.credits,
                    "" if f.structured_grading_instruction_id is None
                    else names.get(f.structured_grading_instruction_id,
                                   f"unknown #{f.structured_grading_instruction_id}"),
                )
                for f in o.feedback
            ),
        ))
    return out


def diagram_text(store: RunStore, request_hash: str) -> str | None:
    """The case's submission as compact text, from the stored request; ``None`` if absent.

    Athena requests carry the Apollon JSON (``submission.model``); the built-in LLM
    engine's chat request carries the diagram already rendered in its user prompt.
    """
    try:
        data: Any = store.get_json(request_hash)
    except (EunomiaError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    submission = data.get("submission")
    if isinstance(submission, dict) and isinstance(submission.get("model"), str):
        raw: str = submission["model"]
        try:
            return render_diagram(parse_diagram(json.loads(raw)))[:_MAX_DIAGRAM_CHARS]
        except (ValueError, ValidationError):
            return raw[:_MAX_DIAGRAM_CHARS]
    messages = data.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str) and _DIAGRAM_MARKER in content:
                text = content.split(_DIAGRAM_MARKER, 1)[1].strip("\n")
                return text[:_MAX_DIAGRAM_CHARS]
    return None


def consistency(scenario: Scenario, outcomes: Iterable[CaseOutcome],
                repeats: int) -> Consistency | None:
    """How stable the answers are across the repeats of each case; ``None`` without repeats."""
    if repeats < 2:
        return None
    names = {i: ins.textual_id for i, ins in scenario.instructions.items()}
    by_case: dict[str, list[CaseOutcome]] = defaultdict(list)
    for o in outcomes:
        by_case[o.case].append(o)
    summary = ConsistencySummary(scenario)
    for case in sorted(by_case):
        summary.add(by_case[case])
    cases = [
        ConsistencyCase(
            c.case, c.repeats, c.failed_repeats, c.flip_rate, c.consistent,
            tuple(InstructionAgreement(names.get(i, f"#{i}"), share)
                  for i, share in sorted(c.instruction_share.items(), key=lambda kv: kv[1])
                  if share < 1.0),
            c.score_mean, c.score_min, c.score_max,
        )
        for c in summary.cases if c.repeats
    ]
    cases.sort(key=lambda c: (c.consistent, -(c.flip_rate or 0.0), c.case))
    return Consistency(repeats, tuple(cases), summary.fleiss_kappa, summary.percent_agreement,
                       summary.mean_flip_rate, summary.consistent_cases)


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


def list_run_listings(store: RunStore) -> list[RunListing]:
    """Every run of the store, newest first."""
    out: list[RunListing] = []
    for run in reversed(store.list_runs()):
        totals = store.run_totals(run)
        out.append(RunListing(
            run.name, run.kind, run.status, run.created, tuple(run.targets),
            tuple(s.name for s in store.suites(run)), totals.cases, totals.failed,
            totals.mean_score, totals.cost, totals.duration_s))
    return out
