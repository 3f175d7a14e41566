"""A task run's cases as neutral records (JSON Lines, JUnit XML, the Markdown summary).

A case passes when it was scored and its mean judge score (over the judge's repeats; with
``--judge none`` the checks' score) is at least the pass score: :data:`DEFAULT_PASS_SCORE`
unless ``--pass-score`` says otherwise — 3 is "acceptable: the main point is right" on
the bundled rubric's 0-5 scale. A case the judge could not score is skipped, one whose
model call failed (or whose file is unusable) is an error. The diff lists the
deterministic checks that failed.
"""

from __future__ import annotations

from collections.abc import Iterator

from eunomia.bounds import finite_in
from eunomia.cut import cut_text
from eunomia.errors import EunomiaError
from eunomia.exports import ResultRecord, outcome_of
from eunomia.kinds.tasks._files import stored_record
from eunomia.store import CaseRow, RunInfo, RunStore
from eunomia.tasks import CaseMeta, iter_entries, read_suite
from eunomia.tasks._snapshot import EntryMetas

DEFAULT_PASS_SCORE = 3.0
"""A judged case passes at this mean score or above (0-5)."""
SCORE_RANGE = (0.0, 5.0)
_TOLERANCE = 1e-9


def check_pass_score(value: float | None) -> float:
    """``--pass-score`` as given (or the default): finite and on the judge's 0-5 scale."""
    if value is None:
        return DEFAULT_PASS_SCORE
    problem = finite_in("--pass-score", value, *SCORE_RANGE)
    if problem is not None:
        raise EunomiaError(f"{problem} (the judge's scale)")
    return value


def task_records(store: RunStore, run: RunInfo,
                 pass_score: float | None = None) -> Iterator[ResultRecord]:
    """Every stored case of ``run``, by suite and candidate, in the store's order."""
    threshold = check_pass_score(pass_score)
    entry_metas = EntryMetas()
    for info in store.suites(run):
        metas = {entry[0]: entry_metas.of(entry) for entry in iter_entries(read_suite(store, info))}
        for row in store.iter_cases(run, info.name):  # ordered by target, case, repeat
            yield task_record(store, run, row, metas.get(row.case_name), threshold)


def task_record(store: RunStore, run: RunInfo, row: CaseRow, meta: CaseMeta | None,
                threshold: float) -> ResultRecord:
    """One stored case as a record."""
    rec = stored_record(store, row.suite, row, meta)
    res = rec.result
    score = rec.score
    passed = row.status == "scored" and score is not None and score >= threshold - _TOLERANCE
    reason = None
    if row.status == "scored" and not passed:
        reason = f"score {score:.2f} is below the pass score {threshold:g}" \
            if score is not None else "no score"
    elif row.status != "scored":
        failure = rec.failure
        reason = failure[4] if failure is not None else row.status
        if row.status == "unscored":
            reason = f"not scored: {reason}"
    failed_checks = [f"{c.name}: {c.detail}".strip(": ") for c in res.all_checks()
                     if not c.passed] if res is not None else None
    return ResultRecord(
        run=run.name, kind=run.kind, suite=row.suite, case=row.case_name, target=row.target,
        repeat=row.repeat, status=row.status, outcome=outcome_of(row.status, passed),
        passed=passed, score=score, score_scale="0-5", pass_score=threshold, reason=reason,
        diff="\n".join(failed_checks) if failed_checks else None,
        error=row.error if row.status != "unscored" else None,  # its why is the reason
        cost=row.cost, latency_s=row.latency_s, input_tokens=row.input_tokens,
        output_tokens=row.output_tokens, attempts=row.attempts, cached=row.cached,
        category=meta.category if meta is not None else None,
        difficulty=meta.difficulty if meta is not None else None,
        answer=cut_text(res.response) if res is not None else None,
        judge_feedback=(cut_text(res.feedback) or None) if res is not None else None,
        failed_checks=failed_checks,
    )
