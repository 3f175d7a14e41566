"""The ``openai`` provider: any OpenAI-compatible chat-completions endpoint, over aiohttp.

Works with OpenAI, Azure OpenAI (``api_key_header: api-key`` and an ``api-version``
query parameter), vLLM, Ollama, the llama.cpp server, LM Studio, OpenRouter...
Written on aiohttp directly: the openai SDK's httpx transport measured 3-10x
slower at 100 requests in flight.

Failures become :class:`~eunomia.scheduler.CallError`: connection errors,
timeouts, 408/425/429 and 5xx are retryable (429 also ``rate_limited``, with
``retry_after`` from the ``Retry-After`` header); other statuses are not.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import aiohttp
import orjson

from eunomia import defaults
from eunomia.errors import redact
from eunomia.jsonbody import loads_fast
from eunomia.models._json import JSONExtractionError, parse_json_answer
from eunomia.models._types import ChatRequest, ChatResult, Usage
from eunomia.scheduler import CallError, parse_retry_after, retryable_status

_ERROR_BODY_MAX = 300


class OpenAIProvider:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = defaults.OPENAI_BASE_URL,
        api_key: str | None = None,
        api_key_header: str = "Authorization",
        headers: Mapping[str, str] | None = None,
        query: Mapping[str, str] | None = None,
        json_schema_strict: bool = False,
        stream_usage: bool = True,
        max_tokens_field: str = "max_tokens",
        extra_body: Mapping[str, Any] | None = None,
        name: str | None = None,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        """``api_key`` is sent as ``Authorization: Bearer <key>`` (or raw in ``api_key_header``).

        ``stream_usage`` asks streamed answers to end with a usage chunk
        (``stream_options.include_usage``); turn it off for servers that reject it.
        ``extra_body`` is merged into every request body (e.g. ``{"top_k": 20}`` for vLLM).
        ``max_tokens_field`` is ``max_completion_tokens`` for OpenAI models that reject
        ``max_tokens``.
        """
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self._headers: dict[str, str] = {"Content-Type": "application/json", **(headers or {})}
        self._secret = api_key or ""
        if api_key:
            if api_key_header.lower() == "authorization":
                self._headers["Authorization"] = f"Bearer {api_key}"
            else:
                self._headers[api_key_header] = api_key
        self._query = dict(query or {})
        self.json_schema_strict = json_schema_strict
        self.stream_usage = stream_usage
        self.max_tokens_field = max_tokens_field
        self._extra_body = dict(extra_body or {})
        self._name = name or f"openai:{model}"
        self._session = session
        self._owns_session = session is None

    @property
    def name(self) -> str:
        return self._name

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # No connection cap here: the scheduler's limiter decides how many are in flight.
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(connector=connector)
            self._owns_session = True
        return self._session

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body sent for ``request`` (public for tests and debugging)."""
        s = request.settings
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
            "temperature": s.temperature,
            self.max_tokens_field: s.max_tokens,
        }
        if s.top_p is not None:
            body["top_p"] = s.top_p
        if s.seed is not None:
            body["seed"] = s.seed
        if s.stop:
            body["stop"] = list(s.stop)
        if request.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": str(request.json_schema.get("title") or "answer"),
                    "schema": request.json_schema,
                    "strict": self.json_schema_strict,
                },
            }
        if request.stream:
            body["stream"] = True
            if self.stream_usage:
                body["stream_options"] = {"include_usage": True}
        body.update(self._extra_body)
        return body

    async def chat(self, request: ChatRequest) -> ChatResult:
        session = self._session_now()
        body = self.request_body(request)
        started = time.perf_counter()
        try:
            async with session.post(
                self.url, data=_dumps(body), headers=self._headers, params=self._query or None
            ) as response:
                if response.status >= 400:
                    raise await self._status_error(response)
                if request.stream:
                    return await self._read_stream(response, request, started)
                payload = await _read_json(response, self.url)
                return self._result(payload, request, started, None)
        except CallError:
            raise
        except (TimeoutError, aiohttp.ServerTimeoutError):
            raise CallError(f"{self.name}: timed out", retryable=True) from None
        except aiohttp.ClientPayloadError as exc:
            raise CallError(f"{self.name}: broken response: {exc}", retryable=True) from None
        except aiohttp.ClientError as exc:
            reason = redact(f"{type(exc).__name__}: {exc}", [self._secret])
            raise CallError(f"{self.name}: connection failed: {reason}", retryable=True) from None

    async def _status_error(self, response: aiohttp.ClientResponse) -> CallError:
        status = response.status
        try:
            text = await response.text()
        except (aiohttp.ClientError, UnicodeDecodeError):
            text = ""
        detail = _error_detail(text)
        reason = redact(f"{self.name}: HTTP {status} from {self.url}: {detail}", [self._secret])
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is None and "retry-after-ms" in response.headers:
            try:
                retry_after = max(0.0, float(response.headers["retry-after-ms"]) / 1000.0)
            except ValueError:
                retry_after = None
        return CallError(
            reason,
            retryable=retryable_status(status),
            status=status,
            retry_after=retry_after,
            rate_limited=status == 429,
        )

    async def _read_stream(
        self, response: aiohttp.ClientResponse, request: ChatRequest, started: float
    ) -> ChatResult:
        """Read server-sent events: ``data: {chunk}`` lines until ``data: [DONE]``."""
        parts: list[str] = []
        first_token_at: float | None = None
        usage: dict[str, Any] | None = None
        model = self.model
        finish_reason: str | None = None

        def feed(line: bytes) -> bool:
            """Handle one SSE line; True at ``data: [DONE]``."""
            nonlocal first_token_at, usage, model, finish_reason
            data = line.strip()
            if not data.startswith(b"data:"):
                return False  # comments, event names, keep-alives, blank separators
            data = data[5:].strip()
            if data == b"[DONE]":
                return True
            chunk = _json_body(data.decode("utf-8", "replace"), self.url, response.status)
            if not isinstance(chunk, dict):
                return False
            if "error" in chunk:
                detail = _error_detail(data.decode("utf-8", "replace"))
                raise CallError(
                    redact(f"{self.name}: error in stream: {detail}", [self._secret]),
                    retryable=True,
                )
            model = chunk.get("model") or model
            if chunk.get("usage"):
                usage = chunk["usage"]
            for choice in chunk.get("choices") or ():
                content = (choice.get("delta") or {}).get("content")
                if content:
                    if first_token_at is None:
                        first_token_at = time.perf_counter()
                    parts.append(content)
                if choice.get("finish_reason"):
                    finish_reason = choice["finish_reason"]
            return False

        buffer = b""
        done = False
        async for block in response.content.iter_any():
            buffer += block
            while b"\n" in buffer and not done:
                line, buffer = buffer.split(b"\n", 1)
                done = feed(line)
            if done:
                break
        if not done and buffer.strip():
            feed(buffer)  # a last line without its newline
        payload = {
            "model": model,
            "choices": [{"message": {"content": "".join(parts)}, "finish_reason": finish_reason}],
            "usage": usage or {},
        }
        ttft = None if first_token_at is None else first_token_at - started
        return self._result(payload, request, started, ttft)

    def _result(
        self, payload: Any, request: ChatRequest, started: float, ttft: float | None
    ) -> ChatResult:
        latency = time.perf_counter() - started
        try:
            choice = payload["choices"][0]
            message = choice.get("message") or {}
            text = message.get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise CallError(
                f"{self.name}: response without choices[0].message: {_short(payload)}",
                retryable=False,
            ) from None
        if not text and message.get("refusal"):
            refusal = message["refusal"]
            raise CallError(f"{self.name}: the model refused: {refusal}", retryable=False)
        parsed: Any | None = None
        if request.json_schema is not None:
            try:
                parsed = parse_json_answer(text, request.json_schema)
            except JSONExtractionError as exc:
                cut_off = choice.get("finish_reason") == "length"
                cut = " (answer cut at max_tokens)" if cut_off else ""
                raise CallError(f"{self.name}: {exc}{cut}", retryable=False,
                                answer_text=text) from None
        return ChatResult(
            text=text,
            parsed=parsed,
            usage=_usage(payload.get("usage")),
            latency_s=latency,
            time_to_first_token_s=ttft,
            model=str(payload.get("model") or self.model),
        )

    async def close(self) -> None:
        if self._session is not None and self._owns_session and not self._session.closed:
            await self._session.close()
        self._session = None


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cached_input_tokens=int(cached or 0),
    )


