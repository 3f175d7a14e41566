"""Answers through the real HTTP server equal the in-process answers of the same model.

Eunomia's own ``openai`` provider (what ``openai:<model>`` specs use) and a raw aiohttp
client ask the server; :class:`LocalProvider` answers the same request in-process. Text,
token counts and the model name must be identical, streamed or not.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from tests.model_server.conftest import ALIASES, MODEL, SPEC, Server, running

from eunomia.model_server import ServedModel
from eunomia.models import ChatMessage, ChatRequest, ChatResult, GenerationSettings
from eunomia.models.providers.local import JSON_OBJECT_SCHEMA, LocalProvider
from eunomia.models.providers.openai import OpenAIProvider

pytestmark = pytest.mark.slow

SYSTEM = ("You grade short answers of first-year students. Decide whether the answer is "
          "correct, award between zero and three points and name at most two issues. "
          "Be strict about facts and lenient about spelling. Reply with JSON only.")
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["correct", "partially_correct", "incorrect"]},
        "points": {"type": "integer", "enum": [0, 1, 2, 3]},
        "issues": {"type": "array", "items": {"type": "string", "maxLength": 30},
                   "maxItems": 2},
    },
    "required": ["verdict", "points", "issues"],
}


def request(user: str, *, system: str | None = SYSTEM, schema: dict[str, Any] | None = None,
            stream: bool = False, **settings: Any) -> ChatRequest:
    messages = [ChatMessage(role="user", content=user)]
    if system is not None:
        messages.insert(0, ChatMessage(role="system", content=system))
    return ChatRequest(messages=tuple(messages), json_schema=schema, stream=stream,
                       settings=GenerationSettings(**{"max_tokens": 40, **settings}))


@pytest_asyncio.fixture
async def client(server: Server) -> AsyncIterator[OpenAIProvider]:
    provider = OpenAIProvider(ALIASES[0], base_url=server.url)
    try:
        yield provider
    finally:
        await provider.close()


def same_answer(remote: ChatResult, local: ChatResult) -> None:
    assert remote.text == local.text
    assert remote.parsed == local.parsed
    assert remote.model == local.model == MODEL
    assert remote.usage.input_tokens == local.usage.input_tokens > 0
    assert remote.usage.output_tokens == local.usage.output_tokens > 0
    assert 0 <= remote.usage.cached_input_tokens < remote.usage.input_tokens


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_answers_equal_in_process_answers(client: OpenAIProvider, stream: bool) -> None:
    local = LocalProvider(MODEL)
    cases = [
        request("Question: What is 2 + 2? Student answer: 5.", schema=SCHEMA, stream=stream),
        request("Question: Name the capital of France. Student answer: Paris.", stream=stream),
        request("List three colours.", system=None, stream=stream, max_tokens=12),
        request("Write one sentence about tests.", system=None, stream=stream,
                temperature=0.9, seed=7, top_p=0.8),
        request("Count: one, two, three,", system=None, stream=stream, stop=(" five",)),
    ]
    for req in cases:
        remote = await client.chat(req)
        same_answer(remote, await local.chat(req))
        if stream:
            assert remote.time_to_first_token_s is not None
    # the same request again, after others: the same answer (no history in the model state)
    assert (await client.chat(cases[0])).text == (await local.chat(cases[0])).text


async def test_json_schema_answers_follow_the_schema(client: OpenAIProvider) -> None:
    for user in ("Question: What is 2 + 2? Student answer: 4.",
                 "Question: Explain a Python list comprehension. Student answer: a loop."):
        result = await client.chat(request(user, schema=SCHEMA, max_tokens=80))
        answer = json.loads(result.text)  # strict JSON, not only tolerantly parsed
        assert set(SCHEMA["required"]) <= set(answer)
        assert answer["verdict"] in SCHEMA["properties"]["verdict"]["enum"]
        assert answer["points"] in {0, 1, 2, 3}
        assert len(answer["issues"]) <= 2
        assert all(isinstance(issue, str) and len(issue) <= 30 for issue in answer["issues"])
        assert result.parsed == answer


def athena_body(user: str, system: str = SYSTEM) -> dict[str, Any]:
    """Exactly the body Athena's modeling module sends (langchain + openai-python 1.51)."""
    return {"messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
            "model": ALIASES[0], "frequency_penalty": 0.0, "max_tokens": 1000, "n": 1,
            "presence_penalty": 0.0, "response_format": {"type": "json_object"},
            "stream": False, "temperature": 0.0, "top_p": 1.0}


ATHENA_SYSTEM = 'You grade student answers. Return {"feedbacks": []} as JSON.'
ATHENA_USER = "Please return the feedback in the correct output json format:"


