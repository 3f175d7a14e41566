"""The summary of a scenario on a target: metrics across its cases, accumulated as each case
finishes (:class:`ScenarioSummary`), and how the target compares with ``baseline:default``
(:func:`against_baseline`).

Every scenario run is set beside ``baseline:default``, computed locally with no request: the
score of a system that assumes every diagram is perfect (it returns the scenario's
``default_expected`` instructions on every case: ``eunomia.scenarios``' baselines). The
target's cases are paired with the baseline's, and the deltas tested as ``eunomia compare``
tests them (the score's paired test, McNemar on detection). A target not significantly
better is flagged.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from eunomia import defaults
from eunomia.compare import Agg, CaseFacts, MetricDelta, facts_only, paired_overall
from eunomia.kinds.scenarios._compare import facts_of
from eunomia.metering import AttributionMethod
from eunomia.pricing import cost_disagrees
from eunomia.scenarios import BASELINE_DEFAULT, RECORDED_TARGETS, Scenario, baseline_feedback
from eunomia.scoring import (
    CaseOutcome,
    CaseScore,
    CaseStatus,
    ChangeRow,
    CreditCheck,
    LocalizationRow,
    attribution_note,
    score_case,
    tokens_disagree,
)
from eunomia.stats import TOO_FEW, Interval, Power, cluster_mean_ci, score_power


@dataclass(slots=True)
class InstructionStats:
    expected: int = 0
    """Scored cases that expected this instruction."""
    missed: int = 0
    """... of which did not get it back."""
    returned_unexpected: int = 0
    """Scored cases that got it back without expecting it."""

    @property
    def miss_rate(self) -> float | None:
        return self.missed / self.expected if self.expected else None


@dataclass(slots=True)
class CriterionStats:
    cases: int = 0
    """Scored cases that expected an instruction of this criterion."""
    missed: int = 0
    """... of which missed at least one of them."""

    @property
    def miss_rate(self) -> float | None:
        return self.missed / self.cases if self.cases else None


def unknown_cost_reason(outcome: CaseOutcome) -> str | None:
    """Why a scored case's cost is unknown, in words (None: known, or not scored)."""
    cost = outcome.cost
    if outcome.status is not CaseStatus.SCORED or cost.total_cost is not None:
        return None
    if cost.unknown_models:
        return f"no price for {', '.join(cost.unknown_models)} in llm_cost.yml"
    if outcome.target in RECORDED_TARGETS:
        return "feedback recorded elsewhere, replayed: what producing it cost was not recorded"
    if outcome.metered is not None:
        return "serve-model could not tell the tokens of some of its LLM calls"
    return ("the system reported no token usage and its LLM calls were not metered "
            "(--llm-usage)")


@dataclass(slots=True)
class Failure:
    case: str
    status: CaseStatus
    reason: str
    attempts: int
    attempt_log: tuple[str, ...] = ()


