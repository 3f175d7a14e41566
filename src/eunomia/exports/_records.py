"""One evaluated case (one repeat, one target) as every CI-native output reads it.

Each kind turns its stored cases into :class:`ResultRecord` s (``Kind.case_records``); the
JSON Lines, JUnit XML and Markdown writers of this package read nothing else. The field
names are a published format (``docs/ci.md``): fields may be added, never renamed or
dropped. Every field is present on every line (``null`` when it does not apply to the
kind), so a table loaded from the file has the same columns for every run.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

Outcome = Literal["passed", "failed", "error", "skipped"]
"""What CI makes of a case: ``passed``; ``failed`` (it ran and did not pass: not fully
correct, below the pass score); ``error`` (no usable answer: the system under test failed
after its retries, or the case's file is unusable); ``skipped`` (answered but not scored:
the judge gave no usable score)."""

def utf8_text(value: str) -> str:
    """``value`` with what UTF-8 cannot carry (lone surrogates, e.g. of a file name that was
    not UTF-8) replaced by U+FFFD, so every writer can encode it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


Text = Annotated[str, AfterValidator(utf8_text)]


class ResultRecord(BaseModel):
    """One case, one repeat, one target: status, verdict, score, why, cost and latency."""

    model_config = ConfigDict(frozen=True, extra="forbid", ser_json_inf_nan="null")

    run: Text
    kind: Text
    """``scenarios``, ``tasks`` or ``judge_check``."""
    suite: Text
    case: Text
    target: Text
    """The system under test: a scenario run's target, a task run's candidate model, a judge
    check's judge."""
    repeat: int = Field(ge=0)
    """0 for the first (or only) run of the case."""
    status: Text
    """As stored: ``scored``, ``failed``, ``invalid`` or ``unscored``."""
    outcome: Outcome
    passed: bool
    score: float | None = None
    """Scenarios: test case score % (0-100); tasks: mean judge score (0-5); judge check: the
    judge's score of this answer (0-5). None when not scored (or not measured)."""
    score_scale: Text = ""
    """``%`` (0-100) or ``0-5``."""
    pass_score: float | None = None
    """The threshold ``passed`` was decided with (tasks); None when another rule decides."""
    reason: Text | None = None
    """Why the case did not pass, in one line; None when it passed."""
    diff: Text | None = None
    """A short diff, one item a line (scenarios: ``- criterion/instruction`` missing,
    ``+ criterion/instruction`` returned unexpectedly; tasks: the checks that failed)."""
    error: Text | None = None
    cost: float | None = None
    """Currency units (the prices' currency); None when unknown."""
    latency_s: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 0
    cached: bool = False
    # --- scenarios ---------------------------------------------------------------------------
    expected: list[Text] | None = None
    """Expected instructions (``criterion/instruction``)."""
    returned: list[Text] | None = None
    missing: list[Text] | None = None
    extra: list[Text] | None = None
    fully_correct: bool | None = None
    detected: bool | None = None
    awarded_points: float | None = None
    """The points the system awarded: its feedback's credits summed, limited to ``[0,
    max_points + bonus_points]`` as Artemis totals them; None when not scored."""
    tutor_points: float | None = None
    """The tutor's points of the case, when it carries a tutor's grade."""
    credit_expectations_met: bool | None = None
    """Every credit expectation of the case met; None when it has none (or was not scored)."""
    credit_expectations_not_met: list[Text] | None = None
    """Each one not met: ``instruction 1: expected == 0, got 2``."""
    # --- judged tasks and judge checks -------------------------------------------------------
    category: Text | None = None
    difficulty: Text | None = None
    answer_kind: Text | None = None
    """Judge check: ``good``, ``other``, ``truncated``, ``refusal`` or ``padded``."""
    answer: Text | None = None
    """The answer that was judged (the candidate's, or the judge check's controlled one)."""
    judge_feedback: Text | None = None
    failed_checks: list[Text] | None = None

    @field_validator("score", "cost", "latency_s", "pass_score", "awarded_points",
                     "tutor_points")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        """A number that is not one (NaN, infinity) is unknown, never a figure."""
        return None if value is None or not math.isfinite(value) else value


def outcome_of(status: str, passed: bool) -> Outcome:
    """The CI outcome of a stored status and the kind's verdict on a scored case."""
    if status == "scored":
        return "passed" if passed else "failed"
    if status == "unscored":
        return "skipped"
    return "error"


RECORD_FIELDS: tuple[str, ...] = tuple(ResultRecord.model_fields)
"""Every field, in the order of each JSON object."""
