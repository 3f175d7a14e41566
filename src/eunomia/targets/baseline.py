"""The trivial baselines as targets: ``baseline:default`` (the scenario's
``default_expected`` on every case: a system that assumes every diagram is perfect) and
``baseline:constant`` (per criterion the instruction most often expected). They make no
request and cost nothing; a system not significantly better than them has learnt nothing
from the diagrams (what they answer: ``eunomia.scenarios``, their one home)."""

from __future__ import annotations

from eunomia.athena import AthenaFeedback
from eunomia.errors import EunomiaError
from eunomia.scenarios import BASELINES, Scenario, TestCase, baseline_feedback
from eunomia.targets._base import TargetResponse
from eunomia.targets._local import AnsweredHere


class BaselineTarget(AnsweredHere):
    """A :class:`eunomia.targets.FeedbackTarget` that answers without asking anyone."""

    def __init__(self, baseline: str) -> None:
        if baseline not in BASELINES:
            raise EunomiaError(f"unknown baseline {baseline!r}: choose "
                               + " or ".join(f"baseline:{k}" for k in BASELINES))
        super().__init__(f"baseline:{baseline}")
        self.baseline = baseline
        self._answers: dict[str, list[AthenaFeedback]] = {}

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        answer = self._answers.get(scenario.name)
        if answer is None:
            answer = self._answers[scenario.name] = baseline_feedback(scenario, self.baseline)
        return TargetResponse(feedback=[f.model_copy(update={"submission_id": case.submission_id})
                                        for f in answer],
                              raw={"baseline": self.baseline})