@dataclass(slots=True)
class ScenarioSummary:
    """Streaming aggregate: ``add`` each outcome, read the properties at any time."""

    scenario: Scenario
    total: int = 0
    scored: int = 0
    fully_correct: int = 0
    score_matched: int = 0
    detected: int = 0
    cost_values: list[float] = field(default_factory=list)
    """Known cost of every case; summed with math.fsum, so totals do not depend on the
    order in which cases finished."""
    cost_known: int = 0
    cost_unknown: int = 0
    unknown_models: set[str] = field(default_factory=set)
    request_time_sum: float = 0.0
    request_timed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failures: list[Failure] = field(default_factory=list)
    score_values: list[float] = field(default_factory=list)
    """Score % of every scored case and repeat."""
    score_cases: list[str] = field(default_factory=list)
    """The case of each of :attr:`score_values` (a case's repeats are one cluster)."""
    criteria: dict[int, CriterionStats] = field(default_factory=dict)
    instructions: dict[int, InstructionStats] = field(default_factory=dict)
    feedback_items: int = 0
    """Feedback items of the scored cases."""
    sgi_items: int = 0
    """... of which named a structured grading instruction (known to the scenario or not)."""
    unrecognized_ids: int = 0
    """Distinct SGI ids per scored case that are not instructions of the scenario, summed."""
    cases_with_unrecognized: int = 0
    answers: Counter[tuple[int, ...]] = field(default_factory=Counter)
    """How many scored cases got each set of returned instructions (sorted ids)."""
    cached: int = 0
    """Cases answered from the response cache (no request made)."""
    price_notes: set[str] = field(default_factory=set)
    """Prices that stood in for a model's own (a dated name's undated entry, the bundled
    table): said beside the totals."""
    reported_costs: list[float] = field(default_factory=list)
    """The system's own cost figure of every case that reported one."""
    reported_cost_computed: list[float] = field(default_factory=list)
    """Eunomia's cost of the same cases (those whose cost is known)."""
    cost_disagreements: int = 0
    """Cases whose reported cost differs from Eunomia's by more than 1 %."""
    returned_points: list[float] = field(default_factory=list)
    """Points by the instructions returned, of every scored case."""
    awarded: dict[str, list[float]] = field(default_factory=dict)
    """Points awarded (Artemis' total of the items' credits) per case, one per scored repeat."""
    awarded_unknown: int = 0
    """Scored cases with an item whose credits are not a finite number (no total)."""
    credit_checks: int = 0
    """Credit expectations checked (over scored cases)..."""
    credit_checks_met: int = 0
    """... of which met."""
    cases_with_credit_checks: int = 0
    cases_credit_checks_met: int = 0
    """Scored cases with credit expectations, all of them met."""
    unmet_credit_checks: list[tuple[str, int, tuple[CreditCheck, ...]]] = field(
        default_factory=list)
    """(case, repeat, the checks not met) of each scored case that missed one."""
    credit_disagreements: int = 0
    """Feedback items naming an instruction with other credits than the instruction's."""
    cases_with_credit_disagreements: int = 0
    cost_unreported: int = 0
    """Scored cases whose cost is unknown because nothing measured it: the system reported no
    token usage and its LLM traffic was not metered (counted in ``cost_unknown`` too)."""
    cost_recorded: int = 0
    """Scored cases replaying feedback recorded elsewhere (``recorded``, ``recorded:tutor``):
    what producing it cost was not recorded (counted in ``cost_unknown`` too)."""
    metered_exact: int = 0
    """Scored cases whose LLM calls were metered, each made while only its request was in
    flight."""
    metered_approximate: int = 0
    """... attributed by overlap (several requests in flight)."""
    metered_calls: int = 0
    retried_calls: int = 0
    """Metered calls made by failed attempts of cases that then succeeded (in their cost)."""
    token_disagreements: int = 0
    """Metered cases whose system reported other token counts than the metered ones."""
    reported_token_sums: list[int] = field(default_factory=lambda: [0, 0])
    metered_token_sums: list[int] = field(default_factory=lambda: [0, 0])
    """Input and output tokens of the cases compared (system's own; metered)."""
    by_change: list[ChangeRow] = field(default_factory=list)
    """Detection by element type, kind of change and operator (set when the run's files
    are written: ``_figures.ChangeBook``)."""
    localized: list[LocalizationRow] = field(default_factory=list)
    """Whether feedback on changed instructions names the changed elements, per type."""

    def __post_init__(self) -> None:
        self.criteria = {c.id: CriterionStats() for c in self.scenario.criteria}
        self.instructions = {i: InstructionStats() for i in self.scenario.instructions}

    def add(self, outcome: CaseOutcome) -> None:
        self.total += 1
        self.cached += outcome.cached
        if outcome.request_time_s is not None:
            self.request_time_sum += outcome.request_time_s
            self.request_timed += 1
        self.input_tokens += outcome.cost.input_tokens
        self.output_tokens += outcome.cost.output_tokens
        if outcome.reported_cost is not None:
            self.reported_costs.append(outcome.reported_cost)
            if outcome.cost.total_cost is not None:
                self.reported_cost_computed.append(outcome.cost.total_cost)
            self.cost_disagreements += bool(cost_disagrees(outcome.reported_cost,
                                                           outcome.cost.total_cost))
        self._add_metered(outcome)
        if not outcome.cost.measured:
            if outcome.status is CaseStatus.SCORED:  # answered, at a cost nobody measured
                self.cost_unknown += 1
                if outcome.target in RECORDED_TARGETS:
                    self.cost_recorded += 1
                else:
                    self.cost_unreported += 1
        elif outcome.cost.details or outcome.status is CaseStatus.SCORED:
            self.price_notes.update(outcome.cost.notes)
            total_cost = outcome.cost.total_cost
            if total_cost is None:
                self.cost_unknown += 1
                self.unknown_models.update(outcome.cost.unknown_models)
            else:
                self.cost_values.append(total_cost)
                self.cost_known += 1
        score = outcome.score
        if outcome.status is not CaseStatus.SCORED or score is None:
            self.failures.append(
                Failure(outcome.case, outcome.status, outcome.error or "unknown", outcome.attempts,
                        outcome.attempt_log)
            )
            return
        self.scored += 1
        self.feedback_items += len(outcome.feedback)
        self.sgi_items += sum(f.structured_grading_instruction_id is not None
                              for f in outcome.feedback)
        self.unrecognized_ids += len(score.unrecognized)
        self.cases_with_unrecognized += bool(score.unrecognized)
        self.answers[tuple(sorted(score.returned))] += 1
        self._add_points(outcome.case, outcome.repeat, score)
        if not score.labelled:
            return  # nothing was expected: no correctness to count
        self.fully_correct += score.fully_correct
        self.score_matched += score.score_match
        self.detected += score.detected_correctly
        self.score_values.append(score.score_percent)
        self.score_cases.append(outcome.case)
        missing = set(score.missing)
        expected = set(score.expected)
        touched: dict[int, bool] = {}
        for i in score.expected:
            stats = self.instructions[i]
            stats.expected += 1
            missed = i in missing
            stats.missed += missed
            cid = self.scenario.instructions[i].criterion_id
            touched[cid] = touched.get(cid, False) or missed
        for i in score.returned:
            if i not in expected:
                self.instructions[i].returned_unexpected += 1
        for cid, missed in touched.items():
            self.criteria[cid].cases += 1
            self.criteria[cid].missed += missed

    def _add_points(self, case: str, repeat: int, score: CaseScore) -> None:
        self.returned_points.append(score.returned_score)
        points = score.points
        if points is None:
            return
        if points.awarded is None:
            self.awarded_unknown += 1
        else:
            self.awarded.setdefault(case, []).append(points.awarded)
        if points.checks:
            met = sum(c.met for c in points.checks)
            self.credit_checks += len(points.checks)
            self.credit_checks_met += met
            self.cases_with_credit_checks += 1
            self.cases_credit_checks_met += met == len(points.checks)
            if met < len(points.checks):
                self.unmet_credit_checks.append(
                    (case, repeat, tuple(c for c in points.checks if not c.met)))
        self.credit_disagreements += len(points.disagreements)
        self.cases_with_credit_disagreements += bool(points.disagreements)
    def _add_metered(self, outcome: CaseOutcome) -> None:
        metered = outcome.metered
        if metered is None or outcome.status is not CaseStatus.SCORED:
            return
        if metered.attribution is AttributionMethod.EXACT:
            self.metered_exact += 1
        else:
            self.metered_approximate += 1
        self.metered_calls += len(metered.calls)
        self.retried_calls += metered.earlier_attempts
        disagree = tokens_disagree(metered, outcome.reported_tokens)
        if disagree is not None and outcome.reported_tokens is not None:
            self.token_disagreements += disagree
            for i, n in enumerate(outcome.reported_tokens):
                self.reported_token_sums[i] += n
            self.metered_token_sums[0] += metered.input_tokens or 0
            self.metered_token_sums[1] += metered.output_tokens or 0

    def metering_warnings(self) -> list[str]:
        """What the run's outputs say about unmeasured and metered LLM usage."""
        out: list[str] = []
        if self.cost_unreported:
            out.append(f"the system reported no token usage on {self.cost_unreported} of "
                       f"{self.scored} scored case(s): their cost is unknown, not 0; meter its "
                       "LLM traffic through `eunomia serve-model` (target option "
                       "?llm_usage=<its URL>, docs/serve-model.md)")
        if self.cost_recorded:
            out.append(f"{self.cost_recorded} of {self.scored} scored case(s) replay feedback "
                       "recorded elsewhere: what producing it cost was not recorded, so their "
                       "cost is unknown, not 0 (no request was made)")
        note = attribution_note(self.metered_exact, self.metered_approximate)
        if note is not None:
            out.append(f"{note}: {self.metered_calls} call(s)"
                       + (f", {self.retried_calls} of them by attempts that failed and were "
                          "retried" if self.retried_calls else ""))
        if self.token_disagreements:
            (ri, ro), (mi, mo) = self.reported_token_sums, self.metered_token_sums
            out.append(f"the system's own token counts differ from the metered ones on "
                       f"{self.token_disagreements} case(s) (it reported {ri} in + {ro} out, "
                       f"metered {mi} in + {mo} out): the cost is the metered one; both are "
                       "in the case files")
        return out

    @property
    def cost_sum(self) -> float:
        return math.fsum(self.cost_values)

    @property
    def score_percent_sum(self) -> float:
        return math.fsum(self.score_values)

    @property
    def failed(self) -> int:
        return self.total - self.scored

    @property
    def labelled(self) -> bool:
        """Whether correctness is measured (the scenario has expectations)."""
        return self.scenario.labelled

    def score_interval(self) -> Interval | None:
        """The average case score % with its 95% interval over cases: a case's repeats are
        resampled together (``--repeat`` adds no independent cases); ``too_few`` below
        ``defaults.MIN_CASES_FOR_INTERVAL`` cases."""
        return score_interval([self])

    def case_scores(self) -> list[float]:
        """Each scored case's score %, its repeats averaged, in the order cases came."""
        sums: dict[str, list[float]] = {}
        for case, value in zip(self.score_cases, self.score_values, strict=True):
            sums.setdefault(case, []).append(value)
        return [math.fsum(v) / len(v) for v in sums.values()]

    @property
    def repeated(self) -> bool:
        """Some case was scored more than once (``--repeat``): its repeats are one cluster."""
        return len(set(self.score_cases)) < len(self.score_cases)

    def power(self, effect: float | None = None) -> Power:
        """What a future comparison on these cases could detect: the minimum detectable
        score difference (points) at 80% power, planned from the spread of the case scores;
        ``effect``: the cases needed to detect a change of that many points."""
        return score_power(self.case_scores(), alpha=defaults.COMPARE_ALPHA,
                           power=defaults.POWER, effect=effect)

    @property
    def average_score_percent(self) -> float | None:
        return self.score_percent_sum / len(self.score_values) if self.score_values else None

    @property
    def total_cost(self) -> float | None:
        """Sum of the known costs; ``None`` when no case had a known cost."""
        return self.cost_sum if self.cost_known else None

    @property
    def average_cost(self) -> float | None:
        return self.cost_sum / self.cost_known if self.cost_known else None

    @property
    def average_request_time_s(self) -> float | None:
        return self.request_time_sum / self.request_timed if self.request_timed else None


