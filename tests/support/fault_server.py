"""A fault-injecting stand-in for an Athena feedback module, for robustness tests.

Every ``POST`` is answered either with a *valid* feedback answer or with one fault:

* ``error``      an HTTP 500, 502 or 503 with a small text body;
* ``rate_limit`` an HTTP 429 with ``Retry-After``;
* ``timeout``    no answer at all for ``hang_s`` seconds (beyond the client's timeout);
* ``drop``       the connection is closed without an answer;
* ``truncated``  headers announce a Content-Length larger than the body, then the
                 connection is closed;
* ``non_json``   200 with a body that is not JSON (HTML, half a JSON document, nothing);
* ``wrong_shape`` 200 with valid JSON that is not a feedback answer;
* ``slow_body``  a valid answer streamed in chunks with ``hang_s`` pauses between them.

Which fault (if any) a request gets is drawn from a RNG seeded with
``(seed, submission id, attempt number)``, so a case sees the same sequence of faults
whatever order the requests arrive in. A valid answer names SGI ids chosen
deterministically from the submission (:func:`expected_sgis`), so the score of every
case is known in advance; each valid feedback item carries ``meta.fault_token`` =
``"<submission id>:<attempt>"`` and the server records every valid answer it sent,
so a test can prove that a scored case was scored from a valid answer and not from
garbage. Requests are counted per submission id (= per test case).

Run it in-process (``await FaultServer(...).start()``) or as a separate process::

    python -m tests.support.fault_server --port 0 --seed 7 --latency 0.05 [--p-error 0.1 ...]

which prints one JSON line ``{"url": ..., "base_url": ..., "stats_url": ..., "pid": ...}``
and serves until killed; ``GET /_stats`` returns the counters as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import random
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from aiohttp import web

CASE_BITS = 20
"""Eunomia sends per-run submission ids whose low 20 bits are the test case's number (1..N)
in its scenario (``eunomia.athena.case_index``)."""


def case_number(submission_id: int) -> int:
    return submission_id % (1 << CASE_BITS)


FEEDBACK_PATH = "/feedback_suggestions"
STATS_PATH = "/_stats"

FAULT_KINDS = (
    "error", "rate_limit", "timeout", "drop", "truncated", "non_json", "wrong_shape",
    "slow_body",
)

# Each of these is valid JSON that parse_feedback_response must reject.
WRONG_SHAPES: tuple[Any, ...] = (
    {"data": "not a list", "meta": {}},
    [{"structuredGradingInstructionId": 1, "credits": 1.0}],
    {"feedback": [{"structuredGradingInstructionId": 1}], "meta": {}},
    {"data": [{"structuredGradingInstructionId": 1, "credits": "lots"}], "meta": {}},
    {"data": [{"structuredGradingInstructionId": "first"}], "meta": {}},
    {"data": [{"structuredGradingInstructionId": 1}], "meta": {"llmRequests": "many"}},
    {"data": None},
    "just a string",
    12345,
    None,
)

NON_JSON_BODIES: tuple[bytes, ...] = (
    b"<html><body><h1>502 Bad Gateway</h1></body></html>",
    b'{"data": [{"structuredGradingInstructionId": 1',
    b"",
    b"\xff\xfe\x00garbage",
    b"data: [1, 2, 3]",
)


@dataclass(frozen=True, slots=True)
class FaultProfile:
    """Probability of each fault per request (their sum must stay at most 1)."""

    error: float = 0.0
    rate_limit: float = 0.0
    timeout: float = 0.0
    drop: float = 0.0
    truncated: float = 0.0
    non_json: float = 0.0
    wrong_shape: float = 0.0
    slow_body: float = 0.0
    latency_s: float = 0.0
    """Added before every answer (valid or not)."""
    hang_s: float = 2.0
    """How long a ``timeout`` or ``slow_body`` stalls."""
    retry_after: str = "0"
    """The Retry-After header of a 429."""

    def __post_init__(self) -> None:
        total = sum(getattr(self, k) for k in FAULT_KINDS)
        if total > 1.0 + 1e-9:
            raise ValueError(f"fault probabilities add up to {total} > 1")

    def draw(self, rng: random.Random) -> str | None:
        x = rng.random()
        for kind in FAULT_KINDS:
            p = getattr(self, kind)
            if x < p:
                return kind
            x -= p
        return None


def instruction_ids(exercise: Mapping[str, Any]) -> list[int]:
    """Every SGI id of an exercise in Athena's wire format."""
    out: list[int] = []
    for criterion in exercise.get("gradingCriteria") or []:
        for sgi in criterion.get("structuredGradingInstructions") or []:
            out.append(int(sgi["id"]))
    return out


