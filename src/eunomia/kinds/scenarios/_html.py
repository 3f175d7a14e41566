"""What a scenario run adds to its HTML report: per suite and target the headline metrics,
detection per criterion, confusion matrices, the worst cases with their diagram and the
feedback a student would see, failed cases, consistency across repeats."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from eunomia.apollon import parse_diagram, render_diagram
from eunomia.errors import EunomiaError
from eunomia.kinds.scenarios._records import outcome_from_row, stored_scenario
from eunomia.kinds.scenarios._terminal import scenario_row
from eunomia.pricing import PriceTable
from eunomia.report import LeaderboardRow, rank
from eunomia.report.html import (
    NONE_LABEL,
    ConfusionMatrix,
    Consistency,
    ConsistencyCase,
    CostBook,
    CriterionRow,
    FailedCase,
    FeedbackView,
    GroupReport,
    InstructionAgreement,
    InstructionRow,
    Metric,
    WorstCase,
    generic_group,
    latencies,
    targets_of,
)
from eunomia.scenarios import Scenario
from eunomia.scoring import CaseOutcome, ConsistencySummary, ScenarioSummary
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

_DIAGRAM_MARKER = "Student's diagram:"
"""Where the engine's user prompt puts the rendered diagram (LLM targets)."""
_MAX_DIAGRAM_CHARS = 20_000


def report_groups(store: RunStore, run: RunInfo, suite: SuiteInfo, rows: Sequence[CaseRow],
                  costs: CostBook, notes: list[str], *, worst_cases: int,
                  repeats: int) -> list[GroupReport]:
    """One group per target of ``suite``; generic ones when its snapshot cannot be read."""
    targets = targets_of(run, rows)
    try:
        scenario, prices = stored_scenario(store, suite.definition, suite.prices)
    except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
        notes.append(f"suite {suite.name!r}: the stored snapshot cannot be read; "
                     "only the per-case table is shown")
        return [generic_group(suite.name, t, "generic", [r for r in rows if r.target == t],
                              costs) for t in targets]
    return [_scenario_group(store, scenario, prices, t, [r for r in rows if r.target == t],
                            worst_cases, repeats, costs) for t in targets]


def report_leaderboard(run: RunInfo, groups: Sequence[GroupReport]) -> list[LeaderboardRow]:
    """The same rows as the terminal's leaderboard at the end of the run."""
    scored = [g for g in groups if isinstance(g.summary, ScenarioSummary)]
    return rank([scenario_row(
        t, [g.summary for g in scored if g.target == t],
        [g.consistency.kappa for g in scored if g.target == t and g.consistency])
        for t in run.targets])


def _scenario_group(store: RunStore, scenario: Scenario, prices: PriceTable, target: str,
                    rows: Sequence[CaseRow], worst_cases: int, repeats: int,
                    costs: CostBook) -> GroupReport:
    outcomes = [outcome_from_row(store, scenario, prices, r) for r in rows]
    summary = ScenarioSummary(scenario)
    for o in outcomes:
        summary.add(o)
        for line in o.cost.details:
            costs.add(line.llm, 1, line.input_tokens, line.output_tokens, line.total)
    group = GroupReport(scenario.name, target, "scenarios", summary=summary, structured=True)
    group.total, group.failed = summary.total, summary.failed
    group.mean_score = summary.average_score_percent
    group.detection_rate = summary.detected / summary.scored if summary.scored else None
    group.cost = summary.total_cost
    group.latency = latencies(rows)
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
