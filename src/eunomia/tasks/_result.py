"""What running one case produced: answers, judge verdicts, checks, timings, token usage.

Stored as JSON in the run store (one blob per case and repeat); exports and summaries
are rebuilt from it.
"""

from __future__ import annotations

from statistics import fmean
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from eunomia.judge._schema import Verdict

CaseStatus = Literal["scored", "unscored", "failed", "invalid"]
Role = Literal["candidate", "judge"]


class CallRecord(BaseModel):
    """One model call (or cache hit) made for a case."""

    model_config = ConfigDict(frozen=True)

    role: Role
    model: str
    """The model as the provider reported it (prices are looked up by this name)."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    latency_s: float | None = None
    time_to_first_token_s: float | None = None
    attempts: int = 1
    cached: bool = False
    attempt_log: tuple[str, ...] = ()
    """Each attempt's outcome when there was more than one (``("HTTP 503", "ok")``)."""
    reported_cost: float | None = Field(default=None, exclude_if=lambda v: v is None)
    """What the system itself says this call cost (``ChatResult.reported_cost``); None when
    it says nothing."""


class CheckResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    passed: bool
    detail: str = ""


class TurnResult(BaseModel):
    """One turn of a multi-turn case."""

    model_config = ConfigDict(frozen=True)

    user: str
    response: str
    eval_point: str | None = None
    verdicts: list[Verdict] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)


class SpeedResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    latency_s: float | None
    time_to_first_token_s: float | None
    output_words: int
    output_tokens: int
    words_per_second: float | None
    expected_words: int | None
    length_adherence: float | None
    """1 − |words − expected| / expected, at least 0 (1 = exactly the asked length)."""


class CaseResult(BaseModel):
    """Everything one case (one repeat) produced."""

    model_config = ConfigDict(frozen=True)

    kind: str
    response: str = ""
    """The candidate's answer (the last reply of a conversation)."""
    verdicts: list[Verdict] = Field(default_factory=list)
    checks: list[CheckResult] = Field(default_factory=list)
    turns: list[TurnResult] = Field(default_factory=list)
    speed: SpeedResult | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    error: str | None = None

    def all_verdicts(self) -> list[Verdict]:
        return [*self.verdicts, *(v for t in self.turns for v in t.verdicts)]

    def all_checks(self) -> list[CheckResult]:
        return [*self.checks, *(c for t in self.turns for c in t.checks)]

    @property
    def score(self) -> float | None:
        """Mean judge score (0–5) over every usable verdict; None when there is none."""
        scores = [v.score for v in self.all_verdicts() if v.score is not None]
        return fmean(scores) if scores else None

    @property
    def prob_score(self) -> float | None:
        """Mean probability-weighted (G-Eval) judge score over the usable verdicts, when every
        one of them has one (``Verdict.weighted_score``); None otherwise — never the sampled
        score in its place."""
        scored = [v for v in self.all_verdicts() if v.score is not None]
        values = [v.weighted_score for v in scored if v.weighted_score is not None]
        return fmean(values) if scored and len(values) == len(scored) else None

    @property
    def status(self) -> CaseStatus:
        if self.error is not None:
            return "failed"
        return "scored" if self.score is not None else "unscored"

    def unscored_reason(self, judged: bool) -> str | None:
        """Why an unscored case has no score, in words (None when it is not unscored):
        the reason of each verdict that could not be used (a judge's unusable answer, a
        baseline that cannot answer the case), or that nothing scores it: no check, and no
        judge (``--judge none``; ``judged``: the run has a judge)."""
        if self.status != "unscored":
            return None
        unusable = [v.feedback or v.raw or "no usable verdict" for v in self.all_verdicts()
                    if v.status == "unscored"]
        if unusable:
            return "; ".join(dict.fromkeys(unusable))
        if not judged:
            return "no checks and --judge none: nothing scores this case"
        return "no verdict: the judge was not asked"

    @property
    def feedback(self) -> str:
        parts = [v.feedback if v.status == "scored" else f"(unscored) {v.raw or v.feedback}"
                 for v in self.verdicts]
        for i, t in enumerate(self.turns, start=1):
            parts += [f"turn {i}: {v.feedback if v.status == 'scored' else '(unscored)'}"
                      for v in t.verdicts]
        return "\n".join(p for p in parts if p)

    def usage(self, role: Role) -> tuple[int, int]:
        calls = [c for c in self.calls if c.role == role]
        return sum(c.input_tokens for c in calls), sum(c.output_tokens for c in calls)

    @property
    def candidate_latency_s(self) -> float | None:
        values = [c.latency_s for c in self.calls if c.role == "candidate" and c.latency_s]
        return sum(values) if values else None

    @property
    def attempts(self) -> int:
        return sum(c.attempts for c in self.calls)

    @property
    def cached(self) -> bool:
        return bool(self.calls) and all(c.cached for c in self.calls)
