"""The HTTP exchange of an ``http:<name>`` system, shared by the model provider (task suites)
and the feedback target (scenarios): render the request, send it over aiohttp, read the
answer (JSON, server-sent events with their arrival times, or text) and read values out of
it with the configured JSONPaths.

Failures are :class:`~eunomia.scheduler.CallError`: connection errors, timeouts, 408/425/429
and 5xx are retryable (429 with ``Retry-After``), as are bodies that are not the JSON asked
for (usually a proxy's page); other statuses, templates that cannot be rendered and paths
that find nothing are not. Header values from the environment are secrets: removed from
every error text and from the decoded answer (a server may echo them), never in the
described request, the cache identity or the results.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import aiohttp
import orjson

from eunomia.bounds import token_count
from eunomia.errors import EunomiaError, redact
from eunomia.models._http_config import HttpEndpoint, UsagePaths
from eunomia.models._http_template import (
    RenderError,
    find_all,
    number_at,
    render_body,
    render_text,
)
from eunomia.scheduler import (
    CallError,
    capped,
    charset_of,
    parse_retry_after,
    read_body,
    read_start,
    retryable_status,
)

_SNIPPET = 300


@dataclass(slots=True)
class Event:
    """One server-sent event: when it was complete, its decoded data, its name."""

    at: float
    data: Any
    name: str | None = None


@dataclass(slots=True)
class Received:
    """A successful answer, read to its end."""

    kind: Literal["json", "sse", "text"]
    started: float
    finished: float
    payload: Any = None
    events: list[Event] = field(default_factory=list)
    text: str = ""
    size: int | None = None
    """The bytes of the answer (None: not counted)."""

    @property
    def documents(self) -> list[Any]:
        """What the paths are read in: the JSON answer, or every event's JSON data."""
        if self.kind == "json":
            return [self.payload]
        return [e.data for e in self.events if not isinstance(e.data, str)]

    @property
    def raw(self) -> Any:
        """What is kept for the results."""
        if self.kind == "sse":
            return {"events": [e.data for e in self.events]}
        return self.payload if self.kind == "json" else self.text

    @property
    def latency_s(self) -> float:
        return self.finished - self.started


@dataclass(slots=True)
class Tokens:
    model: str | None
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def short(value: Any) -> str:
    """``value`` as JSON shows it, on one line, at most 300 characters (a number as the
    answer wrote it: ``NaN``, ``Infinity``)."""
    if isinstance(value, float):
        return json.dumps(value)
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    text = " ".join(text.split())
    return text if len(text) <= _SNIPPET else text[:_SNIPPET - 3] + "..."


