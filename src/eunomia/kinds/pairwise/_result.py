"""What one pairwise comparison produced (the stored row's response blob), and how the two
orders' verdicts make one outcome.

``A`` is the first candidate (the first ``--model``), ``B`` the second; every figure is of B
against A. Each pair is judged twice, A shown first and B shown first. Each order gives B
1 (the judge picked B), ½ (a tie) or 0 (it picked A); the pair's value is the mean of the
two, and B *wins* when it is above ½, *loses* when below, *ties* at ½. So a verdict that
flips with the order (A when A is shown first, B when B is) is a tie — a judge that always
prefers one position cancels out — and one order's preference with a tie in the other
counts for that side. A pair with an order the judge did not answer usably has no outcome
(unscored), never a tie.
"""

from __future__ import annotations

from statistics import fmean
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from eunomia.judge import PairVerdict
from eunomia.tasks import CallRecord, CaseStatus

Side = Literal["A", "B"]
Pick = Literal["A", "B", "tie"]
Outcome = Literal["win", "tie", "loss"]
"""Of B against A."""
OUTCOMES: tuple[Outcome, ...] = ("win", "tie", "loss")


def other(side: Side) -> Side:
    return "B" if side == "A" else "A"


def outcome_of(value: float) -> Outcome:
    """B's outcome for its value (0..1) against A."""
    return "win" if value > 0.5 else "loss" if value < 0.5 else "tie"


class Answer(BaseModel):
    """One candidate's answer to the case, as the judge saw it."""

    model_config = ConfigDict(frozen=True)

    label: str
    spec: str
    response: str = ""
    """The answer (for a conversation: the whole conversation, the user's turns and its
    replies)."""
    not_applicable: str | None = None
    """Why a trivial baseline cannot answer this case (no judge call is made then)."""
    error: str | None = None
    calls: list[CallRecord] = Field(default_factory=list)


class OrderVerdict(BaseModel):
    """The judge's verdict with ``shown_first`` as Response 1."""

    model_config = ConfigDict(frozen=True)

    shown_first: Side
    verdict: PairVerdict

    @property
    def pick(self) -> Pick | None:
        """The candidate the judge preferred (None: its answer was unusable)."""
        winner = self.verdict.winner
        if winner is None:
            return None
        if winner == "tie":
            return "tie"
        return self.shown_first if winner == "1" else other(self.shown_first)

    @property
    def value(self) -> float | None:
        """B's value in this order: 1, ½ or 0."""
        pick = self.pick
        return None if pick is None else 0.5 if pick == "tie" else float(pick == "B")


class PairResult(BaseModel):
    """One case (one repeat): both answers and the judge's verdict in each order."""

    model_config = ConfigDict(frozen=True)

    case: str
    kind: str
    category: str
    repeat: int = 0
    a: Answer
    b: Answer
    orders: list[OrderVerdict] = Field(default_factory=list)
    judge_calls: list[CallRecord] = Field(default_factory=list)
    error: str | None = None
    """A failure of the run itself on this case (a candidate or the judge could not be
    reached after the retries...)."""

    @property
    def value(self) -> float | None:
        """B's value against A (0..1), the mean over both orders; None without an outcome."""
        values = [o.value for o in self.orders]
        if self.status != "scored" or len(values) < 2 or any(v is None for v in values):
            return None
        return fmean(v for v in values if v is not None)

    @property
    def outcome(self) -> Outcome | None:
        value = self.value
        return None if value is None else outcome_of(value)

    @property
    def flipped(self) -> bool:
        """The judge picked A in one order and B in the other (counted as a tie)."""
        picks = {o.pick for o in self.orders}
        return {"A", "B"} <= picks

    @property
    def not_applicable(self) -> str | None:
        return self.a.not_applicable or self.b.not_applicable

    @property
    def status(self) -> CaseStatus:
        if self.error is not None or self.a.error is not None or self.b.error is not None:
            return "failed"
        if self.not_applicable is not None or len(self.orders) < 2 \
                or any(o.pick is None for o in self.orders):
            return "unscored"
        return "scored"

    @property
    def reason(self) -> str | None:
        """Why the pair has no outcome (None when it has one)."""
        if self.error is not None:
            return self.error
        for side in (self.a, self.b):
            if side.error is not None:
                return f"{side.label}: {side.error}"
        if self.not_applicable is not None:
            return self.not_applicable
        bad = [o for o in self.orders if o.pick is None]
        if bad:
            o = bad[0]
            return (f"the judge's verdict with {o.shown_first} shown first is unusable: "
                    f"{o.verdict.reason}")
        return None

    @property
    def calls(self) -> list[CallRecord]:
        return [*self.a.calls, *self.b.calls, *self.judge_calls]
