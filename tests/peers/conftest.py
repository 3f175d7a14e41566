"""The real Athena modeling module (and its module manager) as a peer of the tests.

The session fixture :func:`athena_peer` makes sure the module's venvs exist
(``scripts/peer-athena.sh setup``: about 1.5 minutes the first time on 2 cores, a no-op once
cached in ``$EUNOMIA_PEERS_DIR``), starts the scripted stand-in LLM
(:mod:`tests.support.athena_llm_standin`), then the module and the manager on free ports of
127.0.0.1, and stops all of them at the end of the session.

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

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "peer-athena.sh"
ATHENA_SRC = Path(os.environ.get("ATHENA_PEER_SRC", ROOT.parent / "shared" / "peers" / "athena"))
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
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(extra)
    return env


def run_script(*args: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], env=script_env(env), capture_output=True,
                          text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)


def _cannot(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    pytest.skip(reason)


def ensure_setup() -> float:
    """Build the venvs unless they are cached; the seconds it took (0 when cached)."""
    if os.environ.get("EUNOMIA_PEERS", "1") == "0":
        pytest.skip("EUNOMIA_PEERS=0: the real Athena module is not run")
    if not (ATHENA_SRC / "modules" / "modeling" / "module_modeling_llm").is_dir():
        pytest.skip(f"no Athena source at {ATHENA_SRC} "
                    "(../shared/peers/athena beside the checkout)")
    if shutil.which(PYTHON311) is None:
        pytest.skip(f"{PYTHON311} not found: the Athena module needs Python 3.11")
    probe = run_script("venv", env={}, timeout=60)
    if probe.returncode == 0 and probe.stdout.strip():
        return 0.0
    started = time.monotonic()
    try:
        setup = run_script("setup", env={}, timeout=SETUP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _cannot(f"scripts/peer-athena.sh setup took over {SETUP_TIMEOUT_S} s")
        raise
    elapsed = time.monotonic() - started
    if setup.returncode != 0:
        tail = "\n".join((setup.stdout + setup.stderr).splitlines()[-15:])
        _cannot(f"scripts/peer-athena.sh setup failed (exit {setup.returncode}):\n{tail}")
    return elapsed


@contextlib.contextmanager
def started_peer(tmp: Path, standin: AthenaLLMStandin) -> Iterator[AthenaPeer]:
    run_dir = tmp / "athena-run"
    secret = secrets.token_hex(16)
    module_port = free_port()
    env = {
        "ATHENA_PEER_RUN_DIR": str(run_dir),
        "ATHENA_SECRET": secret,
        "ATHENA_LLM_URL": standin.url,
        "ATHENA_MODULE_PORT": str(module_port),
        "ATHENA_MANAGER_PORT": str(free_port()),
        "ATHENA_START_TIMEOUT": str(START_TIMEOUT_S),
    }
    peer = AthenaPeer(module_url=f"http://127.0.0.1:{module_port}/feedback_suggestions",
                      secret=secret, standin=standin, run_dir=run_dir)
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


@pytest.fixture(scope="session")
def athena_peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AthenaPeer]:
    """The real module (and manager) answering on 127.0.0.1, its LLM the scripted stand-in."""
    setup_s = ensure_setup()
    standin = AthenaLLMStandin()
    with standin.in_thread(), started_peer(tmp_path_factory.mktemp("athena"), standin) as peer:
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
