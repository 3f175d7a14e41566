"""A pairwise run's comparisons as neutral records (JSON Lines, JUnit XML, the Markdown
summary).

The second candidate (B) is the one under test, the first (A) its reference: a comparison
*passes* when B did not lose it (a win or a tie, both orders read together), *fails* when
B lost; one the judge could not decide in both orders (or a trivial baseline could not
answer) is skipped, one whose call failed is an error. Its score is B's value (0-1).
"""

from __future__ import annotations

from collections.abc import Iterator

from eunomia.cut import cut_text
from eunomia.exports import ResultRecord
from eunomia.kinds import neutral_record
from eunomia.kinds.pairwise._files import stored_pairs
from eunomia.kinds.pairwise._result import PairResult
from eunomia.store import CaseRow, RunInfo, RunStore


def pairwise_records(store: RunStore, run: RunInfo) -> Iterator[ResultRecord]:
    """Every stored comparison of ``run``, suite by suite."""
    for row, result in stored_pairs(store, run):
        yield _record(run, row, result)


def _record(run: RunInfo, row: CaseRow, result: PairResult | None) -> ResultRecord:
    outcome = result.outcome if result is not None else None
    passed = row.status == "scored" and outcome != "loss"
    reason = None
    if row.status == "scored" and not passed and result is not None:
        reason = f"{result.b.label} lost against {result.a.label}"
    elif row.status != "scored":
        why = (result.reason if result is not None else None) or row.error or row.status
        reason = f"not scored: {why}" if row.status == "unscored" else why
    feedback = "\n".join(f"{o.shown_first} shown first: {o.pick or 'unusable'}: "
                         f"{o.verdict.reason}" for o in result.orders) if result else ""
    return neutral_record(
        run, row, passed=passed, reason=reason, score_scale="0-1",
        category=result.category if result is not None else None,
        answer=cut_text(result.b.response) if result is not None else None,
        judge_feedback=feedback or None)
