"""What a scenario run adds to its HTML report: per suite and target the headline metrics,
detection per criterion, confusion matrices, the worst cases with their diagram drawn (the
elements the feedback names outlined) beside the example solution and the feedback a
student would see, failed cases with their diagram, consistency across repeats."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eunomia.apollon import render_diagram
from eunomia.athena import AthenaFeedback
from eunomia.compare import CaseFacts
from eunomia.errors import EunomiaError
from eunomia.kinds.scenarios._compare import facts_of
from eunomia.kinds.scenarios._figures import stored_request
from eunomia.kinds.scenarios._html_figures import add_figures, mutations_of
from eunomia.kinds.scenarios._points_out import (
    credit_checks_cell,
    tutor_agreement,
    unmet_credit_checks,
)
from eunomia.kinds.scenarios._records import outcome_from_row, stored_scenario
from eunomia.kinds.scenarios._summary import ScenarioSummary, against_baseline
from eunomia.kinds.scenarios._terminal import scenario_row
from eunomia.kinds.scenarios._warnings import run_warnings
from eunomia.pricing import PriceTable
from eunomia.report import LeaderboardRow, rank
from eunomia.report import html as page  # the report's rows, named as the page names them
from eunomia.report.html import (
    NONE_LABEL,
    CaseDiagram,
    CasePointsCells,
    ConfusionMatrix,
    Consistency,
    ConsistencyCase,
    CostBook,
    FailedCase,
    FeedbackView,
    GroupReport,
    Metric,
    WorstCase,
    generic_group,
    latencies,
    mark_feedback,
    read_diagram,
    targets_of,
)
from eunomia.scenarios import BASELINE_DEFAULT, Scenario
from eunomia.scoring import CaseOutcome, ConsistencySummary
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

_CORRECTNESS = frozenset({"Mean case score", "Detected correctly", "Fully correct",
                          "Score matched"})
_DIAGRAM_MARKER = "Student's diagram:"
"""Where the engine's user prompt puts the rendered diagram (LLM targets)."""
_MAX_DIAGRAM_CHARS = 20_000
_MAX_FAILED_DRAWN = 20
"""Failed cases drawn with their diagram (one repeat each); the rest are only listed."""


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
    group = GroupReport(scenario.name, target, "scenarios", summary=summary,
                        structured=scenario.labelled, warnings=run_warnings(summary))
    group.total, group.failed = summary.total, summary.failed
    group.mean_score = summary.average_score_percent
    group.detection_rate = summary.detected / summary.scored \
        if summary.scored and scenario.labelled else None
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
        Metric("Feedback items (naming an instruction)", None, "text",
               f"{summary.feedback_items:,} ({summary.sgi_items:,})"),
    ]
    if not scenario.labelled:  # nothing expected: no correctness figure at all
        group.metrics = [m for m in group.metrics if m.label not in _CORRECTNESS] + [
            Metric("Correctness", None, "text", "not measured (unlabelled scenario)")]
    group.criteria = [
        page.CriterionRow(c.textual_id, c.title, summary.criteria[c.id].cases,
                     summary.criteria[c.id].missed)
        for c in scenario.criteria
    ]
    group.instructions = [
        page.InstructionRow(i.textual_id, scenario.criteria[i.criterion_id - 1].textual_id,
                       i.credits, st.expected, st.missed, st.returned_unexpected)
        for i in scenario.instructions.values()
        for st in [summary.instructions[i.id]]
    ]
    group.confusion = confusion_matrices(scenario, outcomes) if scenario.labelled else []
    drawings = _Drawings(store, scenario)
    group.worst = _worst(scenario, outcomes, worst_cases, drawings)
    group.failures, group.undrawn_failures = _failures(scenario, outcomes, drawings)
    if group.worst or group.failures:
        group.example, _ = read_diagram(scenario.exercise.example_solution)
    by_case: dict[str, list[float]] = defaultdict(list)
    for o in outcomes:
        if o.ok and o.score is not None and o.score.labelled:
            by_case[o.case].append(o.score.score_percent)
    group.case_scores = {c: sum(v) / len(v) for c, v in by_case.items()}
    group.consistency = consistency(scenario, outcomes, repeats)
    group.agreement = tutor_agreement(summary)
    group.case_points = case_points(scenario, outcomes)
    facts: dict[str, list[CaseFacts]] = defaultdict(list)
    for o in outcomes:
        known = facts_of(scenario, o.score) if o.ok and o.score is not None else None
        if known is not None:
            facts[o.case].append(known)
    add_figures(group, store, scenario, summary, outcomes)  # interval, MDE, by element type
    baseline = against_baseline(scenario, facts, target)
    if baseline is not None:
        s = baseline.score
        worse = s.significant and s.delta is not None and s.delta < 0
        short = ("significantly better" if baseline.better else
                 "significantly worse" if worse else
                 "too few cases to tell" if s.too_few else "not significantly better")
        group.metrics.append(Metric(
            f"Against {BASELINE_DEFAULT}", None, "text",
            short + ("" if s.delta is None else f" ({s.delta:+.1f} points)"),
            detail=baseline.verdict))
        if baseline.warning is not None:
            group.warnings.append(baseline.warning)
    return group


