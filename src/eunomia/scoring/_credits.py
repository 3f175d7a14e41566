"""Credits, not only ids: the points a system awarded, its credits per instruction against
the scenario's expectations, and the items whose credits differ from their instruction's.

Definitions:

* points by the instructions returned: the credits of each distinct instruction returned
  (the seed documents' definition; ``CaseScore.returned_score``);
* points awarded: the sum of every feedback item's own credits, limited to ``[0, max_points
  + bonus_points]`` as Artemis totals a result (unclamped sum kept beside it);
* credits under an instruction: the sum of the credits of the items naming it (one item
  each, as Athena's own tests assume: that item's credits); an expectation on an instruction
  no item names is not met;
* a credit disagreement: an item naming an instruction of the scenario with other credits
  than the instruction's (more than :data:`eunomia.defaults.SCORE_TOLERANCE` apart).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from eunomia import defaults
from eunomia.athena import AthenaFeedback
from eunomia.scenarios import CreditExpectation, Scenario, TestCase


@dataclass(frozen=True, slots=True)
class CreditCheck:
    """One credit expectation of a case, against what the system gave."""

    instruction: int
    expectation: CreditExpectation
    credits: float | None
    """Credits given under the instruction; None when no item named it."""

    @property
    def met(self) -> bool:
        return self.credits is not None and self.expectation.met(self.credits)


@dataclass(frozen=True, slots=True)
class CreditDisagreement:
    """A feedback item whose credits are not those of the instruction it names."""

    item: int
    """Its position in the answer (0-based)."""
    instruction: int
    credits: float
    instruction_credits: float


@dataclass(frozen=True, slots=True)
class CasePoints:
    awarded: float | None
    """Artemis' total: the items' credits summed, limited to [0, max + bonus]; None when an
    item's credits are not a finite number."""
    awarded_unlimited: float | None
    checks: tuple[CreditCheck, ...]
    disagreements: tuple[CreditDisagreement, ...]


def artemis_total(credits: Sequence[float], max_points: float, bonus_points: float
                  ) -> tuple[float | None, float | None]:
    """(limited, unlimited) sum of ``credits``; (None, None) if one is not finite."""
    if not all(math.isfinite(c) for c in credits):
        return None, None
    raw = math.fsum(credits)
    return min(max(raw, 0.0), max_points + bonus_points), raw


def case_points(scenario: Scenario, case: TestCase,
                feedback: Sequence[AthenaFeedback]) -> CasePoints:
    known = scenario.instructions
    under: dict[int, list[float]] = {}
    disagreements: list[CreditDisagreement] = []
    for k, item in enumerate(feedback):
        sgi = item.structured_grading_instruction_id
        if sgi is None or sgi not in known:
            continue
        under.setdefault(sgi, []).append(item.credits)
        if not abs(item.credits - known[sgi].credits) <= defaults.SCORE_TOLERANCE:
            disagreements.append(CreditDisagreement(k, sgi, item.credits, known[sgi].credits))
    checks = tuple(
        CreditCheck(i, expectation, math.fsum(under[i]) if i in under else None)
        for i, expectation in case.expected_credits)
    ex = scenario.exercise
    awarded, raw = artemis_total([f.credits for f in feedback], ex.max_points, ex.bonus_points)
    return CasePoints(awarded, raw, checks, tuple(disagreements))