def score_interval(summaries: Sequence[ScenarioSummary]) -> Interval | None:
    """The average case score % of one target over its scenarios, with a 95% bootstrap
    interval that resamples cases (each case's repeats together, as one cluster)."""
    # in case order, whatever order cases finished in (the bootstrap resamples a list)
    pairs = sorted(((s.scenario.name, c), v) for s in summaries
                   for c, v in zip(s.score_cases, s.score_values, strict=True))
    values = [v for _, v in pairs]
    clusters = [c for c, _ in pairs]
    return cluster_mean_ci(values, clusters, confidence=defaults.CONFIDENCE,
                           resamples=defaults.BOOTSTRAP_RESAMPLES, seed=defaults.BOOTSTRAP_SEED)


SCORE = ("Score (%)", "%")
"""The score's label and unit in the deltas (as ``eunomia compare`` says them)."""


@dataclass(frozen=True, slots=True)
class BaselineComparison:
    """A target against ``baseline:default`` on the cases scored on both."""

    score: MetricDelta
    """Score %: a = the baseline, b = the target, delta = target - baseline."""
    detection: MetricDelta | None
    cases: int
    better: bool
    """The target scores significantly higher than the baseline."""

    @property
    def verdict(self) -> str:
        """The figures: the target's score against the baseline's, with the paired test."""
        s = self.score
        delta = "-" if s.delta is None else f"{s.delta:+.1f}"
        ci = "" if s.low is None or s.high is None else f" [{s.low:+.1f}, {s.high:+.1f}]"
        p = "" if s.p_value is None else f", p={s.p_value:.3g}"
        a = "-" if s.a is None else f"{s.a:.1f}%"
        b = "-" if s.b is None else f"{s.b:.1f}%"
        line = (f"score {b} vs {a} for {BASELINE_DEFAULT} (a system that assumes every "
                f"diagram is perfect), {delta} points{ci}{p} over {self.cases} case(s)")
        d = self.detection
        if d is not None and d.a is not None and d.b is not None:
            line += (f"; detected {100 * d.b:.0f}% vs {100 * d.a:.0f}%"
                     + ("" if d.p_value is None else f" (McNemar p={d.p_value:.3g})"))
        return line

    @property
    def note(self) -> str:
        return f"significantly better than {BASELINE_DEFAULT}: {self.verdict}"

    @property
    def warning(self) -> str | None:
        """None when the target is significantly better than the baseline."""
        if self.better:
            return None
        if self.score.too_few:  # no verdict either way from a handful of cases
            return (f"{TOO_FEW} whether it is better than {BASELINE_DEFAULT} ({self.cases} "
                    f"case(s); at least {defaults.MIN_CASES_FOR_INTERVAL} are needed): "
                    f"{self.verdict}")
        worse = self.score.delta is not None and self.score.delta < 0 and self.score.significant
        return (f"{'significantly worse than' if worse else 'not significantly better than'} "
                f"{BASELINE_DEFAULT}: {self.verdict}")

    def to_json(self) -> dict[str, Any]:
        return {"baseline": BASELINE_DEFAULT, "cases": self.cases, "better": self.better,
                "score": asdict(self.score),
                "detection": None if self.detection is None else asdict(self.detection),
                "verdict": self.verdict}