def case_points(scenario: Scenario, outcomes: Iterable[CaseOutcome]
                ) -> dict[tuple[str, int], CasePointsCells]:
    """Each case's points awarded, its tutor's and its credit expectations met; none when
    no case has any of them (the table of every case then has no points columns)."""
    out: dict[tuple[str, int], CasePointsCells] = {}
    for o in outcomes:
        points = o.score.points if o.score is not None else None
        case = scenario.case_named(o.case)
        tutor = case.tutor.points if case is not None and case.tutor is not None else None
        out[(o.case, o.repeat)] = CasePointsCells(
            points.awarded if points is not None else None, tutor,
            credit_checks_cell(points), tuple(unmet_credit_checks(scenario, points)))
    if all(c.awarded is None and c.tutor is None and not c.credits for c in out.values()):
        return {}
    return out


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


def _worst(scenario: Scenario, outcomes: Sequence[CaseOutcome], limit: int,
           drawings: _Drawings) -> list[WorstCase]:
    scored = [o for o in outcomes if o.ok and o.score is not None and o.score.labelled
              and not o.score.fully_correct]
    scored.sort(key=lambda o: (o.score.score_percent if o.score else 0.0,
                               o.score.detected_correctly if o.score else False,
                               o.case, o.repeat))
    names = {i: ins.textual_id for i, ins in scenario.instructions.items()}
    out: list[WorstCase] = []
    for o in scored[:limit]:
        s = o.score
        assert s is not None
        drawing, text = drawings.get(o.case, o.request_hash)
        views = [_feedback_view(f, names) for f in o.feedback]
        marked = mark_feedback(drawing.diagram, [(_label(v), v.element_ids) for v in views])
        out.append(WorstCase(
            case=o.case, repeat=o.repeat, target=o.target, score_percent=s.score_percent,
            detected=s.detected_correctly, expected_score=s.expected_score,
            returned_score=s.returned_score,
            expected=tuple(names[i] for i in s.expected),
            returned=tuple(names[i] for i in s.returned),
            missing=tuple(names[i] for i in s.missing),
            extra=tuple(names[i] for i in s.extra),
            unrecognized=s.unrecognized,
            diagram=text,
            feedback=tuple(replace(v, marks=m, unplaced=u) for v, m, u in
                           zip(views, marked.marks, marked.unplaced, strict=True)),
            drawing=replace(drawing, highlight=marked.highlight),
            mutations=mutations_of(scenario, o.case),
            criteria=tuple(
                page.CriterionMiss(
                    cr.criterion_textual_id, scenario.criteria[cr.criterion_id - 1].title,
                    tuple(names[i.id] for i in (*(p.expected for p in cr.mismatch_pairs),
                                                *cr.missing_instructions)),
                    tuple(names[i.id] for i in (*(p.received for p in cr.mismatch_pairs),
                                                *cr.extra_instructions)))
                for cr in s.criteria_results),
        ))
    return out


def _feedback_view(f: AthenaFeedback, names: dict[int, str]) -> FeedbackView:
    sgi = f.structured_grading_instruction_id
    return FeedbackView(
        f.title or "", f.description or "", f.credits,
        "" if sgi is None else names.get(sgi, f"unknown #{sgi}"),
        element_ids=tuple(str(e) for e in f.element_ids),
    )


def _label(f: FeedbackView) -> str:
    """What an outlined element says on hover about a feedback item naming it."""
    sgi = f", {f.instruction}" if f.instruction else ""
    return f"{f.title or '(no title)'} ({f.credits:g} pts{sgi})"


