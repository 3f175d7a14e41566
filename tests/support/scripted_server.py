"""A scripted stand-in for an outside Athena feedback module, for tests.

The server listens on 127.0.0.1 (an ephemeral port) and answers every
``POST`` with the next :class:`Reply` scripted for the request's *key*. The key is
the test case's number (1..N: the low bits of the submission id Eunomia sent), or a test case
name when a ``names`` mapping (case number -> case name, see :func:`case_names`) is given.
Each key has a queue of replies; the last reply of a queue repeats forever, so
``[Reply(503), ok]`` is "fail once, then succeed" and ``[Reply(500)]`` is "always fail".
A callable reply builds the answer from the recorded request.

Every request is recorded (path, headers, raw body, decoded JSON, arrival time,
key), and requests are counted per key.

Use it from async tests (``await server.start()`` / ``await server.close()``) or from
synchronous tests through :meth:`ScriptedServer.in_thread`, which runs it in its own
event loop on a background thread (for subprocess tests of the CLI).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

CASE_BITS = 20
"""Eunomia sends per-run submission ids whose low 20 bits are the test case's number (1..N)
in its scenario (``eunomia.athena.case_index``)."""


def case_number(submission_id: int) -> int:
    return submission_id % (1 << CASE_BITS)


FEEDBACK_PATH = "/feedback_suggestions"
MANAGER_PATH = "/modules/modeling/module_modeling_llm/feedback_suggestions"


@dataclass(slots=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any
    key: Any
    at: float
    """``time.monotonic()`` when the request arrived."""

    @property
    def submission_id(self) -> int | None:
        """The test case's number in its scenario (1..N): the low bits of the submission id
        Eunomia sent (ids are per run and scenario)."""
        try:
            return case_number(int(self.json["submission"]["id"]))
        except (TypeError, KeyError, ValueError):
            return None


@dataclass(slots=True)
class Reply:
    """One scripted answer."""

    status: int = 200
    json: Any = None
    """A JSON-ready body (used when ``text`` is ``None``)."""
    text: str | bytes | None = None
    """A raw body, sent as is (for non-JSON answers)."""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Wait this long before answering (slow servers, timeouts)."""

    def response(self) -> web.Response:
        if self.text is not None:
            body = self.text.encode() if isinstance(self.text, str) else self.text
            return web.Response(status=self.status, body=body, headers=self.headers,
                                content_type="text/plain")
        payload = {} if self.json is None else self.json
        return web.json_response(payload, status=self.status, headers=self.headers)


ReplyLike = Reply | Callable[[RecordedRequest], Reply]


def usage(model: str, input_tokens: int, output_tokens: int, **extra: Any) -> dict[str, Any]:
    """One ``meta.llmRequests`` entry as Athena writes it."""
    return {
        "model": model,
        "numInputTokens": input_tokens,
        "numOutputTokens": output_tokens,
        "numTotalTokens": input_tokens + output_tokens,
        **extra,
    }


def feedback_item(
    sgi_id: int | None,
    *,
    credits: float = 0.0,
    snake_case: bool = False,
    exercise_id: int = 1,
    submission_id: int = 1,
    description: str = "",
    item_id: int | None = None,
) -> dict[str, Any]:
    """One feedback item, in camelCase (a module) or snake_case (some versions)."""
    if snake_case:
        return {
            "id": item_id, "title": f"item {sgi_id}", "description": description,
            "credits": credits, "structured_grading_instruction_id": sgi_id,
            "is_graded": False, "meta": {}, "exercise_id": exercise_id,
            "submission_id": submission_id, "element_ids": [],
        }
    return {
        "id": item_id, "title": f"item {sgi_id}", "description": description,
        "credits": credits, "structuredGradingInstructionId": sgi_id, "isGraded": False,
        "meta": {}, "exerciseId": exercise_id, "submissionId": submission_id, "elementIds": [],
    }


