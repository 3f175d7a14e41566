"""What a test case may carry beside its diagram: expectations on the credits given under an
instruction, the tutor's grade, and feedback recorded elsewhere (a tutor's, or a system's
answer captured outside Eunomia, replayed by ``--target recorded``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from eunomia import defaults

_OPERATORS = ("==", ">=", "<=", ">", "<")
_EXPECTATION = re.compile(r"^\s*(==|>=|<=|>|<)?\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")


@dataclass(frozen=True, slots=True)
class CreditExpectation:
    """``op value``: what the credits given under one instruction must satisfy (``== 0.0``,
    ``>= 1.0``). ``==`` allows :data:`eunomia.defaults.SCORE_TOLERANCE`."""

    op: str
    value: float

    def met(self, credits: float) -> bool:
        tol = defaults.SCORE_TOLERANCE
        if self.op == "==":
            return abs(credits - self.value) <= tol
        if self.op == ">=":
            return credits >= self.value - tol
        if self.op == "<=":
            return credits <= self.value + tol
        if self.op == ">":
            return credits > self.value + tol
        return credits < self.value - tol

    def __str__(self) -> str:
        return f"{self.op} {self.value:g}"


def parse_credit_expectation(value: Any) -> CreditExpectation:
    """A number (``2.0``: exactly that) or ``"<op> <number>"`` with op one of ``==``,
    ``>=``, ``<=``, ``>``, ``<``. ValueError saying what is wrong otherwise (not finite, out
    of range, not of this form)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"a credit expectation is a number or a text such as '>= 1.0', "
                         f"got {value!r}")
    if isinstance(value, str):
        found = _EXPECTATION.match(value)
        if found is None:
            raise ValueError(f"invalid credit expectation {value!r}: write '<op> <number>' "
                             f"with op one of {', '.join(_OPERATORS)} (e.g. '>= 1.0')")
        op, number = found.group(1) or "==", float(found.group(2))
    else:
        op, number = "==", float(value)
    if not math.isfinite(number):
        raise ValueError(f"a credit expectation must be a finite number, got {value!r}")
    if abs(number) > defaults.MAX_POINTS:
        raise ValueError(f"a credit expectation must be between {-defaults.MAX_POINTS:g} and "
                         f"{defaults.MAX_POINTS:g}, got {number:g}")
    return CreditExpectation(op, number)


@dataclass(frozen=True, slots=True)
class RecordedItem:
    """One feedback item as recorded (by a tutor, or a system outside Eunomia)."""

    title: str
    description: str
    credits: float
    instruction: int | None = None
    """The numeric id of the instruction it names (one of the scenario's), if any."""
    element: str = ""
    """The element it is about, as recorded (a name such as ``Car.color``, or a reference)."""
    meta: dict[str, Any] = field(default_factory=dict)


RECORDED_TARGETS = frozenset({"recorded", "recorded:tutor"})
"""The targets that replay feedback recorded elsewhere (a system's, the tutor's): no call is
made, and what producing the feedback cost was not recorded, so their cost is unknown."""


@dataclass(frozen=True, slots=True)
class RecordedFeedback:
    """Feedback on one submission given elsewhere, and who gave it."""

    source: str
    items: tuple[RecordedItem, ...]


@dataclass(frozen=True, slots=True)
class TutorGrade:
    """The tutor's grade of a submission, in points of the exercise (the file may give a
    percent of ``max_points``, as Artemis and Athena's exports do: kept in ``percent``)."""

    points: float
    percent: float | None = None
    feedback: RecordedFeedback | None = None
    """The tutor's own feedback items, when recorded."""
