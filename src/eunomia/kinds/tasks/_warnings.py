"""Systematic problems of a task run, said loudly: a judge that gives every answer the same
score, or a candidate whose answers are all empty or all the same, produces a mean that
carries no information, however precise its interval looks. A trivial baseline's answers
are empty or borrowed by design: only what its judge does is said of it."""

from __future__ import annotations

from eunomia.kinds._task_suites import NOT_APPLICABLE
from eunomia.kinds.tasks._summary import TasksSummary

FEW = 3
"""Fewer answers than this say nothing about a pattern."""
NO_JUDGE = "none"
BASELINE_SUSPECT = 2.5
"""A judge whose mean score of a trivial baseline reaches this (the middle of 0-5) scores
answers that know nothing as half right."""


def run_warnings(s: TasksSummary, baseline: str | None = None) -> list[str]:
    """What is wrong with the whole run of one candidate, in words (``baseline``: the spec
    of the trivial baseline the candidate is: its answers are empty or borrowed, and scored
    alike, by design; what is wrong then is a judge that scores them high)."""
    out: list[str] = []
    if s.total and s.failed == s.total and len(s.failure_reasons) == 1:
        out.append(f"every case failed with the same error: {next(iter(s.failure_reasons))}")
    if baseline is not None:
        if s.total and s.scored == 0 and s.failures \
                and all(NOT_APPLICABLE in f[4] for f in s.failures):
            out.append(f"{baseline} can answer none of the selected cases ({NOT_APPLICABLE}: "
                       "see failures.json)")
            return out
        mean = s.overall.mean if s.overall is not None else None
        if s.judge != NO_JUDGE and mean is not None and mean.estimate >= BASELINE_SUSPECT:
            out.append(f"the judge ({s.judge}) scores {baseline}, which knows nothing, "
                       f"{mean.estimate:.2f} of 5 on average (95% CI {mean.low:.2f}-"
                       f"{mean.high:.2f}, n={mean.n}): its scores barely tell a real answer "
                       "from a trivial one; check it with eunomia judge-check")
    elif s.answers >= FEW and s.empty_answers == s.answers:
        out.append(f"every answer of {s.candidate} is empty: there is nothing to judge")
    elif s.answers >= FEW and s.distinct_answers == 1:
        out.append(f"{s.candidate} gave the same answer to every case: its answers do not "
                   "depend on the question")
    if s.cost_disagreements:
        out.append(f"the system's own cost figure differs from Eunomia's on "
                   f"{s.cost_disagreements} of {s.reported_calls} call(s) (its total "
                   f"{s.reported_cost or 0:.6g}, Eunomia's {s.reported_cost_computed or 0:.6g}): "
                   "Eunomia's is computed from the token counts and the price; both are in "
                   "tasks_results.json")
    if s.judge != NO_JUDGE:
        judged = sum(s.judge_scores.values())
        if baseline is None and judged >= FEW and len(s.judge_scores) == 1:
            score = next(iter(s.judge_scores))
            out.append(f"the judge ({s.judge}) gave {score} to every answer it scored "
                       f"({judged}): its scores carry no information about these answers; "
                       "check it with eunomia judge-check")
        if s.answers >= FEW and s.scored == 0 and s.unscored:
            out.append(f"the judge ({s.judge}) could score none of the {s.unscored} answers "
                       "(see judge_raw_unscored in the suite files)")
    return out
