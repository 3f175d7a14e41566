"""Systematic problems of a task run, said loudly: a judge that gives every answer the same
score, or a candidate whose answers are all empty or all the same, produces a mean that
carries no information, however precise its interval looks."""

from __future__ import annotations

from eunomia.tasks import TasksSummary

FEW = 3
"""Fewer answers than this say nothing about a pattern."""
NO_JUDGE = "none"


def run_warnings(s: TasksSummary) -> list[str]:
    """What is wrong with the whole run of one candidate, in words."""
    out: list[str] = []
    if s.total and s.failed == s.total and len(s.failure_reasons) == 1:
        out.append(f"every case failed with the same error: {next(iter(s.failure_reasons))}")
    if s.answers >= FEW and s.empty_answers == s.answers:
        out.append(f"every answer of {s.candidate} is empty: there is nothing to judge")
    elif s.answers >= FEW and s.distinct_answers == 1:
        out.append(f"{s.candidate} gave the same answer to every case: its answers do not "
                   "depend on the question")
    if s.judge != NO_JUDGE:
        judged = sum(s.judge_scores.values())
        if judged >= FEW and len(s.judge_scores) == 1:
            score = next(iter(s.judge_scores))
            out.append(f"the judge ({s.judge}) gave {score} to every answer it scored "
                       f"({judged}): its scores carry no information about these answers; "
                       "check it with eunomia judge-check")
        if s.answers >= FEW and s.scored == 0 and s.unscored:
            out.append(f"the judge ({s.judge}) could score none of the {s.unscored} answers "
                       "(see judge_raw_unscored in the suite files)")
    return out
