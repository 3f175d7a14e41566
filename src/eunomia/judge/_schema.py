"""The judge's answer: ``{score, feedback}``, as a pydantic model and as a JSON schema.

The score is an ``enum`` of 0..5, not an integer with bounds: llama.cpp's grammar
conversion ignores ``minimum``/``maximum``, an enum it enforces.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from eunomia import defaults

SCORES: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
MAX_SCORE = SCORES[-1]


class JudgeAnswer(BaseModel):
    """What the judge must answer."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    score: Literal[0, 1, 2, 3, 4, 5]
    feedback: str


class Verdict(BaseModel):
    """One judge scoring of one answer. ``score`` is None when the judge's answer was unusable
    (status ``unscored``, with the raw answer) — never a zero."""

    model_config = ConfigDict(frozen=True)

    score: int | None
    feedback: str = ""
    status: Literal["scored", "unscored"] = "scored"
    raw: str | None = None
    """The judge's raw answer (or the reason it is unusable) when it could not be used."""
    attempts: int = 1
    cached: bool = False
    repeat: int = 0
    weighted_score: float | None = None
    """The probability-weighted score (G-Eval): the expectation over the score values' token
    probabilities, when the judge was asked for them and its provider gives them."""


def expected_score(distribution: dict[str, float] | None) -> float | None:
    """The probability-weighted score: the mean of the values 0..5 weighted by their
    probabilities, renormalised over them (``ChatResult.score_distribution``); None without
    a distribution or when the score values had no probability at all."""
    if not distribution:
        return None
    total = weighted = 0.0
    for value, p in distribution.items():
        if value.isdigit() and int(value) in SCORES and p > 0:
            total += p
            weighted += int(value) * p
    return weighted / total if total > 0 else None


def judge_schema(feedback_max_chars: int | None = defaults.JUDGE_FEEDBACK_MAX_CHARS
                 ) -> dict[str, Any]:
    """The JSON schema sent with every judge call (score first, then the feedback)."""
    feedback: dict[str, Any] = {"type": "string"}
    if feedback_max_chars:
        feedback["maxLength"] = feedback_max_chars
    return {
        "title": "judge_verdict",
        "type": "object",
        "properties": {
            "score": {"type": "integer", "enum": list(SCORES)},
            "feedback": feedback,
        },
        "required": ["score", "feedback"],
        "additionalProperties": False,
    }


__all__ = ["MAX_SCORE", "SCORES", "JudgeAnswer", "Verdict", "expected_score", "judge_schema"]
