"""The small HTTP servers' one start-up (``eunomia.serving``): an app on a free port and its
URL, a clean stop on Ctrl+C and SIGTERM for every command that serves (``serve-example``,
``serve``, ``serve-model``, ``view``, ``label``), even when the signal comes as soon as the
server says it listens."""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from aiohttp import web
from tests.support.cli import cli_env

from eunomia.serving import http_url, is_loopback, start_app
from eunomia.store import RunStore


def test_loopback_names_and_urls() -> None:
    assert all(map(is_loopback, ["localhost", "127.0.0.1", "127.3.2.1", "::1", "[::1]"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.2", "example.org", "::", ""]))
    assert http_url("127.0.0.1", 80, "/v1") == "http://127.0.0.1:80/v1"
    assert http_url("::1", 8080) == "http://[::1]:8080"


async def _hello(_: web.Request) -> web.Response:
    return web.Response(text="hello")


async def test_an_app_is_served_on_a_free_port_and_stopped() -> None:
    app = web.Application()
    app.router.add_get("/", _hello)
    runner, port = await start_app(app)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await writer.drain()
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"hello")
    finally:
        await runner.cleanup()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


async def test_a_port_in_use_is_an_error_and_leaves_nothing_running() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError):
            await start_app(web.Application(), "127.0.0.1", port)


ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "serve-example": (["serve-example", "--port", "0"], "Example feedback server stopped."),
    "serve": (["serve", "--model", "openai:gpt-4o-mini", "--port", "0"],
              "Eunomia feedback module stopped."),
    "serve-model": (["serve-model", "--model", "openai:gpt-4o-mini", "--port", "0"],
                    "Model server stopped."),
    # the viewer and the label server say nothing more once stopped
    "view": (["view", "--port", "0"], ""),
    "label": (["label", "project_management", "--port", "0"], ""),
}


def _place(command: str, folder: Path) -> None:
    """What the command serves, in ``folder``: a run store, a scenario."""
    if command == "view":
        RunStore(folder / "results" / "eunomia.db").close()
    elif command == "label":
        shutil.copytree(ROOT / "examples" / "scenarios" / "project_management",
                        folder / "project_management")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_server_stops_cleanly_as_soon_as_it_listens(
        command: str, stop: signal.Signals, tmp_path: Path) -> None:
    args, stopped = COMMANDS[command]
    _place(command, tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "eunomia", *args], cwd=tmp_path,
                            env=cli_env({"OPENAI_API_KEY": "test-key", "COLUMNS": "200"}),
                            text=True, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        first = ""
        while "to stop)" not in first:
            line = proc.stdout.readline()
            assert line, f"ended before listening: {first}"
            first += line
        url = next(word for word in first.split() if word.startswith("http://"))
        assert url.startswith("http://127.0.0.1:") and not url.startswith("http://127.0.0.1:0/")
        proc.send_signal(stop)  # at once: the handler is in place before the server starts
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    assert out.strip().endswith(stopped) if stopped else not out.strip(), out
    assert "Traceback" not in out
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)
