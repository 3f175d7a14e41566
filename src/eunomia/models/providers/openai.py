"""The ``openai`` provider: any OpenAI-compatible chat-completions endpoint, over aiohttp.

Works with OpenAI, Azure OpenAI (``api_key_header: api-key`` and an ``api-version``
query parameter), vLLM, Ollama, the llama.cpp server, LM Studio, OpenRouter...
Written on aiohttp directly: the openai SDK's httpx transport measured 3-10x
slower at 100 requests in flight.

Failures become :class:`~eunomia.scheduler.CallError`: connection errors,
timeouts, 408/425/429 and 5xx are retryable (429 also ``rate_limited``, with
``retry_after`` from the ``Retry-After`` header); other statuses are not.

An answer is never taken as empty unless it was read as such: a streamed request answered
with one plain JSON body (servers and proxies that ignore ``"stream": true``) is read as
JSON, without a time to the first token; an empty body, a stream that stops before its end
(no ``finish_reason``, no ``[DONE]``), a body that is neither events nor JSON, or an answer
without ``message.content`` is a failed call with its reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import aiohttp
import orjson

from eunomia import defaults
from eunomia.bounds import token_count
from eunomia.errors import redact
from eunomia.jsonbody import loads_fast
from eunomia.models._json import JSONExtractionError, parse_json_answer
from eunomia.models._types import ChatRequest, ChatResult, Usage
from eunomia.models.providers._scores import logprob_entries, openai_positions, score_distribution
from eunomia.scheduler import (
    CallError,
    capped,
    charset_of,
    parse_retry_after,
    read_body,
    read_start,
    retryable_status,
)

_ERROR_BODY_MAX = 300
TOP_LOGPROBS = 20
"""Alternatives asked per answer token with ``score_logprobs`` (OpenAI's largest)."""


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
        self.logprobs_refused = False
        """Set when the server refused ``logprobs``: later calls do not ask for them."""

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
        if request.score_logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = TOP_LOGPROBS
        body.update(self._extra_body)
        return body

    async def chat(self, request: ChatRequest) -> ChatResult:
        """The answer. A server that refuses ``logprobs`` (HTTP 400 naming them: reasoning
        models, some proxies) is asked again without, once; the answer then has no score
        distribution (the judge says its weighted score is not available)."""
        if request.score_logprobs and self.logprobs_refused:
            return await self._chat(request.model_copy(update={"score_logprobs": None}))
        try:
            return await self._chat(request)
        except CallError as exc:
            if not request.score_logprobs or exc.status != 400 \
                    or "logprob" not in exc.reason.lower():
                raise
        self.logprobs_refused = True
        return await self._chat(request.model_copy(update={"score_logprobs": None}))

    async def _chat(self, request: ChatRequest) -> ChatResult:
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
                payload = await _read_json(response, self.url, self.name)
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
        # an error page: its start is all a reason shows
        text = (await read_start(response)).decode(charset_of(response), "replace")
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
        """Read server-sent events: ``data: {chunk}`` lines until ``data: [DONE]``.

        A body without any ``data:`` line is read as one JSON answer (a server that does not
        stream), or fails the call: it is never taken for an empty answer."""
        parts: list[str] = []
        logprobs: list[Any] = []
        first_token_at: float | None = None
        usage: dict[str, Any] | None = None
        model = self.model
        finish_reason: str | None = None
        events = 0
        choices = 0

        def feed(line: bytes) -> bool:
            """Handle one SSE line; True at ``data: [DONE]``."""
            nonlocal first_token_at, usage, model, finish_reason, events, choices
            data = line.strip()
            if not data.startswith(b"data:"):
                return False  # comments, event names, keep-alives, blank separators
            events += 1
            data = data[5:].strip()
            if data == b"[DONE]":
                return True
            chunk = _json_body(data.decode("utf-8", "replace"), self.url, response.status)
            if not isinstance(chunk, dict):
                raise CallError(f"{self.name}: a stream event of {self.url} is not a JSON "
                                f"object: {_short(chunk)}", retryable=True)
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
                if not isinstance(choice, dict):
                    continue
                choices += 1
                # a delta, or (some servers) the whole message in one event
                piece = choice.get("delta") or choice.get("message") or {}
                content = piece.get("content") if isinstance(piece, dict) else None
                if content:
                    if first_token_at is None:
                        first_token_at = time.perf_counter()
                    parts.append(content)
                logprobs.extend(logprob_entries(choice))
                if choice.get("finish_reason"):
                    finish_reason = choice["finish_reason"]
            return False

        buffer = b""
        head = bytearray()  # the body while no event came: read as JSON if none comes
        done = False
        async for block in capped(response, self.name):
            if not events:
                head += block
            buffer += block
            while b"\n" in buffer and not done:
                line, buffer = buffer.split(b"\n", 1)
                done = feed(line)
            if done:
                break
        if not done and buffer.strip():
            done = feed(buffer)  # a last line without its newline
        if not events:
            return self._not_streamed(bytes(head), response, request, started)
        if not choices:
            raise CallError(f"{self.name}: the stream from {self.url} holds no answer "
                            f"({events} event(s), none with a choice)", retryable=True)
        if not done and finish_reason is None:
            raise CallError(f"{self.name}: the stream from {self.url} ended before the answer "
                            f"did (no finish_reason, no [DONE]) after {len(parts)} piece(s)",
                            retryable=True)
        payload = {
            "model": model,
            "choices": [{"message": {"content": "".join(parts)}, "finish_reason": finish_reason,
                         "logprobs": {"content": logprobs}}],
            "usage": usage or {},
        }
        ttft = None if first_token_at is None else first_token_at - started
        return self._result(payload, request, started, ttft)

    def _not_streamed(self, body: bytes, response: aiohttp.ClientResponse,
                      request: ChatRequest, started: float) -> ChatResult:
        """A streamed request answered without any event: one JSON answer (no time to the
        first token: the server did not stream), or a failed call."""
        if not body.strip():
            raise CallError(f"{self.name}: HTTP {response.status} from {self.url} with an empty "
                            "body to a streamed request: no answer to read", retryable=True,
                            status=response.status)
        # the body was read from the stream, so aiohttp cannot guess a missing charset
        # (get_encoding() raises RuntimeError then, e.g. for a proxy's "text/html")
        text = body.decode(charset_of(response), "replace")
        try:
            payload = json.loads(text)
        except json.JSONDecodeError:
            raise CallError(
                f"{self.name}: the answer of {self.url} to a streamed request is neither "
                f"server-sent events nor JSON: {_short(text)}", retryable=True,
                status=response.status) from None
        if isinstance(payload, dict) and "error" in payload:
            raise CallError(redact(f"{self.name}: error from {self.url}: {_error_detail(text)}",
                                   [self._secret]), retryable=True, status=response.status)
        return self._result(payload, request, started, None)

    def _result(
        self, payload: Any, request: ChatRequest, started: float, ttft: float | None
    ) -> ChatResult:
        latency = time.perf_counter() - started
        try:
            choice = payload["choices"][0]
            message = choice["message"]
            text = message.get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise CallError(
                f"{self.name}: response without choices[0].message: {_short(payload)}",
                retryable=False,
            ) from None
        if not text and message.get("refusal"):
            refusal = message["refusal"]
            raise CallError(f"{self.name}: the model refused: {refusal}", retryable=False)
        finish = choice.get("finish_reason")
        if text is None or (not text and finish == "length"):
            # an answer not written (e.g. a reasoning model cut at max_tokens), never ""
            what = "no text" if text is None else "an empty text"
            raise CallError(
                f"{self.name}: the answer has {what} (choices[0].message.content; "
                f"finish_reason {finish!r}): {_short(payload)}", retryable=False)
        if not isinstance(text, str):
            raise CallError(f"{self.name}: choices[0].message.content is not text: "
                            f"{_short(text)}", retryable=False)
        parsed: Any | None = None
        if request.json_schema is not None:
            try:
                parsed = parse_json_answer(text, request.json_schema)
            except JSONExtractionError as exc:
                cut_off = finish == "length"
                cut = " (answer cut at max_tokens)" if cut_off else ""
                raise CallError(f"{self.name}: {exc}{cut}", retryable=False,
                                answer_text=text) from None
        return ChatResult(
            text=text,
            parsed=parsed,
            usage=self._usage(payload.get("usage")),
            latency_s=latency,
            time_to_first_token_s=ttft,
            model=str(payload.get("model") or self.model),
            score_distribution=score_distribution(
                openai_positions(logprob_entries(choice)), request.score_logprobs)
            if request.score_logprobs else None,
        )

    def _usage(self, raw: Any) -> Usage:
        """The answer's token counts; an impossible one (``NaN``, ``Infinity``, ``-5``,
        ``1.5``) fails the call, naming the field, never read as 0 or rounded."""
        if not isinstance(raw, dict):
            return Usage()
        details = raw.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        try:
            return Usage(
                input_tokens=_count(raw.get("prompt_tokens"), "usage.prompt_tokens"),
                output_tokens=_count(raw.get("completion_tokens"), "usage.completion_tokens"),
                cached_input_tokens=_count(cached, "usage.prompt_tokens_details.cached_tokens"),
            )
        except ValueError as exc:
            raise CallError(f"{self.name}: the answer has an impossible number: {exc}",
                            retryable=False, label="impossible number") from None

    async def close(self) -> None:
        if self._session is not None and self._owns_session and not self._session.closed:
            await self._session.close()
        self._session = None


def _count(value: Any, where: str) -> int:
    """A token count of the answer; absent (null) reads as 0, as before."""
    return 0 if value is None else token_count(value, where)


def _dumps(body: dict[str, Any]) -> bytes:
    """The request body (``Content-Type: application/json`` is among the headers)."""
    try:
        return orjson.dumps(body)
    except (TypeError, orjson.JSONEncodeError):  # e.g. an extra_body orjson cannot encode
        return json.dumps(body).encode()


async def _read_json(response: aiohttp.ClientResponse, url: str, name: str) -> Any:
    """The decoded JSON answer (read within the response limit): orjson on the bytes when they
    are UTF-8 (as JSON is), else (or when orjson refuses them) the text in its declared
    charset, through the json module."""
    raw = await read_body(response, name)
    encoding = charset_of(response)
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
