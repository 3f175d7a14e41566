"""The real Athena modeling module (and its module manager) as a peer of the tests, in both
versions: the current one (``../shared/peers/athena-2.7``, fixture :func:`athena_current`) and
the legacy one that drops every SGI id (``../shared/peers/athena``, :func:`athena_legacy`).

Each session fixture makes sure the version's venvs exist (``scripts/peer-athena.sh setup``:
about 1.5 minutes the first time on 2 cores, a no-op once cached in ``$EUNOMIA_PEERS_DIR``),
starts the scripted stand-in LLM (:mod:`tests.support.athena_llm_standin`), then the module and
the manager on free ports of 127.0.0.1, and stops all of them at the end of the session. The
current module reaches its stand-in through ``eunomia serve-model --upstream`` (served in a
thread): the relay records every call, so a run can meter the module's LLM traffic
(``?llm_usage=``) — the module itself reports none.

It skips (with the reason) when Athena's source is not beside the checkout, when there is no
Python 3.11, when ``EUNOMIA_PEERS=0``, or when the set-up cannot be built here; under CI
(``CI=true``) a set-up that cannot be built fails instead, so a broken script cannot hide
behind a skip.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from tests.support.athena_llm_standin import AthenaLLMStandin
from tests.support.local_app import LocalApp
from tests.support.served_thread import served_in_thread

from eunomia.model_server import Upstream

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "peer-athena.sh"
PEERS = ROOT.parent / "shared" / "peers"
ATHENA_SRC = {"current": PEERS / "athena-2.7", "legacy": PEERS / "athena"}
"""The two versions' sources (``ATHENA_PEER_SRC`` is not read here: each fixture needs its own
version)."""
PYTHON311 = os.environ.get("ATHENA_PEER_PYTHON", "python3.11")
SETUP_TIMEOUT_S = 1800
START_TIMEOUT_S = 180
MANAGER_PATH = "/modules/modeling/module_modeling_llm/feedback_suggestions"
LMS_DEPLOYMENT = "http://localhost:8080"
"""An LMS deployment the manager knows (Athena's deployments.ini, section ``local``)."""


@dataclass(slots=True)
class Recorded:
    """One request through the :class:`RecordingProxy`, raw bytes both ways."""

    method: str
    path: str
    request_body: bytes
    status: int
    response_body: bytes


class RecordingProxy(LocalApp):
    """Forwards every request to ``upstream`` and records what went through, byte for byte.

    Stands between Eunomia and the module (or the manager) so tests can compare what Eunomia
    stored with what the peer actually sent back.
    """

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.records: list[Recorded] = []
        self._lock = threading.Lock()
        self._session: aiohttp.ClientSession | None = None

    def add_routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/{tail:.*}", self._forward)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
        await super().close()

    async def _forward(self, request: web.Request) -> web.Response:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600))
        body = await request.read()
        skip = {"host", "content-length", "transfer-encoding", "connection"}
        headers = {k: v for k, v in request.headers.items() if k.lower() not in skip}
        async with self._session.request(request.method, self.upstream + request.path_qs,
                                         data=body, headers=headers) as upstream:
            answer = await upstream.read()
            status = upstream.status
            content_type = upstream.headers.get("Content-Type", "application/octet-stream")
        with self._lock:
            self.records.append(Recorded(request.method, request.path, body, status, answer))
        return web.Response(status=status, body=answer, headers={"Content-Type": content_type})

    def take(self) -> list[Recorded]:
        """The records so far, and a fresh start."""
        with self._lock:
            records, self.records = self.records, []
        return records


@dataclass(slots=True)
class AthenaPeer:
    module_url: str
    """``http://127.0.0.1:<port>/feedback_suggestions`` of the real module."""
    secret: str
    standin: AthenaLLMStandin
    run_dir: Path
    version: str = "current"
    usage_url: str | None = None
    """The relay's base URL between the module and its stand-in (current version only)."""
    manager_url: str | None = None
    """The manager's route to the module, or None when the manager did not start here."""
    manager_problem: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def module_log(self) -> str:
        return _tail(self.run_dir / "module.log")


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"({path} missing)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def script_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST") and k not in ("ATHENA_PEER_SRC", "ATHENA_PEER_VERSION")}
    env.update(extra)
    return env


def run_script(*args: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], env=script_env(env), capture_output=True,
                          text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)


