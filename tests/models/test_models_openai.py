"""Contract tests of the OpenAI-compatible provider against a local aiohttp server."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from tests.models.conftest import STREAM_DELAY_S, FakeOpenAI

from eunomia.models import ChatMessage, ChatRequest, GenerationSettings
from eunomia.models.providers.openai import OpenAIProvider
from eunomia.scheduler import CallError, RetryPolicy, call_with_retry

SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["correct", "incorrect"]},
        "points": {"type": "integer"},
    },
    "required": ["verdict", "points"],
}


def request(**kwargs: Any) -> ChatRequest:
    return ChatRequest(
        messages=(
            ChatMessage(role="system", content="You grade."),
            ChatMessage(role="user", content="2+2=4?"),
        ),
        **kwargs,
    )


@pytest_asyncio.fixture
async def provider_factory(fake_openai: FakeOpenAI) -> AsyncIterator[type[OpenAIProvider]]:
    made: list[OpenAIProvider] = []

    class Made(OpenAIProvider):
        def __init__(self, model: str, **kwargs: object) -> None:
            kwargs.setdefault("base_url", fake_openai.url)
            kwargs.setdefault("api_key", "sk-test-secret")
            super().__init__(model, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    yield Made
    for p in made:
        await p.close()


async def test_plain_answer_and_usage(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    provider = provider_factory("ok")
    result = await provider.chat(request(settings=GenerationSettings(max_tokens=50, seed=7)))
    assert result.text == "Hello there, student."
    assert result.parsed is None
    assert result.model == "ok-2024-07-18"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (31, 9)
    assert result.usage.cached_input_tokens == 16
    assert result.latency_s > 0
    assert result.time_to_first_token_s is None
    body = fake_openai.requests[0]
    assert body["messages"] == [
        {"role": "system", "content": "You grade."},
        {"role": "user", "content": "2+2=4?"},
    ]
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 50
    assert body["seed"] == 7
    assert "stream" not in body and "response_format" not in body
    assert fake_openai.headers[0]["Authorization"] == "Bearer sk-test-secret"


async def test_json_schema_sent_and_answer_parsed(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    provider = provider_factory("json")
    result = await provider.chat(request(json_schema=SCHEMA))
    assert fake_openai.requests[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA, "strict": False},
    }
    assert result.parsed == {"verdict": "correct", "points": 2}


async def test_rate_limit_surfaces_retry_after(provider_factory: type[OpenAIProvider]) -> None:
    provider = provider_factory("ratelimit")
    with pytest.raises(CallError) as info:
        await provider.chat(request())
    err = info.value
    assert err.status == 429
    assert err.retryable and err.rate_limited
    assert err.retry_after == 7.0
    assert "Rate limit reached" in err.reason


async def test_server_error_is_retryable(provider_factory: type[OpenAIProvider]) -> None:
    with pytest.raises(CallError) as info:
        await provider_factory("boom").chat(request())
    assert info.value.status == 500
    assert info.value.retryable and not info.value.rate_limited


async def test_bad_request_is_not_retried(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    provider = provider_factory("bad")
    with pytest.raises(CallError) as info:
        await call_with_retry(lambda: provider.chat(request()), RetryPolicy(retries=3))
    assert info.value.status == 400
    assert not info.value.retryable
    assert info.value.attempts == 1
    assert len(fake_openai.requests) == 1
    assert "Invalid schema" in info.value.reason
    assert "sk-test-secret" not in str(info.value)


async def test_retry_policy_retries_server_errors(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    provider = provider_factory("boom")  # answers 500
    policy = RetryPolicy(retries=2, backoff_initial_s=0.001, backoff_max_s=0.01)
    with pytest.raises(CallError) as info:  # a 500 is not retried unless asked
        await call_with_retry(lambda: provider.chat(request()), policy)
    assert info.value.attempts == 1 and info.value.attempt_log == ("HTTP 500",)
    assert len(fake_openai.requests) == 1
    with pytest.raises(CallError) as info:  # --retry-500
        await call_with_retry(lambda: provider.chat(request()),
                              dataclasses.replace(policy, retry_500=True))
    assert info.value.attempts == 3
    assert info.value.attempt_log == ("HTTP 500", "HTTP 500", "HTTP 500")
    assert len(fake_openai.requests) == 4


async def test_non_json_body_is_a_call_error(provider_factory: type[OpenAIProvider]) -> None:
    with pytest.raises(CallError) as info:
        await provider_factory("html").chat(request())
    assert "not JSON" in info.value.reason
    assert info.value.status == 200


async def test_missing_choices_is_a_call_error(provider_factory: type[OpenAIProvider]) -> None:
    with pytest.raises(CallError) as info:
        await provider_factory("nochoices").chat(request())
    assert not info.value.retryable


async def test_connection_refused_is_retryable() -> None:
    provider = OpenAIProvider("ok", base_url="http://127.0.0.1:9/v1")
    try:
        with pytest.raises(CallError) as info:
            await provider.chat(request())
    finally:
        await provider.close()
    assert info.value.retryable
    assert info.value.status is None


async def test_streaming_measures_time_to_first_token(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    provider = provider_factory("ok")
    result = await provider.chat(request(stream=True))
    body = fake_openai.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert result.text == "Hello there, student."
    assert result.time_to_first_token_s is not None
    assert STREAM_DELAY_S * 0.9 <= result.time_to_first_token_s <= result.latency_s
    assert (result.usage.input_tokens, result.usage.output_tokens) == (12, 7)


async def test_streaming_json_answer_is_parsed(provider_factory: type[OpenAIProvider]) -> None:
    result = await provider_factory("json").chat(request(stream=True, json_schema=SCHEMA))
    assert result.parsed == {"verdict": "correct", "points": 2}


async def test_error_inside_stream(provider_factory: type[OpenAIProvider]) -> None:
    with pytest.raises(CallError, match="overloaded, try later") as info:
        await provider_factory("streamerr").chat(request(stream=True))
    assert info.value.retryable


async def test_stream_without_usage_option(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    provider = provider_factory("ok", stream_usage=False)
    result = await provider.chat(request(stream=True))
    assert "stream_options" not in fake_openai.requests[0]
    assert result.usage.input_tokens == 0


async def test_azure_style_key_header_and_query(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    provider = provider_factory(
        "ok", api_key="azure-key-1234", api_key_header="api-key", query={"api-version": "2024"}
    )
    await provider.chat(request())
    assert fake_openai.headers[0]["api-key"] == "azure-key-1234"
    assert "Authorization" not in fake_openai.headers[0]
    assert fake_openai.queries[0] == {"api-version": "2024"}


async def test_max_completion_tokens_field(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    await provider_factory("ok", max_tokens_field="max_completion_tokens").chat(request())
    body = fake_openai.requests[0]
    assert body["max_completion_tokens"] == 1024 and "max_tokens" not in body


async def test_no_key_sends_no_authorization(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    await provider_factory("ok", api_key=None).chat(request())
    assert "Authorization" not in fake_openai.headers[0]


async def test_many_requests_in_flight(
    fake_openai: FakeOpenAI, provider_factory: type[OpenAIProvider]
) -> None:
    import asyncio

    provider = provider_factory("ok")
    results = await asyncio.gather(*(provider.chat(request()) for _ in range(50)))
    assert len({r.text for r in results}) == 1
    assert len(fake_openai.requests) == 50