class HttpClient:
    """One configured system: its headers (resolved from the environment), its session."""

    def __init__(self, endpoint: HttpEndpoint, name: str, *, max_connections: int = 0,
                 environ: Mapping[str, str] | None = None) -> None:
        self.endpoint = endpoint
        self.name = name
        try:
            headers, self._secrets = endpoint.resolve_headers(
                dict(os.environ if environ is None else environ), name)
        except ValueError as exc:
            raise EunomiaError(str(exc)) from None
        lower = {k.lower() for k in headers}
        if endpoint.body is not None and "content-type" not in lower:
            headers["Content-Type"] = "application/json"
        self.headers = headers
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
        self.json_body = "json" in content_type.lower()
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    # --- the request ----------------------------------------------------------------
    def render(self, context: Mapping[str, Any]) -> tuple[bytes | None, dict[str, str]]:
        """(body, query parameters) for a case; a CallError (not retried) when a template
        cannot be rendered."""
        try:
            body = render_body(self.endpoint.body, context, json_body=self.json_body)
            query = {k: render_text(v, context) for k, v in self.endpoint.query.items()}
        except RenderError as exc:
            where = f" ({self.endpoint.where})" if self.endpoint.where else ""
            raise self.fail(f"{self.name}: {exc}{where}", retryable=False) from None
        return body, query

    def describe(self, body: bytes | None, query: Mapping[str, str]) -> bytes:
        """The request as stored and hashed for the cache: method, URL, query, body (the
        headers, which may hold secrets, are not part of it)."""
        head = orjson.dumps({"method": self.endpoint.method, "url": self.endpoint.url,
                             "query": dict(query)}, option=orjson.OPT_SORT_KEYS)
        return head + b"\n" + (body or b"")

    def fail(self, reason: str, **kw: Any) -> CallError:
        return CallError(redact(reason, self._secrets), **kw)

    # --- sending --------------------------------------------------------------------
    async def open(self) -> None:
        if self._session is None or self._session.closed:
            # The scheduler's limiter decides how many are in flight; timeouts are per attempt.
            connector = aiohttp.TCPConnector(limit=self._max_connections, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=None))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def send(self, body: bytes | None, query: Mapping[str, str]) -> Received:
        """One attempt, read to the end of the answer."""
        await self.open()
        assert self._session is not None
        url = self.endpoint.url
        started = time.perf_counter()
        try:
            async with self._session.request(self.endpoint.method, url, data=body,
                                             params=dict(query) or None,
                                             headers=self.headers) as response:
                if response.status >= 400:
                    raise await self._status_error(response)
                received = await self._read(response, started)
        except CallError:
            raise
        except (TimeoutError, aiohttp.ServerTimeoutError):
            raise self.fail(f"{self.name}: timed out", retryable=True) from None
        except aiohttp.ClientPayloadError as exc:
            raise self.fail(f"{self.name}: broken response: {exc}", retryable=True) from None
        except (aiohttp.ClientError, ConnectionError) as exc:
            raise self.fail(f"{self.name}: connection to {url} failed: "
                            f"{type(exc).__name__}: {exc}", retryable=True) from None
        if self._secrets:
            received.payload = self._scrub(received.payload)
            received.text = self._scrub(received.text)
            for event in received.events:
                event.data = self._scrub(event.data)
        return received

    async def _status_error(self, response: aiohttp.ClientResponse) -> CallError:
        status = response.status
        start = await read_start(response)  # an error page: its start is all a reason shows
        text = start.decode(charset_of(response), errors="replace")
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is None and "retry-after-ms" in response.headers:
            try:
                retry_after = max(0.0, float(response.headers["retry-after-ms"]) / 1000.0)
            except ValueError:
                retry_after = None
        detail = f": {short(text)}" if text.strip() else ""
        return self.fail(f"{self.name}: HTTP {status} from {self.endpoint.url}{detail}",
                         retryable=retryable_status(status), status=status,
                         retry_after=retry_after, rate_limited=status == 429)

    async def _read(self, response: aiohttp.ClientResponse, started: float) -> Received:
        fmt = self.endpoint.format
        if fmt == "auto":
            fmt = "sse" if response.content_type == "text/event-stream" else "json"
        if fmt == "sse":
            events = await self._events(response)
            return Received("sse", started, time.perf_counter(), events=events)
        raw = await read_body(response, self.name)
        text = raw.decode(charset_of(response), errors="replace")
        if fmt == "text":
            return Received("text", started, time.perf_counter(), text=text, size=len(raw))
        try:
            payload = orjson.loads(raw)
        except orjson.JSONDecodeError:
            try:
                payload = json.loads(text)
            except json.JSONDecodeError:
                raise self.fail(
                    f"{self.name}: HTTP {response.status} from {self.endpoint.url} is not "
                    f"JSON (give 'format: text' for a plain-text answer): {short(text)}",
                    retryable=True, status=response.status) from None
        return Received("json", started, time.perf_counter(), payload=payload, size=len(raw))

    async def _events(self, response: aiohttp.ClientResponse) -> list[Event]:
        """Server-sent events to the end of the stream (or the ``done`` data)."""
        events: list[Event] = []
        data: list[str] = []
        name: str | None = None
        buffer = b""

        def dispatch() -> bool:
            nonlocal name
            if not data:
                name = None
                return False
            text = "\n".join(data)
            lines = list(data)
            data.clear()
            if name == "error":
                raise self.fail(f"{self.name}: error event in the stream: {short(text)}",
                                retryable=True)
            try:
                values: list[Any] = [json.loads(text)]
            except json.JSONDecodeError:
                # servers that leave out the blank line between events: one event a line
                values = [_json_or_text(line) for line in lines] if len(lines) > 1 else [text]
            at = time.perf_counter()
            for value in values:
                if isinstance(value, str) and value.strip() == self.endpoint.done:
                    return True
                events.append(Event(at, value, name))
            name = None
            return False

        def feed(line: str) -> bool:
            nonlocal name
            line = line.rstrip("\r")
            if not line:
                return dispatch()
            if line.startswith(":"):
                return False  # a comment or keep-alive
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "data":
                data.append(value)
            elif key == "event":
                name = value
            return False

        done = False
        async for block in capped(response, self.name):
            buffer += block
            while b"\n" in buffer and not done:
                line, buffer = buffer.split(b"\n", 1)
                done = feed(line.decode("utf-8", errors="replace"))
            if done:
                break
        if not done:
            if buffer.strip():
                done = feed(buffer.decode("utf-8", errors="replace"))
            done = dispatch() or done
        if not done and self.endpoint.require_done:
            raise self.fail(
                f"{self.name}: the event stream from {self.endpoint.url} ended without "
                f"{self.endpoint.done!r} (require_done): the answer may be cut short",
                retryable=True)
        return events

    def _scrub(self, value: Any) -> Any:
        if isinstance(value, str):
            for secret in self._secrets:
                if len(secret) >= 4:
                    value = value.replace(secret, "***")
            return value
        if isinstance(value, list):
            return [self._scrub(v) for v in value]
        if isinstance(value, dict):
            return {self._scrub(k): self._scrub(v) for k, v in value.items()}
        return value

    # --- reading values -----------------------------------------------------------------
    def last_value(self, path: str | None, documents: list[Any]) -> Any:
        """The first value ``path`` finds in the last document where it finds one."""
        if path is None:
            return None
        for doc in reversed(documents):
            found = find_all(path, doc)
            if found:
                return found[0]
        return None

    def cost(self, documents: list[Any]) -> float | None:
        """The cost the system reports, or None; a CallError when it is not a number."""
        value = self.last_value(self.endpoint.cost, documents)
        if value is None:
            return None
        number = number_at(value)
        if number is None or number < 0:
            raise self.fail(f"{self.name}: the cost path {self.endpoint.cost} found "
                            f"{short(value)}, not a number of at least 0", retryable=False,
                            label="impossible number")
        return number

    def tokens(self, documents: list[Any]) -> list[Tokens]:
        """The token counts the system reports (one record per call it made), or []."""
        paths = self.endpoint.usage
        if paths is None:
            return []
        if paths.items is None:
            record = self._record(paths, documents)
            return [] if record is None else [record]
        for doc in reversed(documents):
            items = find_all(paths.items, doc)
            if len(items) == 1 and isinstance(items[0], list):
                items = items[0]
            if items:
                return [r for item in items
                        if (r := self._record(paths, [item], whole=True)) is not None]
        return []

    def _record(self, paths: UsagePaths, documents: list[Any], whole: bool = False
                ) -> Tokens | None:
        if whole and not paths.token_paths and isinstance(documents[0], dict):
            item = documents[0]  # an Athena llmRequests entry, camelCase or snake_case
            paths = UsagePaths(
                input_tokens="$.numInputTokens" if "numInputTokens" in item
                else "$.num_input_tokens",
                output_tokens="$.numOutputTokens" if "numOutputTokens" in item
                else "$.num_output_tokens",
                cached_input_tokens="$.numCachedInputTokens" if "numCachedInputTokens" in item
                else "$.num_cached_input_tokens",
                model="$.model")
        counts: dict[str, int] = {}
        for key in ("input_tokens", "output_tokens", "cached_input_tokens"):
            path = getattr(paths, key)
            value = self.last_value(path, documents)
            if value is None:
                continue
            try:  # never rounded, never read as 0
                counts[key] = token_count(value, f"the value at the usage path {path}")
            except ValueError as exc:
                raise self.fail(f"{self.name}: {exc}", retryable=False,
                                label="impossible number") from None
        if not counts:
            return None
        model = self.last_value(paths.model, documents)
        return Tokens(model=str(model) if model is not None else None, **counts)