def _cannot(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    pytest.skip(reason)


def ensure_setup(version: str = "current") -> float:
    """Build the version's venvs unless they are cached; the seconds it took (0 when cached)."""
    if os.environ.get("EUNOMIA_PEERS", "1") == "0":
        pytest.skip("EUNOMIA_PEERS=0: the real Athena module is not run")
    src = ATHENA_SRC[version]
    if not (src / "modules" / "modeling" / "module_modeling_llm").is_dir():
        pytest.skip(f"no Athena source at {src} (../shared/peers beside the checkout)")
    if shutil.which(PYTHON311) is None:
        pytest.skip(f"{PYTHON311} not found: the Athena module needs Python 3.11")
    env = {"ATHENA_PEER_VERSION": version}
    probe = run_script("venv", env=env, timeout=60)
    if probe.returncode == 0 and probe.stdout.strip():
        return 0.0
    started = time.monotonic()
    try:
        setup = run_script("setup", env=env, timeout=SETUP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _cannot(f"scripts/peer-athena.sh setup ({version}) took over {SETUP_TIMEOUT_S} s")
        raise
    elapsed = time.monotonic() - started
    if setup.returncode != 0:
        tail = "\n".join((setup.stdout + setup.stderr).splitlines()[-15:])
        _cannot(f"scripts/peer-athena.sh setup ({version}) failed (exit {setup.returncode}):"
                f"\n{tail}")
    return elapsed


@contextlib.contextmanager
def started_peer(tmp: Path, standin: AthenaLLMStandin, version: str = "current",
                 llm_url: str | None = None) -> Iterator[AthenaPeer]:
    """The module (and manager) of ``version`` started by the script; its LLM ``llm_url``
    (default: the stand-in's)."""
    run_dir = tmp / f"athena-run-{version}"
    secret = secrets.token_hex(16)
    module_port = free_port()
    env = {
        "ATHENA_PEER_VERSION": version,
        "ATHENA_PEER_RUN_DIR": str(run_dir),
        "ATHENA_SECRET": secret,
        "ATHENA_LLM_URL": llm_url or standin.url,
        "ATHENA_MODULE_PORT": str(module_port),
        "ATHENA_MANAGER_PORT": str(free_port()),
        "ATHENA_START_TIMEOUT": str(START_TIMEOUT_S),
    }
    peer = AthenaPeer(module_url=f"http://127.0.0.1:{module_port}/feedback_suggestions",
                      secret=secret, standin=standin, run_dir=run_dir, version=version)
    try:
        t0 = time.monotonic()
        start = run_script("start", env=env, timeout=START_TIMEOUT_S * 2 + 30)
        if start.returncode == 0:
            peer.manager_url = f"http://127.0.0.1:{env['ATHENA_MANAGER_PORT']}{MANAGER_PATH}"
        else:
            # The module alone, and the reason the manager did not come up.
            peer.manager_problem = (start.stdout + start.stderr)[-2000:]
            run_script("stop", env=env, timeout=60)
            start = run_script("start", "--no-manager", env=env, timeout=START_TIMEOUT_S + 30)
            if start.returncode != 0:
                pytest.fail("the Athena module did not start:\n"
                            f"{start.stdout}{start.stderr}\n{_tail(run_dir / 'module.log')}")
        peer.timings["start_s"] = time.monotonic() - t0
        yield peer
    finally:
        run_script("stop", env=env, timeout=60)


@contextlib.contextmanager
def serving_relay(upstream: str) -> Iterator[str]:
    """``eunomia serve-model --upstream <upstream>`` in a thread (its own event loop); yields
    its base URL (``.../v1``)."""

    async def make() -> Upstream:
        return Upstream(upstream)

    with served_in_thread(make, start_timeout=30) as url:
        yield url


@pytest.fixture(scope="session")
def athena_legacy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AthenaPeer]:
    """The legacy module (and manager) answering on 127.0.0.1, its LLM the scripted stand-in."""
    setup_s = ensure_setup("legacy")
    standin = AthenaLLMStandin()
    with standin.in_thread(), started_peer(tmp_path_factory.mktemp("athena"), standin,
                                           "legacy") as peer:
        peer.timings["setup_s"] = setup_s
        yield peer


@pytest.fixture(scope="session")
def athena_current(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AthenaPeer]:
    """The current module (and manager) on 127.0.0.1; its LLM the scripted stand-in behind
    a recording ``serve-model --upstream`` relay (``peer.usage_url``)."""
    setup_s = ensure_setup("current")
    standin = AthenaLLMStandin()
    with standin.in_thread(), serving_relay(standin.url) as relay, started_peer(
            tmp_path_factory.mktemp("athena"), standin, "current", llm_url=relay) as peer:
        peer.usage_url = relay.removesuffix("/v1")
        peer.timings["setup_s"] = setup_s
        yield peer


@pytest.fixture
def recording_proxy() -> Iterator[Any]:
    """A factory of started :class:`RecordingProxy` servers (stopped after the test)."""
    stack = contextlib.ExitStack()

    def make(upstream: str) -> RecordingProxy:
        return stack.enter_context(RecordingProxy(upstream).in_thread())

    with stack:
        yield make
