"""The ``athena`` target: an Athena feedback module (or module manager) over HTTP.

Ids. Athena stores exercises and submissions by id alone, so the target never sends the
scenario loader's ids (1..N): exercise ids are stable per scenario and submission ids are
per run and scenario, all in a range no LMS reaches (``[2**52, 2**53)`` by default; see
:mod:`eunomia.athena._ids`). The request Eunomia stores and hashes for the cache
(:meth:`AthenaTarget.describe_request`) carries the run-independent submission id, so a
cached answer is found again by any later run (``--cache``); the request sent differs from it
in ``submission.id`` only (:meth:`AthenaTarget.sent_request`), and the answer's feedback items
carry the id that was sent.

Failures say what they mean: a 401 from a module manager names both of its causes (secret or
X-Server-URL), a 500 for a version-2 Apollon diagram says so, and every attempt is labelled
for the attempt log ("HTTP 500", "connection reset", "cannot connect"...).
"""

from __future__ import annotations

import errno
import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson
from pydantic import ValidationError

from eunomia import defaults
from eunomia.athena import (
    CASE_SLOTS,
    DEFAULT_ID_BASE,
    MANAGER_DEPLOYMENTS,
    V2_HINT,
    AthenaIds,
    bounded_feedback,
    is_apollon_v2,
    is_manager_url,
    parse_feedback_response,
    reported_cost,
    unauthorized_hint,
)
from eunomia.errors import EunomiaError, redact
from eunomia.jsonbody import loads_fast
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import CallError, parse_retry_after, read_body, read_start, retryable_status
from eunomia.store import PrefixedBytes
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


_NUMBER_ERRORS = frozenset({"finite_number", "greater_than_equal", "less_than_equal",
                            "greater_than", "less_than", "int_from_float"})
"""Pydantic's errors for a number out of its range (NaN, Infinity, -5 tokens, 1.5 tokens)."""


def _shape_problem(exc: ValidationError, status: int) -> tuple[str, str]:
    """The reason and attempt-log label of an answer that is not a feedback answer: an
    impossible number is named as such (the field and the value the answer gave)."""
    errors = exc.errors(include_url=False)
    first = next((e for e in errors if e["type"] in _NUMBER_ERRORS), errors[0])
    where = ".".join(str(p) for p in first["loc"]) or "<body>"
    if first["type"] in _NUMBER_ERRORS:
        value = first.get("input")
        shown = json.dumps(value) if isinstance(value, int | float) else repr(value)
        return (f"the answer has an impossible number: {where} is {shown} ({first['msg']}; "
                f"{exc.error_count()} problem(s))", "impossible number")
    return (f"response has the wrong shape: {where}: {first['msg']} "
            f"({exc.error_count()} problem(s))", f"HTTP {status}, wrong shape")


def _connection_label(exc: BaseException) -> str:
    """The attempt-log label of a failure before a whole answer arrived."""
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "server disconnected"
    if isinstance(exc, aiohttp.ClientPayloadError):
        return "answer cut off"
    if isinstance(exc, ConnectionResetError) or getattr(exc, "errno", None) == errno.ECONNRESET:
        # e.g. uvicorn closes a kept-alive connection after an unhandled exception (a 500):
        # the next request on it is reset before the server reads it
        return "connection reset"
    return "connection error"


