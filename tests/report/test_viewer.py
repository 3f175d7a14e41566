"""The viewer: its three pages, 404 for everything else, loopback only, read-only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from tests.report._html import parse
from tests.report.conftest import SCRIPT_XSS, Runs
from tests.support.scripted_server import free_port

from eunomia.errors import EunomiaError
from eunomia.viewer import create_app
from eunomia.viewer._app import is_loopback

ROOT = Path(__file__).resolve().parents[2]
Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def client(runs: Runs) -> AsyncIterator[Client]:
    server = TestServer(create_app(runs.store), host="127.0.0.1", port=0)
    async with TestClient(server) as c:
        yield c


async def test_runs_list(client: Client) -> None:
    resp = await client.get("/")
    assert resp.status == 200 and resp.content_type == "text/html"
    assert "default-src 'none'" in resp.headers["Content-Security-Policy"]
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    page = parse(await resp.text())
    links = [t.attrs["href"] for t in page.find("a") if "run" in t.attrs.get("class", "")]
    assert links == ["/runs/t1", "/runs/r2", "/runs/r1"]  # newest first
    (form,) = page.find("form")
    assert form.attrs["action"] == "/compare"


async def test_run_page_escapes(client: Client) -> None:
    resp = await client.get("/runs/r1")
    assert resp.status == 200
    html = await resp.text()
    assert SCRIPT_XSS not in html and "&lt;script&gt;window.__pwned=1" in html
    assert '<a href="/">' in html  # the viewer's navigation back to the list


async def test_compare_page(client: Client) -> None:
    resp = await client.get("/compare", params={"a": "r1", "b": "r2"})
    assert resp.status == 200
    assert "<h1>r1 → r2</h1>" in await resp.text()
    assert (await client.get("/compare", params={"a": "r1"})).status == 400
    assert (await client.get("/compare", params={"a": "r1", "b": "zz"})).status == 404
    assert (await client.get("/compare", params={"a": "r1", "b": "../x"})).status == 404


@pytest.mark.parametrize("path", [
    "/runs/nope", "/runs/..%2Feunomia.db", "/runs/%3Cscript%3E", "/eunomia.db",
    "/results/eunomia.db", "/static/app.js", "/runs/r1/extra", "/../eunomia.db", "/favicon.ico",
])
async def test_anything_else_is_404(client: Client, path: str) -> None:
    resp = await client.get(path)
    assert resp.status == 404
    body = await resp.text()
    assert "<script>" not in body and "SQLite" not in body
    assert resp.headers["Content-Security-Policy"]


async def test_read_only(client: Client) -> None:
    assert (await client.post("/", data=b"x")).status == 405
    assert (await client.delete("/runs/r1")).status == 405
    assert (await client.head("/")).status == 200


async def test_only_loopback_host_names(client: Client) -> None:
    resp = await client.get("/", headers={"Host": "attacker.example:8750"})
    assert resp.status == 421
    ok = await client.get("/", headers={"Host": "localhost:8750"})
    assert ok.status == 200


def test_loopback_names() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2")
    assert not is_loopback("example.com")


def test_never_creates_a_store(tmp_path: Path) -> None:
    with pytest.raises(EunomiaError, match="no run store"):
        create_app(tmp_path / "eunomia.db")
    assert not (tmp_path / "eunomia.db").exists()


def test_view_command_serves_on_127_0_0_1(runs: Runs) -> None:
    port = free_port()
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "view", "--store", str(runs.store),
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        body = ""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as resp:
                    body = resp.read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert 'href="/runs/r1"' in body
    finally:
        proc.terminate()
        proc.wait(10)