def against_baseline(scenario: Scenario, facts: Mapping[str, Sequence[CaseFacts]],
                     target: str) -> BaselineComparison | None:
    """``facts``: the target's scored repeats per case (of ``target``). None for an
    unlabelled scenario, when no case was scored, and for the baseline itself."""
    if not scenario.labelled or target == BASELINE_DEFAULT:
        return None
    answer = baseline_feedback(scenario, "default")
    pairs = []
    # the baseline's answer is the same on every case, so its score depends only on what the
    # case expects: cases that expect alike share one scoring (most expect the default set)
    base_of: dict[tuple[tuple[int, ...], frozenset[int]], Agg | None] = {}
    for name, mine in sorted(facts.items()):  # case order, not completion order
        case = scenario.case_named(name)
        if case is None or not mine:
            continue
        key = (case.expected, case.diff_instructions)
        if key not in base_of:
            base = facts_of(scenario, score_case(scenario, case, answer))
            base_of[key] = None if base is None else facts_only([base])
        base_agg = base_of[key]
        if base_agg is not None:  # (read only: one Agg may stand for many cases)
            pairs.append((base_agg, facts_only(mine)))
    if not pairs:
        return None
    overall = paired_overall(pairs, SCORE, detects=True)
    better = overall.score.significant and (overall.score.delta or 0.0) > 0
    return BaselineComparison(overall.score, overall.detection, len(pairs), better)