def _dumps(body: dict[str, Any]) -> bytes:
    """The request body (``Content-Type: application/json`` is among the headers)."""
    try:
        return orjson.dumps(body)
    except (TypeError, orjson.JSONEncodeError):  # e.g. an extra_body orjson cannot encode
        return json.dumps(body).encode()


async def _read_json(response: aiohttp.ClientResponse, url: str) -> Any:
    """The decoded JSON answer: orjson on the bytes when they are UTF-8 (as JSON is), else
    (or when orjson refuses them) the text as aiohttp decodes it, through the json module."""
    raw = await response.read()
    encoding = response.get_encoding()  # what response.text() decodes with
    return loads_fast(raw, lambda: _json_body(raw.decode(encoding), url, response.status),
                      utf8=encoding.lower() in ("utf-8", "utf8"))


def _json_body(text: str, url: str, status: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # A proxy or gateway page instead of the API's answer: usually transient.
        raise CallError(
            f"HTTP {status} from {url} is not JSON: {_short(text)}", retryable=True, status=status
        ) from None


def _error_detail(text: str) -> str:
    """The ``error.message`` of an OpenAI-style error body, else the start of the body."""
    try:
        payload = json.loads(text)
    except json.JSONDecodeError:
        return _short(text)
    if isinstance(payload, dict):
        err = payload.get("error")
        if isinstance(err, dict) and err.get("message"):
            return _short(str(err["message"]))
        if isinstance(err, str):
            return _short(err)
    return _short(text)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= _ERROR_BODY_MAX else text[: _ERROR_BODY_MAX - 3] + "..."
