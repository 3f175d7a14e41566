"""The ``recorded`` target: each case's feedback as recorded in the scenario, replayed.

Feedback captured elsewhere (a system's answers in an Athena export, a production log, a
tutor's feedback) is scored like a live answer: the same scoring, files and reports. No
request is made. ``recorded`` replays a case's ``recorded`` feedback (a system's),
``recorded:tutor`` the tutor's own feedback (``tutor.feedback``). A case without it fails
with that reason: it is never scored as an empty answer.

The request stored for a case is the Athena request (so reports draw the diagram) with the
replayed items added under ``recordedFeedback``: the cache key changes with them.
"""

from __future__ import annotations

import orjson

from eunomia.athena import AthenaFeedback
from eunomia.errors import EunomiaError
from eunomia.scenarios import RecordedFeedback, Scenario, TestCase
from eunomia.scheduler import CallError
from eunomia.targets._base import TargetResponse
from eunomia.targets._local import AnsweredHere

SOURCES = ("recorded", "tutor")
"""What ``recorded:<source>`` replays: a system's recorded feedback, or the tutor's."""


def _items(feedback: RecordedFeedback, scenario: Scenario, case: TestCase
           ) -> list[AthenaFeedback]:
    return [
        AthenaFeedback(
            id=k, title=item.title, description=item.description, credits=item.credits,
            structured_grading_instruction_id=item.instruction,
            meta={**item.meta, **({"element": item.element} if item.element else {})},
            exercise_id=scenario.exercise.id, submission_id=case.submission_id)
        for k, item in enumerate(feedback.items, start=1)
    ]


class RecordedTarget(AnsweredHere):
    """A :class:`eunomia.targets.FeedbackTarget` answering with the scenario's records."""

    def __init__(self, source: str = "recorded") -> None:
        if source not in SOURCES:
            raise EunomiaError(f"unknown recorded feedback {source!r}: choose recorded "
                               "(a system's, the cases' 'recorded' key) or recorded:tutor "
                               "(the tutor's, 'tutor.feedback')")
        super().__init__("recorded" if source == "recorded" else f"recorded:{source}")
        self.source = source

    def _recorded(self, case: TestCase) -> RecordedFeedback | None:
        if self.source == "tutor":
            return None if case.tutor is None else case.tutor.feedback
        return case.recorded

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        body = super().describe_request(scenario, case)
        recorded = self._recorded(case)
        if recorded is None:
            return body
        items = [f.model_dump(mode="json", by_alias=True)
                 for f in _items(recorded, scenario, case)]
        extra = orjson.dumps({"source": recorded.source, "feedback": items})
        return body[:-1] + b',"recordedFeedback":' + extra + b"}"

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        recorded = self._recorded(case)
        if recorded is None:
            where = "tutor.feedback" if self.source == "tutor" else "recorded"
            raise CallError(
                f"test case {case.name!r} has no recorded feedback to replay (the manifest's "
                f"cases.{case.name}.{where}); nothing is scored in its place",
                retryable=False, label="no recorded feedback")
        return TargetResponse(feedback=_items(recorded, scenario, case),
                              raw={"recorded": recorded.source or self.source})
