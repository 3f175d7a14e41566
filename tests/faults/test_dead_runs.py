"""A run killed with SIGKILL says it is interrupted (``runs``, ``view``, ``report``) while a live
one says who runs it; runs started together without ``--run-name`` never clash.

Against a scripted Athena module on 127.0.0.1 that answers slowly enough to kill the run in the
middle (issue 31, points 2 and 5)."""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from tests.faults.test_fault_injection import make_scenario
from tests.support.cli import cli_env, run_cli, run_statuses
from tests.support.scripted_server import ScriptedServer, feedback_reply

from eunomia.viewer import create_app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
CASES = 40


def _stored(db: Path, run: str) -> int:
    if not db.is_file():
        return 0
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return int(con.execute("SELECT COUNT(*) FROM cases c JOIN runs r ON r.id = c.run_id"
                               " WHERE r.name = ?", (run,)).fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        con.close()


async def _viewer_pages(store: Path, run: str) -> tuple[str, str]:
    client = TestClient(TestServer(create_app(store), host="127.0.0.1", port=0))
    await client.start_server()
    try:
        listing = await (await client.get("/")).text()
        page = await (await client.get(f"/runs/{run}")).text()
    finally:
        await client.close()
    return listing, page


@pytest.fixture
def slow_server(threaded_server: ScriptedServer) -> ScriptedServer:
    threaded_server.default = lambda request: feedback_reply([1, 3, 6], delay_s=1.0)
    return threaded_server


def test_a_killed_run_reads_interrupted_everywhere_and_a_live_one_is_not_taken(
        slow_server: ScriptedServer, tmp_path: Path) -> None:
    results = tmp_path / "results"
    db = results / "eunomia.db"
    # 40 cases of a second each, one at a time: alive for as long as the checks take
    folder = make_scenario(tmp_path, CASES)
    proc = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "run", str(folder), "--server-url", slow_server.url,
         "--run-name", "victim", "--results", str(results), "--concurrency", "1"],
        cwd=tmp_path, env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while _stored(db, "victim") < 1:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run stored nothing within 60 s"
            time.sleep(0.05)

        live = run_cli("runs", "--results", results, cwd=tmp_path)
        assert live.returncode == 0, live.stdout + live.stderr
        assert run_statuses(live.stdout)["victim"].startswith(f"running (process {proc.pid} on ")
        # a live run is neither resumed nor replaced by another process, and no hint says to
        for args in (("run", "--resume", "victim"),
                     ("run", str(folder), "--run-name", "victim", "--server-url",
                      slow_server.url)):
            refused = run_cli(*args, "--results", results, cwd=tmp_path)
            assert refused.returncode == 2, refused.stdout + refused.stderr
            said = " ".join(refused.stderr.split())
            assert "'victim'" in said and "is running now" in said and f"process {proc.pid}" \
                in said, said
            assert "--resume" not in said and "Traceback" not in said

        assert proc.poll() is None, "the run ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(10) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    hint = "interrupted — `eunomia run --resume victim` continues it"

    listed = run_cli("runs", "--results", results, cwd=tmp_path)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert run_statuses(listed.stdout) == {"victim": hint}, listed.stdout

    reported = run_cli("report", "victim", "--results", results, cwd=tmp_path)
    assert reported.returncode == 0, reported.stdout + reported.stderr
    page = (results / "victim" / "report.html").read_text(encoding="utf-8")
    assert "interrupted — `eunomia run --resume victim` continues it" in page

    listing, viewed = asyncio.run(_viewer_pages(db, "victim"))
    assert "interrupted" in listing and "`--resume victim` continues it" in listing
    assert hint in viewed

    slow_server.default = feedback_reply([1, 3, 6])  # the rest at once
    resumed = run_cli("run", "--resume", "victim", "--results", results, cwd=tmp_path,
                      timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    done = run_cli("runs", "--results", results, cwd=tmp_path)
    assert run_statuses(done.stdout) == {"victim": "complete"}
    assert _stored(db, "victim") == CASES


def test_runs_started_together_without_a_name_never_clash(threaded_server: ScriptedServer,
                                                           tmp_path: Path) -> None:
    """Four runs in the same second (the same results folder), then four in a row."""
    threaded_server.default = lambda request: feedback_reply([1, 3, 6])
    results = tmp_path / "results"
    args = [sys.executable, "-m", "eunomia", "run", str(EXAMPLE), "--server-url",
            threaded_server.url, "--results", str(results), "--max-cases", "2"]
    procs = [subprocess.Popen(args, cwd=tmp_path, env=cli_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, out + err
        assert "already exists" not in out + err and "--resume" not in out + err
    for _ in range(4):
        got = run_cli(*args[3:], cwd=tmp_path)
        assert got.returncode == 0, got.stdout + got.stderr
    names = {p.name for p in results.iterdir() if p.name.startswith("run_")}
    assert len(names) == 8
    assert all(re.fullmatch(r"run_\d{8}_\d{6}_[0-9a-f]{6}", n) for n in names), names
