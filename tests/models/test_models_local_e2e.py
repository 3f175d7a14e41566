"""End to end on the smallest local model (gemma3-270m): needs the ``local`` extra and weights."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.support.local_model import require_local_model

from eunomia.models import ChatMessage, ChatRequest, GenerationSettings, get_model
from eunomia.models.providers.local import LocalProvider

MODEL = "gemma3-270m"
require_local_model(MODEL)

pytestmark = pytest.mark.slow

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["correct", "partially_correct", "incorrect"]},
        "points": {"type": "integer", "enum": [0, 1, 2, 3]},
        "issues": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["verdict", "points", "issues"],
}

PROMPTS = [
    "Question: What is 2 + 2? Student answer: 5.",
    "Question: Name the capital of France. Student answer: Paris.",
    "Question: Explain what a Python list comprehension is. Student answer: a loop in brackets.",
]


def grading(prompt: str, **settings: Any) -> ChatRequest:
    return ChatRequest(
        messages=(
            ChatMessage(role="system", content="You grade answers. Reply with JSON only."),
            ChatMessage(role="user", content=prompt),
        ),
        settings=GenerationSettings(max_tokens=80, **settings),
        json_schema=SCHEMA,
    )


async def test_schema_constrained_answers_always_parse() -> None:
    provider = get_model(f"local:{MODEL}")
    try:
        for prompt in PROMPTS:
            result = await provider.chat(grading(prompt))
            assert isinstance(result.parsed, dict), result.text
            assert result.parsed["verdict"] in {"correct", "partially_correct", "incorrect"}
            assert result.parsed["points"] in {0, 1, 2, 3}
            assert isinstance(result.parsed["issues"], list)
            assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
            assert result.model == MODEL
            assert result.time_to_first_token_s is not None
            assert 0 < result.time_to_first_token_s <= result.latency_s
    finally:
        await provider.close()


async def test_same_request_same_answer_within_a_process() -> None:
    provider = LocalProvider(MODEL)
    first = await provider.chat(grading(PROMPTS[0]))
    # Other requests in between would, without a state reset, leave a prompt-prefix
    # cache that changes the next answer.
    await provider.chat(grading(PROMPTS[1]))
    await provider.chat(
        ChatRequest(
            messages=(ChatMessage(role="user", content="Write two sentences about tests."),),
            settings=GenerationSettings(max_tokens=24),
        )
    )
    again = await provider.chat(grading(PROMPTS[0]))
    assert again.text == first.text
    assert again.usage == first.usage


async def test_calls_are_serialised_and_cancellable() -> None:
    provider = LocalProvider(MODEL)
    request = grading(PROMPTS[2])
    baseline = await provider.chat(request)
    results = await asyncio.gather(*(provider.chat(request) for _ in range(2)))
    assert {r.text for r in results} == {baseline.text}
    long = ChatRequest(
        messages=(ChatMessage(role="user", content="Count from 1 to 1000."),),
        settings=GenerationSettings(max_tokens=1000),
    )
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await provider.chat(long)
    # the cancelled generation stops, so the next call is not stuck behind it
    after = await asyncio.wait_for(provider.chat(request), timeout=baseline.latency_s * 5 + 5)
    assert after.text == baseline.text


LONG_SYSTEM = (
    "You grade short answers of first-year students. Read the question and the student's "
    "answer, decide whether the answer is correct, partially correct or incorrect, award "
    "between zero and three points, and list at most two concrete issues with the answer. "
    "Be strict about facts and lenient about spelling. Reply with JSON only."
)


def with_system(prompt: str, system: str = LONG_SYSTEM) -> ChatRequest:
    return ChatRequest(
        messages=(
            ChatMessage(role="system", content=system),
            ChatMessage(role="user", content=prompt),
        ),
        settings=GenerationSettings(max_tokens=60),
        json_schema=SCHEMA,
    )


async def test_a_shared_system_prompt_is_evaluated_once_without_changing_answers() -> None:
    provider = LocalProvider(MODEL)
    other_system = "Answer in one word. " + LONG_SYSTEM.replace("strict", "generous")
    first = await provider.chat(with_system(PROMPTS[0], other_system))  # a different prefix
    fresh = await provider.chat(with_system(PROMPTS[1]))  # evaluates the system part now
    assert fresh.usage.cached_input_tokens == 0
    reused = await provider.chat(with_system(PROMPTS[2]))
    again = await provider.chat(with_system(PROMPTS[1]))
    # the system part (most of the prompt) came from the previous call's state ...
    assert 40 < reused.usage.cached_input_tokens < reused.usage.input_tokens
    assert again.usage.cached_input_tokens == reused.usage.cached_input_tokens
    # ... and the answers are exactly those of a prompt evaluated from an empty state
    assert again.text == fresh.text
    assert again.usage.output_tokens == fresh.usage.output_tokens
    back = await provider.chat(with_system(PROMPTS[0], other_system))
    assert back.usage.cached_input_tokens == 0 and back.text == first.text


async def test_gemma_keeps_the_system_text_in_the_first_user_turn() -> None:
    provider = LocalProvider(MODEL)
    messages = provider._messages(with_system("Question: 1 + 1? Student answer: 2."))
    assert messages == [
        {"role": "user", "content": f"{LONG_SYSTEM}\n\nQuestion: 1 + 1? Student answer: 2."}
    ]
    only_system = ChatRequest(messages=(ChatMessage(role="system", content="Say hi."),))
    assert provider._messages(only_system) == [{"role": "user", "content": "Say hi."}]
