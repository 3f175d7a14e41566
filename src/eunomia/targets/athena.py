"""The ``athena`` target: an Athena feedback module (or module manager) over HTTP."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson
from pydantic import ValidationError

from eunomia import defaults
from eunomia.athena import parse_feedback_response
from eunomia.errors import EunomiaError, redact
from eunomia.jsonbody import loads_fast
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import CallError, parse_retry_after, retryable_status
from eunomia.targets._base import TargetResponse

_BODY_SNIPPET = 300
_BODY_MEMO = 1024
"""Request bodies kept between describe_request and the send (a few per request in flight)."""


def check_http_url(url: str, what: str = "server URL") -> str:
    """Only absolute http(s) URLs are accepted as targets."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EunomiaError(f"invalid {what} {url!r}: only absolute http:// or https:// URLs")
    return url


def _decode(body: bytes) -> Any:
    """The JSON answer as ``json.loads(body.decode("utf-8", errors="replace"))`` reads it (the
    reference, also for its errors), by orjson when that gives the same: not for what it
    refuses or reads differently (invalid UTF-8, NaN, integers beyond 64 bits)."""
    return loads_fast(body, lambda: json.loads(body.decode("utf-8", errors="replace")))


def _scrub(value: Any, secret: str) -> Any:
    """A decoded answer with every copy of ``secret`` (in keys and values) replaced."""
    if isinstance(value, str):
        return value.replace(secret, "***")
    if isinstance(value, list):
        return [_scrub(v, secret) for v in value]
    if isinstance(value, dict):
        return {_scrub(k, secret): _scrub(v, secret) for k, v in value.items()}
    return value


class AthenaTarget:
    """POSTs each test case to ``feedback_suggestions`` and parses the answer.

    The URL is ``server_url`` when given, otherwise each scenario's own. The secret
    goes into the ``Authorization`` header only; it is removed from every error text.
    """

    def __init__(
        self,
        server_url: str | None = None,
        *,
        secret: str | None = None,
        x_server_url: str = defaults.ATHENA_X_SERVER_URL,
        extra_headers: dict[str, str] | None = None,
        max_connections: int = defaults.CONCURRENCY,
    ) -> None:
        self.server_url = check_http_url(server_url) if server_url else None
        self._secret = secret
        self._headers = {"Content-Type": "application/json", "X-Server-URL": x_server_url}
        self._headers.update(extra_headers or {})
        if secret:
            self._headers["Authorization"] = secret
        self._max_connections = max(1, max_connections)
        self._session: aiohttp.ClientSession | None = None
        self._exercise_json: dict[str, bytes] = {}
        self._bodies: dict[tuple[str, int], bytes] = {}
        self.name = f"athena:{self.server_url}" if self.server_url else "athena"

    def url_for(self, scenario: Scenario) -> str:
        if self.server_url:
            return self.server_url
        if not scenario.server_url:
            raise EunomiaError(
                f"scenario {scenario.name!r} has no server_url in its manifest; "
                "give one with --server-url"
            )
        return check_http_url(scenario.server_url, f"server_url of scenario {scenario.name!r}")

    async def open(self) -> None:
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=self._max_connections, limit_per_host=0)
            # Timeouts are enforced per attempt by the scheduler.
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=None)
            )

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    @property
    def cache_identity(self) -> str:
        return json.dumps({"target": "athena", "url": self.server_url,
                           "x_server_url": self._headers["X-Server-URL"]}, sort_keys=True)

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        return self.request_body(scenario, case)

    def request_body(self, scenario: Scenario, case: TestCase) -> bytes:
        """The JSON body. The exercise part is serialised once per scenario, and the last
        bodies built are kept, so storing a request and sending it encode it once."""
        key = (scenario.name, case.submission_id)
        body = self._bodies.get(key)
        if body is not None:
            return body
        exercise = self._exercise_json.get(scenario.name)
        if exercise is None:
            exercise = orjson.dumps(scenario.athena_exercise().wire())
            self._exercise_json[scenario.name] = exercise
        submission = orjson.dumps({
            "id": case.submission_id,
            "exerciseId": scenario.exercise.id,
            "model": case.submission,
            "meta": {},
        })
        body = b'{"exercise":' + exercise + b',"submission":' + submission + b',"isGraded":true}'
        if len(self._bodies) >= _BODY_MEMO:
            self._bodies.pop(next(iter(self._bodies)))  # oldest first
        self._bodies[key] = body
        return body

    def _fail(self, reason: str, **kw: Any) -> CallError:
        return CallError(redact(reason, [self._secret or ""]), **kw)

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        if self._session is None:
            await self.open()
        assert self._session is not None
        url = self.url_for(scenario)
        try:
            async with self._session.post(
                url, data=self.request_body(scenario, case), headers=self._headers
            ) as response:
                status = response.status
                body = await response.read()
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
        except aiohttp.ClientConnectorError as exc:
            raise self._fail(f"cannot connect to {url}: {exc.os_error}", retryable=True) from None
        except (aiohttp.ClientError, ConnectionError) as exc:
            detail = str(exc) or type(exc).__name__
            raise self._fail(f"connection error: {detail}", retryable=True) from None

        if status >= 400:
            text = body.decode("utf-8", errors="replace")
            snippet = " ".join(text[:_BODY_SNIPPET].split())
            raise self._fail(
                f"HTTP {status}: {snippet}" if snippet else f"HTTP {status}",
                retryable=retryable_status(status),
                status=status,
                retry_after=retry_after,
                rate_limited=status == 429,
            )
        try:
            payload = _decode(body)
        except json.JSONDecodeError as exc:
            raise self._fail(
                f"response is not JSON ({exc.msg} at char {exc.pos} of {len(exc.doc)})",
                retryable=True,
                status=status,
            ) from None
        if self._secret and len(self._secret) >= 4:
            payload = _scrub(payload, self._secret)  # a server may echo the header back
        try:
            parsed = parse_feedback_response(payload)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "<body>"
            raise self._fail(
                f"response has the wrong shape: {where}: {first['msg']} "
                f"({exc.error_count()} problem(s))",
                retryable=True,
                status=status,
            ) from None
        return TargetResponse(feedback=parsed.data, usage=parsed.meta.llm_requests, raw=payload)
