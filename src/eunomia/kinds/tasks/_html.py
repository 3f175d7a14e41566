"""The task kind's part of the HTML report: each suite's generic groups, with the judge
check's verdict and a candidate's run-level warnings."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import ValidationError

from eunomia.errors import EunomiaError
from eunomia.kinds.judge_check import StoredCheck, stored_check
from eunomia.kinds.tasks._controls import WORDS, read_floor
from eunomia.kinds.tasks._files import baseline_spec
from eunomia.kinds.tasks._summary import TasksSummary
from eunomia.kinds.tasks._tables import power_text, prob_text
from eunomia.kinds.tasks._warnings import run_warnings
from eunomia.report.html import CostBook, GroupReport, Metric, generic_group, targets_of
from eunomia.stats import ci_text
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo


def report_groups(store: RunStore, run: RunInfo, suite: SuiteInfo, rows: Sequence[CaseRow],
                  costs: CostBook, notes: list[str],
                  summary_of: Callable[[str], TasksSummary]) -> list[GroupReport]:
    """The generic groups (status, score, cost and latency of every case); a candidate's
    run-level warnings go on its group of the run's first suite; with ``eval
    --judge-check``, the judge's verdict on the suite beside its scores."""
    targets = targets_of(run, rows)
    readable = {t: _summary(summary_of, t) for t in targets}
    # the calls of each model and role from the candidate's summary (its whole run, booked
    # with the first suite); without one, each case's calls under its target
    groups = [generic_group(suite.name, t, run.kind, [r for r in rows if r.target == t],
                            costs, book=readable[t] is None) for t in targets]
    suites = store.suites(run)
    check = stored_check(run)
    if check is not None:
        _add_verdict(check, suite.name, groups)
    for g in groups:
        _add_floor(store, run, suite.name, g)
    if suites and suites[0].name == suite.name:
        if check is not None:
            overall = next((v for v in check.verdicts if v.suite is None), None)
            if overall is not None:
                notes.append(overall.line())
            notes.append(f"judge check stored as run {check.run} "
                         f"(eunomia report {check.run})")
        for g in groups:
            summary = readable[g.target]
            if summary is None:
                notes.append("the stored suites cannot be read; no warnings checked")
                continue
            g.warnings += run_warnings(summary, baseline_spec(run, g.target))
            book_models(summary, costs)
            if summary.overall is not None:  # the whole run's interval and MDE
                g.metrics += [
                    Metric(f"Mean {summary.score_name} [95% CI], whole run", None, "text",
                           ci_text(summary.overall.mean)),
                    Metric("Could detect, whole run", None, "text", power_text(summary))]
            human = summary.agreement.human if summary.agreement else None
            if human is not None:  # over the whole run, shown with its first suite
                g.metrics.append(Metric(f"{summary.scorer} vs human scores, whole run", None,
                                        "text", human.text()))
            weighted = prob_text(summary)
            if weighted is not None:  # over the whole run, shown with its first suite
                m = summary.prob_mean
                short = ("not available" if m is None else  # the sentence says why
                         f"{m.estimate:.2f} (n={m.n}: too few)" if m.too_few else ci_text(m))
                g.metrics.append(Metric(
                    "G-Eval judge score, whole run", None, "text", short,
                    detail="the judge score weighted by the probabilities of its score "
                           f"tokens: {weighted}"))
    return groups


def _add_floor(store: RunStore, run: RunInfo, suite: str, group: GroupReport) -> None:
    """The candidate beside each control on ``suite``, as a card after its mean score; a
    warning when it is no better."""
    floor = read_floor(store, run, group.target,
                       group.target if len(run.targets) > 1 else None)
    if floor is None:
        return
    # after the mean score, and after the judge check's verdict beside it
    at = max((i + 1 for i, m in enumerate(group.metrics)
              if m.label in ("Judge check", "Mean score")), default=len(group.metrics))
    for f in reversed(floor.on_suite(suite)):
        group.metrics.insert(at, Metric(f"Beside {WORDS[f.control]}", None, "text",
                                        f.short()))
        if f.no_better:
            group.warnings.append(f.line())
    if floor.verdict is not None and floor.verdict.holds:
        group.warnings.append(f"the judge's floor: {floor.verdict.text}; "
                              f"{floor.verdict.evidence}")


def _summary(summary_of: Callable[[str], TasksSummary], target: str) -> TasksSummary | None:
    """The candidate's summary, or None when its stored suites cannot be read."""
    try:
        return summary_of(target)
    except (EunomiaError, KeyError, TypeError, ValueError, ValidationError):
        return None


JUDGE = " (judge)"
"""After a judge model's name in the cost per model: its calls are not a candidate's."""


def book_models(summary: TasksSummary, costs: CostBook) -> None:
    """A candidate's calls under its model, the judge's under the judge's (named so): a
    trivial baseline makes no call, so it is booked none of its judge's."""
    for use in summary.models:
        costs.add(use.model + (JUDGE if use.role == "judge" else ""), use.calls,
                  use.input_tokens, use.output_tokens, use.cost, role=use.role)


def _add_verdict(check: StoredCheck, suite: str, groups: Sequence[GroupReport]) -> None:
    """The judge's verdict on ``suite`` as a card after the mean score, and as a warning
    of each group when its scores are not evidence."""
    verdict = check.for_suite(suite)
    if verdict is None:
        return
    for g in groups:
        at = next((i + 1 for i, m in enumerate(g.metrics) if m.label == "Mean score"),
                  len(g.metrics))
        g.metrics.insert(at, Metric("Judge check", None, "text", verdict.short()))
        if not verdict.trusted:
            g.warnings.append(verdict.line())
