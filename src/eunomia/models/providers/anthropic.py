"""The ``anthropic`` provider: Claude models through the ``anthropic`` SDK (optional extra).

A JSON schema is enforced with a forced tool call (``tool_choice`` naming a
single ``answer`` tool whose ``input_schema`` is the schema); the tool input is
the parsed answer. The SDK's own retries are off: the scheduler retries.

An answer is never taken as empty unless it was read as such: a streamed request answered
without any event (an empty body, a server that does not stream), an answer without a
``content`` list, or one that stops before its end (no ``stop_reason``) is a failed call.

Sampling: recent SDKs (2.x) no longer accept ``temperature`` or ``top_p``, so
they are not sent; answers from Claude are therefore not guaranteed to be
reproducible. Where an API version still takes them, add them with the
endpoint's ``extra_body`` in the model config (``extra_body: {temperature: 0}``).
"""

from __future__ import annotations

import importlib
import json
import time
from typing import Any

from eunomia.bounds import token_count
from eunomia.errors import EunomiaError, redact
from eunomia.models._json import JSONExtractionError, check_required, parse_json_answer
from eunomia.models._types import ChatRequest, ChatResult, Usage
from eunomia.scheduler import CallError, parse_retry_after, retryable_status

INSTALL_HINT = "pip install 'eunomia[anthropic]'"
_TOOL = "answer"


def import_anthropic() -> Any:
    """The ``anthropic`` module, or a clear error naming the install command."""
    try:
        return importlib.import_module("anthropic")
    except ImportError:
        raise EunomiaError(
            f"the anthropic provider needs the anthropic SDK, which is not installed. "
            f"Install it with:\n  {INSTALL_HINT}"
        ) from None


class AnthropicProvider:
    """A Claude model (``anthropic:<model>``)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        extra_body: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        self._sdk = import_anthropic()
        self.model = model
        self._secret = api_key or ""
        kwargs: dict[str, Any] = {"max_retries": 0}
        if api_key:
            kwargs["api_key"] = api_key
        if base_url:
            kwargs["base_url"] = base_url
        self._client: Any = self._sdk.AsyncAnthropic(**kwargs)
        self._extra_body = dict(extra_body or {})
        self._name = name or f"anthropic:{model}"

    @property
    def name(self) -> str:
        return self._name

    def request_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        """Arguments of ``messages.create`` for ``request``."""
        s = request.settings
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
            "max_tokens": s.max_tokens,
        }
        if system:
            kwargs["system"] = system
        if self._extra_body:
            kwargs["extra_body"] = dict(self._extra_body)
        if s.stop:
            kwargs["stop_sequences"] = list(s.stop)
        if request.json_schema is not None:
            kwargs["tools"] = [
                {
                    "name": _TOOL,
                    "description": "Give the answer in the required structure.",
                    "input_schema": request.json_schema,
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": _TOOL}
        return kwargs

    async def chat(self, request: ChatRequest) -> ChatResult:
        kwargs = self.request_kwargs(request)
        started = time.perf_counter()
        ttft: float | None = None
        try:
            if request.stream:
                events = 0
                async with self._client.messages.stream(**kwargs) as stream:
                    async for event in stream:
                        events += 1
                        if ttft is None and getattr(event, "type", "") == "content_block_delta":
                            ttft = time.perf_counter() - started
                    if not events:  # the SDK would fail on an assertion
                        raise CallError(
                            f"{self.name}: the answer to a streamed request holds no event (an "
                            "empty body, or a server that does not stream): no answer to read",
                            retryable=True)
                    message = await stream.get_final_message()
            else:
                message = await self._client.messages.create(**kwargs)
        except self._sdk.APIStatusError as exc:
            raise self._status_error(exc) from None
        except self._sdk.APITimeoutError:
            raise CallError(f"{self.name}: timed out", retryable=True) from None
        except self._sdk.APIConnectionError as exc:
            raise CallError(
                redact(f"{self.name}: connection failed: {exc}", [self._secret]), retryable=True
            ) from None
        return self._result(message, request, started, ttft)

    def _status_error(self, exc: Any) -> CallError:
        status = int(getattr(exc, "status_code", 0) or 0)
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        return CallError(
            redact(f"{self.name}: HTTP {status}: {getattr(exc, 'message', exc)}", [self._secret]),
            retryable=retryable_status(status) or status == 529,
            status=status,
            retry_after=parse_retry_after(headers.get("retry-after")),
            rate_limited=status == 429,
        )

    def _result(
        self, message: Any, request: ChatRequest, started: float, ttft: float | None
    ) -> ChatResult:
        latency = time.perf_counter() - started
        texts: list[str] = []
        tool_input: Any | None = None
        content = getattr(message, "content", None)
        if not isinstance(content, list):
            raise CallError(f"{self.name}: the answer has no content list: {str(message)[:300]}",
                            retryable=True)
        if getattr(message, "stop_reason", None) is None:
            raise CallError(f"{self.name}: the answer ended before it was complete (no "
                            "stop_reason)", retryable=True)
        for block in content:
            kind = getattr(block, "type", "")
            if kind == "text":
                texts.append(block.text)
            elif kind == "tool_use" and block.name == _TOOL:
                tool_input = block.input
        parsed: Any | None = None
        if request.json_schema is not None:
            if tool_input is not None:
                problems = check_required(tool_input, request.json_schema)
                if problems:
                    raise CallError(
                        f"{self.name}: the answer does not match the schema: "
                        + "; ".join(problems),
                        retryable=False,
                    )
                parsed = tool_input
                text = json.dumps(tool_input, ensure_ascii=False)
            else:
                text = "".join(texts)
                try:
                    parsed = parse_json_answer(text, request.json_schema)
                except JSONExtractionError as exc:
                    raise CallError(f"{self.name}: {exc}", retryable=False,
                                    answer_text=text) from None
        else:
            text = "".join(texts)
        u = getattr(message, "usage", None)

        def count(field: str) -> int:  # an impossible count fails the call, never read as 0
            value = getattr(u, field, None)
            return 0 if value is None else token_count(value, f"usage.{field}")

        try:
            cache_read = count("cache_read_input_tokens")
            cache_write = count("cache_creation_input_tokens")
            usage = Usage(
                # Anthropic counts cache reads and writes apart from input_tokens; ours
                # includes them.
                input_tokens=count("input_tokens") + cache_read + cache_write,
                output_tokens=count("output_tokens"),
                cached_input_tokens=cache_read,
            )
        except ValueError as exc:
            raise CallError(f"{self.name}: the answer has an impossible number: {exc}",
                            retryable=False, label="impossible number") from None
        return ChatResult(
            text=text,
            parsed=parsed,
            usage=usage,
            latency_s=latency,
            time_to_first_token_s=ttft,
            model=str(getattr(message, "model", None) or self.model),
        )

    async def close(self) -> None:
        await self._client.close()