class AthenaTarget:
    """POSTs each test case to ``feedback_suggestions`` and parses the answer.

    Its answers are cached, but a later run asks again unless ``--cache`` is given
    (``cache_across_runs``): the module behind a URL may change without its URL changing.

    The URL is ``server_url`` when given, otherwise each scenario's own. The secret
    goes into the ``Authorization`` header only; it is removed from every error text.
    ``id_base`` starts Eunomia's id range (default ``2**52``) and ``id_seed`` (the run's
    name) picks the run's submission ids in it: see the module docstring.
    """

    def __init__(
        self,
        server_url: str | None = None,
        *,
        secret: str | None = None,
        secret_env: str | None = None,
        x_server_url: str = defaults.ATHENA_X_SERVER_URL,
        extra_headers: dict[str, str] | None = None,
        max_connections: int = defaults.CONCURRENCY,
        id_base: int | None = None,
        id_seed: str = "",
        graded: bool = True,
    ) -> None:
        self.server_url = check_http_url(server_url) if server_url else None
        self.graded = graded
        """``isGraded`` of every request: False asks for the student-facing feedback (the
        current module then rewrites its feedback in a second LLM call)."""
        self._tail = b',"isGraded":true}' if graded else b',"isGraded":false}'
        self._secret = secret
        self._secret_env = secret_env
        self._headers = {"Content-Type": "application/json", "X-Server-URL": x_server_url}
        self._headers.update(extra_headers or {})
        if secret:
            self._headers["Authorization"] = secret
        self._max_connections = max(1, max_connections)
        base = DEFAULT_ID_BASE if id_base is None else id_base
        try:
            self.ids = AthenaIds(base, id_seed)
        except ValueError as exc:
            raise EunomiaError(str(exc)) from None
        self._stable_ids = AthenaIds(base)
        self._blocks: dict[int, str] = {}
        self._session: aiohttp.ClientSession | None = None
        self._prefixes: dict[str, bytes] = {}
        """Scenario -> the beginning of its request bodies (up to the submission id)."""
        self._bodies: dict[tuple[str, int, str], bytes] = {}
        shown = f"athena:{self.server_url}" if self.server_url else "athena"
        self.name = shown if graded else f"{shown}?graded=false"
        self.cache_across_runs = False

    def url_for(self, scenario: Scenario) -> str:
        if self.server_url:
            return self.server_url
        if not scenario.server_url:
            raise EunomiaError(
                f"scenario {scenario.name!r} has no server_url in its manifest; "
                "give one with --server-url"
            )
        return check_http_url(scenario.server_url, f"server_url of scenario {scenario.name!r}")

    def warnings(self, scenarios: Iterable[Scenario] = ()) -> list[str]:
        """What will probably go wrong, to print before the first request."""
        out: list[str] = []
        if not self._secret:
            where = f"${self._secret_env} is not set" if self._secret_env else "no secret given"
            out.append(f"{where}: requests to {self.name} go without an Authorization header, "
                       "and an Athena module in production answers 401 \"Invalid API secret\"")
        x_server_url = self._headers["X-Server-URL"]
        if x_server_url == defaults.ATHENA_X_SERVER_URL:
            urls = {self.server_url} if self.server_url else {
                s.server_url for s in scenarios if s.server_url}
            for url in sorted(u for u in urls if u and is_manager_url(u)):
                out.append(f"{url} is an Athena module manager: it accepts only the "
                           "X-Server-URL of one of its LMS deployments (upstream: "
                           f"{', '.join(MANAGER_DEPLOYMENTS)}) and answers 401 \"Invalid API "
                           f"secret\" for {x_server_url}, even with the right secret; "
                           "give one with --x-server-url")
        return out

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
        identity: dict[str, Any] = {"target": "athena", "url": self.server_url,
                    "x_server_url": self._headers["X-Server-URL"]}
        if not self.graded:  # unchanged for graded requests: earlier cache entries still match
            identity["graded"] = False
        return json.dumps(identity, sort_keys=True)

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        """The request as stored and hashed for the cache: the body sent, but with the
        run-independent submission id (see the module docstring)."""
        return self._body(self._stable_ids, scenario, case)

    def sent_request(self, scenario: Scenario, case: TestCase) -> bytes:
        """The body this target sends for a case in this run (ids of the run)."""
        return self._body(self.ids, scenario, case)

    def request_body(self, scenario: Scenario, case: TestCase) -> bytes:
        """Kept for callers of the earlier name: :meth:`sent_request`."""
        return self.sent_request(scenario, case)

    def _body(self, ids: AthenaIds, scenario: Scenario, case: TestCase) -> bytes:
        """The JSON body. The exercise part is serialised once per scenario, and the last
        bodies built are kept, so storing a request and sending it encode it once."""
        key = (scenario.name, case.submission_id, ids.seed)
        body = self._bodies.get(key)
        if body is not None:
            return body
        exercise_id = ids.exercise_id(scenario.name)
        prefix = self._prefixes.get(scenario.name)
        if prefix is None:
            wire = scenario.athena_exercise().wire()
            wire["id"] = exercise_id
            prefix = b'{"exercise":' + orjson.dumps(wire) + b',"submission":{"id":'
            self._prefixes[scenario.name] = prefix
        submission = orjson.dumps({
            "id": ids.submission_id(scenario.name, case.submission_id),
            "exerciseId": exercise_id,
            "model": case.submission,
            "meta": {},
        })
        # every body of a scenario begins alike (the exercise): the store hashes that
        # beginning once and keeps it once, each body referring to it (PrefixedBytes)
        body = PrefixedBytes(prefix + submission[len(b'{"id":'):] + self._tail, prefix)
        if len(self._bodies) >= _BODY_MEMO:
            self._bodies.pop(next(iter(self._bodies)))  # oldest first
        self._bodies[key] = body
        return body

    def _fail(self, reason: str, **kw: Any) -> CallError:
        return CallError(redact(reason, [self._secret or ""]), **kw)

    def _claim_block(self, scenario: Scenario) -> None:
        """Refuse to send when another scenario of this run has the same submission ids."""
        block = self.ids.block(scenario.name)
        owner = self._blocks.setdefault(block, scenario.name)
        if owner != scenario.name:
            raise self._fail(
                f"scenarios {owner!r} and {scenario.name!r} were given the same Athena "
                f"submission ids in this run (block {block} of {self.ids.blocks}); nothing "
                "was sent, so nothing was overwritten: rename one of them, or run it with "
                "another run name", retryable=False, label="id clash")

    def check_ids(self, scenarios: Iterable[Scenario]) -> None:
        """Raise :class:`EunomiaError` before any request when two scenarios of the run would
        get the same submission ids (workers of a cluster each see only their own cases)."""
        seen: dict[int, str] = {}
        for scenario in scenarios:
            owner = seen.setdefault(self.ids.block(scenario.name), scenario.name)
            if owner != scenario.name:
                raise EunomiaError(
                    f"scenarios {owner!r} and {scenario.name!r} would get the same Athena "
                    "submission ids in this run: rename one of them, or use another run name")

    def _explain(self, status: int, url: str, case: TestCase) -> str:
        if status == 401:
            return unauthorized_hint(url, secret_env=self._secret_env,
                                     secret_sent=bool(self._secret),
                                     x_server_url=self._headers["X-Server-URL"])
        if status == 500 and is_apollon_v2(case.submission):
            return V2_HINT
        if status in (404, 405):
            return (f"POST {url}: no such route; check --server-url (a module answers at "
                    ".../feedback_suggestions, a module manager at "
                    ".../modules/modeling/<module>/feedback_suggestions)")
        return ""

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        if self._session is None:
            await self.open()
        assert self._session is not None
        url = self.url_for(scenario)
        if case.submission_id >= CASE_SLOTS:
            raise self._fail(f"test case number {case.submission_id} is beyond the "
                             f"{CASE_SLOTS - 1:,} Athena submission ids of a scenario",
                             retryable=False, label="too many cases")
        self._claim_block(scenario)
        try:
            async with self._session.post(
                url, data=self.sent_request(scenario, case), headers=self._headers
            ) as response:
                status = response.status
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
                # within the response limit (an error page: its start only)
                body = await (read_start(response) if status >= 400
                              else read_body(response, ""))
        except aiohttp.ClientConnectorError as exc:
            raise self._fail(f"cannot connect to {url}: {exc.os_error}", retryable=True,
                             label="cannot connect") from None
        except (aiohttp.ClientError, ConnectionError) as exc:
            detail = str(exc) or type(exc).__name__
            raise self._fail(f"connection error: {detail}", retryable=True,
                             label=_connection_label(exc)) from None
        except CallError as exc:  # over the response limit
            raise self._fail(exc.reason, retryable=exc.retryable, status=status,
                             label=exc.label) from None

        if status >= 400:
            text = body.decode("utf-8", errors="replace")
            snippet = " ".join(text[:_BODY_SNIPPET].split())
            reason = f"HTTP {status}: {snippet}" if snippet else f"HTTP {status}"
            hint = self._explain(status, url, case)
            raise self._fail(
                f"{reason} ({hint})" if hint else reason,
                retryable=retryable_status(status),
                status=status,
                retry_after=retry_after,
                rate_limited=status == 429,
            )
        size = len(body)
        try:
            payload = _decode(body)
            del body  # the decoded answer is what is kept
        except json.JSONDecodeError as exc:
            raise self._fail(
                f"response is not JSON ({exc.msg} at char {exc.pos} of {len(exc.doc)})",
                retryable=True,
                status=status,
                label=f"HTTP {status}, not JSON",
            ) from None
        if self._secret and len(self._secret) >= 4:
            payload = _scrub(payload, self._secret)  # a server may echo the header back
        try:
            parsed = parse_feedback_response(payload)
            cost = reported_cost(parsed.meta.total_usage)
        except ValidationError as exc:
            reason, label = _shape_problem(exc, status)
            raise self._fail(reason, retryable=True, status=status, label=label) from None
        except ValueError as exc:  # an impossible cost in meta.totalUsage
            raise self._fail(f"the answer has an impossible number: {exc}", retryable=True,
                             status=status, label="impossible number") from None
        # the whole answer is kept once (raw, in the store); files and pages get the items
        # with their texts bounded
        return TargetResponse(feedback=bounded_feedback(parsed.data, size),
                              usage=parsed.meta.llm_requests, raw=payload,
                              reported_cost=cost)
