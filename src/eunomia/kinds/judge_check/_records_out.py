"""A judge check's answers as neutral records (JSON Lines, JUnit XML, the Markdown summary).

Each stored case is one controlled answer (``case#good``, ``case#truncated``...) scored by
one judge. Whether a judge can tell good from bad is a property of all its scores together
(the AUC of ``judge_check.json``), not of one answer: an answer the judge scored passes,
one it could not score is skipped, one whose call failed is an error.
"""

from __future__ import annotations

from collections.abc import Iterator

from eunomia.exports import ResultRecord
from eunomia.kinds import neutral_record
from eunomia.kinds._task_suites import split_row_name
from eunomia.kinds.judge_check._files import stored_answer
from eunomia.store import CaseRow, RunInfo, RunStore


def judge_check_records(store: RunStore, run: RunInfo) -> Iterator[ResultRecord]:
    """Every stored answer of ``run``, by suite and judge."""
    for info in store.suites(run):
        for row in store.iter_cases(run, info.name):
            yield _record(store, run, row)


def _record(store: RunStore, run: RunInfo, row: CaseRow) -> ResultRecord:
    checked = stored_answer(store, row)
    control = split_row_name(row.case_name)[1]
    reason = None
    if row.status == "unscored" and checked is not None:
        raw = next((v.raw for v in checked.verdicts if v.raw), None)
        reason = f"not scored: {raw or 'no usable judge answer'}"
    feedback = "\n".join(v.feedback for v in checked.verdicts if v.feedback) \
        if checked is not None else ""
    return neutral_record(
        run, row, reason=reason, score_scale="0-5",
        category=checked.category if checked is not None else None,
        answer_kind=control or None, answer=checked.answer if checked is not None else None,
        judge_feedback=feedback or None)
