"""The likelihood mode on the real embedded model (qwen2.5-coder-0.5b, the default).

Needs the ``local`` extra and the weights; skipped otherwise. Checks what no fake can: the
chat template cut into segments, the kept states, bit-identical scores whatever ran
before (other cases, a generation), and the calibrated rule's known answer on a case.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.local_model import require_local_model

from eunomia.models import ChatMessage, ChatRequest, GenerationSettings
from eunomia.models.providers.likelihood import OptionsQuestion, OptionsRequest
from eunomia.models.providers.local import LocalProvider
from eunomia.scenarios import Scenario
from eunomia.targets.llm import LLMTarget

MODEL = "qwen2.5-coder-0.5b"
require_local_model(MODEL)

pytestmark = pytest.mark.slow


async def test_scores_depend_on_the_request_only() -> None:
    provider = LocalProvider(MODEL)
    question = OptionsQuestion(text="Is the sky blue on a clear day?", options=("Yes", "No way"))
    first = OptionsRequest(system="You answer questions about the world truthfully. " * 8,
                           context="A question follows.\n\n", questions=(question, question))
    other = first.model_copy(update={"context": "Another context.\n\n"})
    a = await provider.score_options(first)
    b = await provider.score_options(other)
    assert b.cached_input_tokens > 0  # the system part was kept
    await provider.chat(ChatRequest(
        messages=(ChatMessage(role="user", content="Say hi."),),
        settings=GenerationSettings(max_tokens=4)))
    c = await provider.score_options(first)  # after a generation: evaluated anew, same numbers
    assert a.logprobs == c.logprobs
    assert a.logprobs[0] == a.logprobs[1]  # each question from the same state
    assert [len(option) for option in a.logprobs[0]] == [1, 2]  # "Yes"; "No", " way"
    assert all(-50 < value < 0 for option in a.logprobs[0] for value in option)
    assert a.logprobs != b.logprobs


async def test_the_engine_explains_its_choice_and_detects_an_aggregation(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout
    target = LLMTarget(f"local:{MODEL}")
    assert target.prompts.mode == "likelihood"
    case = scenario.case_named("aggregation_instead_of_composition")
    perfect = scenario.case_named("perfect_solution")
    assert case is not None and perfect is not None
    await target.open()
    try:
        first = await target.feedback(scenario, case)
        await target.feedback(scenario, perfect)
        again = await target.feedback(scenario, case)
    finally:
        await target.close()
    returned = [item.structured_grading_instruction_id for item in first.feedback]
    # The prototype's finding, reproduced: the calibrated rule sees the aggregation.
    assert sorted(i for i in returned if i is not None) == sorted(case.expected)
    assert [f.meta for f in again.feedback] == [f.meta for f in first.feedback]
    for item, criterion in zip(first.feedback, scenario.criteria, strict=True):
        why = item.meta["likelihood"]
        assert why["chosen"] == item.structured_grading_instruction_id
        assert [o["id"] for o in why["options"]] == [i.id for i in criterion.instructions]
        assert why["margin"] == 0.5 and why["calibration"] == "example solution"
    (usage,) = first.usage
    assert usage.num_output_tokens == 0 and usage.num_input_tokens > 0