def _failures(scenario: Scenario, outcomes: Sequence[CaseOutcome],
              drawings: _Drawings) -> tuple[list[FailedCase], int]:
    """Every failed case; the first repeat of each of the first :data:`_MAX_FAILED_DRAWN`
    cases with its diagram. Returns them and how many cases are left undrawn."""
    names = {i: ins.textual_id for i, ins in scenario.instructions.items()}
    drawn: set[str] = set()
    undrawn: set[str] = set()
    out: list[FailedCase] = []
    for o in outcomes:
        if o.ok:
            continue
        case = scenario.case_named(o.case)
        expected = tuple(names[i] for i in case.expected) if case is not None else ()
        failure = FailedCase(o.case, o.repeat, o.status.value, o.error or "unknown",
                             o.attempts, expected)
        if o.case not in drawn and o.case not in undrawn:
            if len(drawn) < _MAX_FAILED_DRAWN:
                drawn.add(o.case)
                drawing, text = drawings.get(o.case, o.request_hash)
                failure = replace(failure, drawing=drawing, diagram=text)
            else:
                undrawn.add(o.case)
        out.append(failure)
    return out, len(undrawn)


class _Drawings:
    """Each case's submission, read once: drawn diagram and text rendering."""

    def __init__(self, store: RunStore, scenario: Scenario) -> None:
        self.store = store
        self.scenario = scenario
        self._seen: dict[tuple[str, str | None], tuple[CaseDiagram, str | None]] = {}

    def get(self, case: str, request_hash: str | None) -> tuple[CaseDiagram, str | None]:
        key = (case, request_hash)
        if key not in self._seen:
            self._seen[key] = case_submission(self.store, self.scenario, case, request_hash)
        return self._seen[key]


def case_submission(store: RunStore, scenario: Scenario, case_name: str,
                    request_hash: str | None) -> tuple[CaseDiagram, str | None]:
    """A case's submission, to draw and as text.

    Athena requests carry the Apollon JSON (``submission.model``): it is drawn as sent.
    The built-in LLM engine's chat request carries only its text rendering; the diagram
    then comes from the stored scenario, else from the case file, drawn only when its
    text rendering is the one the request holds (the file has not changed since).
    """
    data, raw = stored_request(store, request_hash)
    if raw is not None:
        diagram, why = read_diagram(raw)
        if diagram is None:
            return CaseDiagram(None, "the stored request", f"its submission is {why}"), \
                raw[:_MAX_DIAGRAM_CHARS]
        return CaseDiagram(diagram, "the stored request"), \
            render_diagram(diagram)[:_MAX_DIAGRAM_CHARS]
    text = _prompt_diagram(data)
    case = scenario.case_named(case_name)
    if case is None:
        return CaseDiagram(None, note="the stored scenario has no such case"), text
    if case.submission.strip():
        diagram, why = read_diagram(case.submission)
        return CaseDiagram(diagram, "the stored scenario", why), text
    return _from_file(case.path, text)


def _from_file(path: Path, text: str | None) -> tuple[CaseDiagram, str | None]:
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return CaseDiagram(None, note=f"the stored request holds only its text and the case "
                                      f"file {path} cannot be read ({exc.__class__.__name__})"
                           ), text
    diagram, why = read_diagram(raw)
    if diagram is None:
        return CaseDiagram(None, note=f"the case file {path} is {why}"), text
    rendered = render_diagram(diagram)
    if text is None:
        return CaseDiagram(diagram, f"the case file {path} (the stored request does not "
                                    "show the diagram: the file may have changed since)"), \
            rendered[:_MAX_DIAGRAM_CHARS]
    if rendered.strip() != text.strip():
        return CaseDiagram(None, note=f"the case file {path} has changed since the run; the "
                                      "diagram as sent is shown as text"), text
    return CaseDiagram(diagram, f"the case file {path}, unchanged since the run"), text


def _prompt_diagram(data: Any) -> str | None:
    """The diagram text in the engine's user prompt (LLM targets), if any."""
    messages = data.get("messages") if isinstance(data, dict) else None
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
            tuple(page.InstructionAgreement(names.get(i, f"#{i}"), share)
                  for i, share in sorted(c.instruction_share.items(), key=lambda kv: kv[1])
                  if share < 1.0),
            c.score_mean, c.score_min, c.score_max,
        )
        for c in summary.cases if c.repeats
    ]
    cases.sort(key=lambda c: (c.consistent, -(c.flip_rate or 0.0), c.case))
    return Consistency(repeats, tuple(cases), summary.fleiss_kappa, summary.percent_agreement,
                       summary.mean_flip_rate, summary.consistent_cases)
