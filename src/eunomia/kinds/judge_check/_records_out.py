"""A judge check's answers as neutral records (JSON Lines, JUnit XML, the Markdown summary).

Each stored case is one controlled answer (``case#good``, ``case#truncated``...) scored by
one judge. Whether a judge can tell good from bad is a property of all its scores together
(the AUC of ``judge_check.json``), not of one answer: an answer the judge scored passes,
one it could not score is skipped, one whose call failed is an error.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ValidationError

from eunomia.errors import EunomiaError
from eunomia.exports import ResultRecord, outcome_of
from eunomia.kinds.judge_check._answers import split_row_name
from eunomia.kinds.judge_check._work import CheckedAnswer
from eunomia.store import CaseRow, RunInfo, RunStore

NO_PASS_SCORE = ("--pass-score applies to judged task runs (eunomia eval); a judge check is "
                 "read from its AUC")


def judge_check_records(store: RunStore, run: RunInfo,
                        pass_score: float | None = None) -> Iterator[ResultRecord]:
    """Every stored answer of ``run``, by suite and judge."""
    if pass_score is not None:
        raise EunomiaError(NO_PASS_SCORE)
    for info in store.suites(run):
        for row in store.iter_cases(run, info.name):
            yield _record(store, run, row)


def _checked(store: RunStore, row: CaseRow) -> CheckedAnswer | None:
    if not row.response:
        return None
    try:
        return CheckedAnswer.model_validate_json(store.get_blob(row.response))
    except ValidationError:
        return None


def _record(store: RunStore, run: RunInfo, row: CaseRow) -> ResultRecord:
    checked = _checked(store, row)
    kind = split_row_name(row.case_name)[1]
    passed = row.status == "scored"
    reason = None
    if not passed:
        reason = row.error or row.status
        if row.status == "unscored" and checked is not None:
            raw = next((v.raw for v in checked.verdicts if v.raw), None)
            reason = f"not scored: {raw or 'no usable judge answer'}"
    feedback = "\n".join(v.feedback for v in checked.verdicts if v.feedback) \
        if checked is not None else ""
    return ResultRecord(
        run=run.name, kind=run.kind, suite=row.suite, case=row.case_name, target=row.target,
        repeat=row.repeat, status=row.status, outcome=outcome_of(row.status, passed),
        passed=passed, score=row.score, score_scale="0-5", reason=reason, error=row.error,
        cost=row.cost, latency_s=row.latency_s, input_tokens=row.input_tokens,
        output_tokens=row.output_tokens, attempts=row.attempts, cached=row.cached,
        category=checked.category if checked is not None else None,
        answer_kind=kind or None, answer=checked.answer if checked is not None else None,
        judge_feedback=feedback or None,
    )