async def test_athena_request_shape_gets_a_json_object(server: Server) -> None:
    """The module's exact parameters (json_object, max_tokens 1000, penalties 0, n 1, top_p
    1), with a prompt gemma answers briefly (the real prompt: test_athena_module.py)."""
    status, body = await server.post(athena_body(ATHENA_USER, ATHENA_SYSTEM))
    assert status == 200, body
    content = body["choices"][0]["message"]["content"]
    assert isinstance(json.loads(content), dict)
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["model"] == MODEL
    # json_object is the schema "any object" in-process
    local = await LocalProvider(MODEL).chat(request(ATHENA_USER, system=ATHENA_SYSTEM,
                                                    schema=JSON_OBJECT_SCHEMA,
                                                    max_tokens=1000, temperature=0.0,
                                                    top_p=1.0))
    assert content == local.text
    usage = body["usage"]
    assert usage["prompt_tokens"] == local.usage.input_tokens
    assert usage["completion_tokens"] == local.usage.output_tokens
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


async def test_json_object_answers_are_json_objects(server: Server) -> None:
    for user in ("Describe a cat as JSON.", "Return the numbers 1 to 3 as JSON.",
                 "Write a poem about rain."):
        body = {**athena_body(user), "max_tokens": 60}
        status, answer = await server.post(body)
        assert status == 200, answer
        choice = answer["choices"][0]
        if choice["finish_reason"] == "stop":  # complete: strict JSON, an object
            assert isinstance(json.loads(choice["message"]["content"]), dict)
        else:  # cut at max_tokens: the start of an object
            assert choice["finish_reason"] == "length"
            assert choice["message"]["content"].startswith("{")
            assert answer["usage"]["completion_tokens"] == 60


async def test_max_tokens_and_max_completion_tokens_cut_the_answer(server: Server) -> None:
    base = {"model": ALIASES[1], "messages": [{"role": "user", "content": "Count to fifty."}]}
    answers = []
    for limit in ({"max_tokens": 7}, {"max_completion_tokens": 7}):
        status, body = await server.post({**base, **limit})
        assert status == 200, body
        assert body["choices"][0]["finish_reason"] == "length"
        assert body["usage"]["completion_tokens"] == 7
        answers.append(body["choices"][0]["message"]["content"])
    assert answers[0] == answers[1]


async def test_omitted_settings_are_the_served_models_own() -> None:
    """A request without temperature, seed or max_tokens gets the served spec's settings
    (from models.yml; by default temperature 0 and a fixed seed)."""
    own = GenerationSettings(temperature=0.8, seed=11, max_tokens=9)
    model = ServedModel(LocalProvider(MODEL), SPEC, settings=own)
    messages = [{"role": "user", "content": "Write a sentence about a colour."}]
    async with running(model=model) as server:
        answers = [await server.post({"model": SPEC, "messages": messages}) for _ in range(2)]
    local = await LocalProvider(MODEL).chat(ChatRequest(
        messages=(ChatMessage(role="user", content=messages[0]["content"]),), settings=own))
    for status, body in answers:
        assert status == 200, body
        assert body["choices"][0]["message"]["content"] == local.text
        assert body["usage"]["completion_tokens"] == local.usage.output_tokens <= 9
    other_seed = await LocalProvider(MODEL).chat(ChatRequest(
        messages=(ChatMessage(role="user", content=messages[0]["content"]),),
        settings=own.model_copy(update={"seed": 12})))
    assert other_seed.text != local.text  # the seed mattered: the server used the spec's


async def test_developer_messages_and_text_parts_are_read_as_plain_messages(
        server: Server) -> None:
    """``developer`` is a system message; text parts are the message's text, joined by
    newlines; assistant turns are kept."""
    status, body = await server.post({"model": SPEC, "max_tokens": 12, "messages": [
        {"role": "developer", "content": SYSTEM},
        {"role": "user", "content": [{"type": "text", "text": "Question: 1 + 1?"},
                                     {"type": "text", "text": "Student answer: 2."}]},
        {"role": "assistant", "content": "Let me check."},
        {"role": "user", "content": "Go on.", "name": "student"}]})
    assert status == 200, body
    local = await LocalProvider(MODEL).chat(ChatRequest(messages=(
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content="Question: 1 + 1?\nStudent answer: 2."),
        ChatMessage(role="assistant", content="Let me check."),
        ChatMessage(role="user", content="Go on.")), settings=GenerationSettings(max_tokens=12)))
    assert body["choices"][0]["message"]["content"] == local.text
    assert body["usage"]["prompt_tokens"] == local.usage.input_tokens