def expected_sgis(seed: int, submission_id: int, model: str, sgi_ids: list[int]) -> list[int]:
    """The SGI ids the server answers for a submission: fixed by seed, id and diagram."""
    digest = hashlib.sha256(f"{seed}\x00{submission_id}\x00{model}".encode()).hexdigest()
    rng = random.Random(digest)
    if not sgi_ids:
        return []
    k = rng.randint(1, min(len(sgi_ids), 8))
    return sorted(rng.sample(sgi_ids, k))


def valid_body(seed: int, request: Mapping[str, Any], attempt: int) -> tuple[list[int], bytes]:
    sub = request["submission"]
    sid = case_number(int(sub["id"]))
    sgis = expected_sgis(seed, sid, str(sub.get("model", "")),
                         instruction_ids(request["exercise"]))
    token = f"{sid}:{attempt}"
    data = [
        {
            "id": n, "title": f"item {i}", "description": f"feedback for {i}", "credits": 0.0,
            "structuredGradingInstructionId": i, "isGraded": False,
            "meta": {"fault_token": token}, "exerciseId": request["exercise"].get("id"),
            "submissionId": sid, "elementIds": [],
        }
        for n, i in enumerate(sgis, start=1)
    ]
    meta = {"llmRequests": [{"model": "gpt-4o", "numInputTokens": 100 + sid,
                             "numOutputTokens": 10, "numTotalTokens": 110 + sid}]}
    return sgis, json.dumps({"data": data, "meta": meta}).encode()


@dataclass(slots=True)
class SentValid:
    attempt: int
    sgis: list[int]
    kind: str
    """``valid`` or ``slow_body`` (valid, but stalled mid-body)."""


@dataclass(slots=True)
class FaultStats:
    counts: Counter[int] = field(default_factory=Counter)
    """Requests per submission id."""
    faults: Counter[str] = field(default_factory=Counter)
    """Requests per fault kind (``valid`` for the valid answers sent whole)."""
    valid: dict[int, list[SentValid]] = field(default_factory=dict)
    """Submission id -> every valid answer sent for it."""
    history: dict[int, list[str]] = field(default_factory=dict)
    """Submission id -> what each of its requests got, in order (a fault kind or ``valid``)."""
    bad_requests: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "counts": {str(k): v for k, v in self.counts.items()},
            "faults": dict(self.faults),
            "valid": {str(k): [asdict(s) for s in v] for k, v in self.valid.items()},
            "history": {str(k): v for k, v in self.history.items()},
            "bad_requests": self.bad_requests,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FaultStats:
        return cls(
            counts=Counter({int(k): int(v) for k, v in data["counts"].items()}),
            faults=Counter(data["faults"]),
            valid={int(k): [SentValid(**s) for s in v] for k, v in data["valid"].items()},
            history={int(k): list(v) for k, v in data["history"].items()},
            bad_requests=int(data["bad_requests"]),
        )

    def valid_tokens(self) -> set[str]:
        return {f"{sid}:{s.attempt}" for sid, sent in self.valid.items() for s in sent}