def feedback_reply(
    sgi_ids: Iterable[int | None],
    *,
    llm_requests: Sequence[Mapping[str, Any]] | None = (),
    manager: bool = False,
    snake_case: bool = False,
    meta: Any = ...,
    delay_s: float = 0.0,
) -> Reply:
    """A 200 answer naming these SGI ids (``None`` gives an item without an SGI id).

    ``manager=True`` gives the module manager's ``{module_name, status, data, meta}``;
    ``llm_requests=None`` leaves ``llmRequests`` out; ``meta`` replaces the whole meta.
    """
    data = [feedback_item(i, snake_case=snake_case, item_id=n, description=f"fb {i}")
            for n, i in enumerate(sgi_ids, start=1)]
    if meta is ...:
        meta = {} if llm_requests is None else {"llmRequests": [dict(u) for u in llm_requests]}
    body: dict[str, Any] = {"data": data, "meta": meta}
    if manager:
        body = {"module_name": "module_modeling_llm", "status": 200, **body}
    return Reply(200, body, delay_s=delay_s)


def case_names(scenario: Any) -> dict[int, str]:
    """Submission id -> test case name, for a loaded :class:`eunomia.scenarios.Scenario`."""
    return {case.submission_id: case.name for case in scenario.test_cases}


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (for connection-refused tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ScriptedServer:
    """See the module docstring."""

    def __init__(
        self,
        script: Mapping[Any, ReplyLike | Sequence[ReplyLike]] | None = None,
        *,
        default: ReplyLike | None = None,
        names: Mapping[int, str] | None = None,
        key: Callable[[RecordedRequest], Any] | None = None,
    ) -> None:
        self._queues: dict[Any, list[ReplyLike]] = {}
        for k, replies in (script or {}).items():
            self.script(k, replies)
        self.default: ReplyLike = default if default is not None else feedback_reply([])
        self.names = dict(names or {})
        self._key = key
        self.requests: list[RecordedRequest] = []
        self.counts: Counter[Any] = Counter()
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    # --- scripting ----------------------------------------------------------------
    def script(self, key: Any, replies: ReplyLike | Sequence[ReplyLike]) -> None:
        """Queue ``replies`` for ``key``; the last one repeats."""
        queue = [replies] if isinstance(replies, Reply) or callable(replies) else list(replies)
        if not queue:
            raise ValueError("an empty script")
        self._queues[key] = queue

    def key_of(self, request: RecordedRequest) -> Any:
        if self._key is not None:
            return self._key(request)
        sid = request.submission_id
        return self.names.get(sid, sid) if sid is not None else None

    def _next(self, key: Any) -> ReplyLike:
        queue = self._queues.get(key)
        if not queue:
            return self.default
        return queue.pop(0) if len(queue) > 1 else queue[0]

    # --- inspection ----------------------------------------------------------------
    def requests_for(self, key: Any) -> list[RecordedRequest]:
        return [r for r in self.requests if r.key == key]

    @property
    def base_url(self) -> str:
        assert self.port is not None, "the server is not started"
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The module's ``feedback_suggestions`` URL."""
        return self.base_url + FEEDBACK_PATH

    @property
    def manager_url(self) -> str:
        return self.base_url + MANAGER_PATH

    # --- serving --------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        try:
            decoded = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            decoded = None
        rec = RecordedRequest(request.method, request.path, dict(request.headers), body,
                              decoded, None, time.monotonic())
        rec.key = self.key_of(rec)
        self.requests.append(rec)
        self.counts[rec.key] += 1
        reply = self._next(rec.key)
        if not isinstance(reply, Reply):
            reply = reply(rec)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        return reply.response()

    async def start(self) -> ScriptedServer:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True,
                               shutdown_timeout=0.2)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> ScriptedServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[ScriptedServer]:
        """Serve from a background thread with its own event loop (for blocking tests)."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self.start())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.close())
            loop.close()

        thread = threading.Thread(target=serve, name="scripted-server", daemon=True)
        thread.start()
        if not ready.wait(10):
            raise RuntimeError("the scripted server did not start")
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
