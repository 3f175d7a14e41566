"""The stored form of a target's answer: every field of every item, the unknown ones too."""

from __future__ import annotations

from eunomia.athena import AthenaFeedback, LLMRequestUsage
from eunomia.targets import TargetResponse


def test_to_json_dumps_each_item_whole_and_reads_back() -> None:
    feedback = [AthenaFeedback.model_validate(
        {"id": i, "structuredGradingInstructionId": i + 1, "credits": 0.5, "meta": {"k": i},
         "elementIds": ["e1"], "modulesOwnField": {"x": [1, 2]}}) for i in range(3)]
    usage = [LLMRequestUsage.model_validate(
        {"model": "gpt-4o", "numInputTokens": 10, "numOutputTokens": 2})]
    response = TargetResponse(feedback, usage, latency_s=0.25, raw={"a": 1}, reported_cost=0.01)
    stored = response.to_json()
    assert stored["feedback"] == [f.model_dump(mode="json", by_alias=True) for f in feedback]
    assert stored["feedback"][2]["modulesOwnField"] == {"x": [1, 2]}  # extra fields kept
    assert stored["feedback"][0]["structuredGradingInstructionId"] == 1
    assert stored["usage"] == [usage[0].model_dump(mode="json", by_alias=True)]
    again = TargetResponse.from_json(stored)
    assert again.feedback == feedback and again.usage == usage
    assert (again.latency_s, again.raw, again.reported_cost) == (0.25, {"a": 1}, 0.01)