class FaultServer:
    """See the module docstring."""

    def __init__(self, profile: FaultProfile | None = None, *, seed: int = 0,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        self.profile = profile or FaultProfile()
        self.seed = seed
        self.host = host
        self._port = port
        self.stats = FaultStats()
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    @property
    def base_url(self) -> str:
        assert self.port is not None, "the server is not started"
        return f"http://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        return self.base_url + FEEDBACK_PATH

    # --- faults -------------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        if request.method == "GET" and request.path == STATS_PATH:
            return web.json_response(self.stats.to_json())
        raw = await request.read()
        try:
            body = json.loads(raw)
            sid = case_number(int(body["submission"]["id"]))
        except (ValueError, TypeError, KeyError):
            self.stats.bad_requests += 1
            return web.json_response({"detail": "not a feedback request"}, status=400)
        self.stats.counts[sid] += 1
        attempt = self.stats.counts[sid]
        rng = random.Random(f"{self.seed}:{sid}:{attempt}")
        kind = self.profile.draw(rng)
        self.stats.faults[kind or "valid"] += 1
        self.stats.history.setdefault(sid, []).append(kind or "valid")
        p = self.profile
        if p.latency_s:
            await asyncio.sleep(p.latency_s)
        if kind is None or kind == "slow_body":
            sgis, payload = valid_body(self.seed, body, attempt)
            self.stats.valid.setdefault(sid, []).append(
                SentValid(attempt, sgis, kind or "valid"))
            if kind is None:
                return web.Response(body=payload, content_type="application/json")
            return await self._slow(request, payload)
        if kind == "error":
            status = rng.choice((500, 502, 503))
            return web.Response(status=status, text=f"injected {status} for {sid}")
        if kind == "rate_limit":
            return web.Response(status=429, text="slow down",
                                headers={"Retry-After": p.retry_after})
        if kind == "timeout":
            await asyncio.sleep(p.hang_s)
            return web.Response(status=504, text="gave up")
        if kind == "drop":
            return self._drop(request)
        if kind == "truncated":
            _, payload = valid_body(self.seed, body, attempt)
            return await self._truncated(request, payload[: len(payload) // 2])
        if kind == "non_json":
            return web.Response(body=rng.choice(NON_JSON_BODIES), content_type="application/json")
        assert kind == "wrong_shape"
        return web.json_response(rng.choice(WRONG_SHAPES))

    @staticmethod
    def _drop(request: web.Request) -> web.StreamResponse:
        transport = request.transport
        if transport is not None:
            transport.close()
        # Nothing more can be written; aiohttp notices the closed transport and discards this.
        return web.Response(status=200)

    @staticmethod
    async def _truncated(request: web.Request, part: bytes) -> web.StreamResponse:
        response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        response.content_length = len(part) * 2 + 10
        await response.prepare(request)
        with contextlib.suppress(ConnectionError):
            await response.write(part)
        transport = request.transport
        if transport is not None:
            transport.close()
        return response

    async def _slow(self, request: web.Request, payload: bytes) -> web.StreamResponse:
        response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        response.content_length = len(payload)
        await response.prepare(request)
        chunks = [payload[i:i + 64] for i in range(0, len(payload), 64)]
        with contextlib.suppress(ConnectionError):
            for chunk in chunks:
                await response.write(chunk)
                await asyncio.sleep(self.profile.hang_s)
            await response.write_eof()
        return response

    # --- serving --------------------------------------------------------------------------
    async def start(self) -> FaultServer:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True,
                               shutdown_timeout=0.2)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self._port)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FaultServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def fetch_stats(base_url: str, timeout: float = 10.0) -> FaultStats:
    """The counters of a fault server running in another process."""
    import urllib.request

    with urllib.request.urlopen(base_url + STATS_PATH, timeout=timeout) as fh:
        return FaultStats.from_json(json.loads(fh.read()))


@contextlib.contextmanager
def fault_server_process(*args: str, cwd: str | os.PathLike[str] | None = None,
                         ) -> Iterator[dict[str, Any]]:
    """Start ``python -m tests.support.fault_server ARGS`` and yield its announced URLs."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fault_server", "--port", "0", *args],
        cwd=cwd or root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the fault server process did not start")
        yield json.loads(line)
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def _main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.support.fault_server",
                                     description="Serve a fault-injecting Athena module.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--hang", type=float, default=2.0)
    parser.add_argument("--retry-after", default="0")
    for kind in FAULT_KINDS:
        parser.add_argument(f"--p-{kind.replace('_', '-')}", type=float, default=0.0,
                            dest=f"p_{kind}")
    ns = parser.parse_args(argv)
    profile = FaultProfile(latency_s=ns.latency, hang_s=ns.hang, retry_after=ns.retry_after,
                           **{k: getattr(ns, f"p_{k}") for k in FAULT_KINDS})

    async def serve() -> None:
        server = await FaultServer(profile, seed=ns.seed, host=ns.host, port=ns.port).start()
        print(json.dumps({"url": server.url, "base_url": server.base_url,
                          "stats_url": server.base_url + STATS_PATH, "pid": os.getpid()}),
              flush=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    _main()
