"""SIGKILL in the middle of a run, then ``--resume``: same results, no finished case asked twice.

The fault server runs in its own process without faults and with a small latency,
so a run of 200 cases at concurrency 4 takes a few seconds; it counts the requests
per case (submission id).
"""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faults.test_fault_injection import make_scenario
from tests.support.fault_server import FaultStats, fault_server_process, fetch_stats

from eunomia import defaults

CASES = 200
CONCURRENCY = 4
LATENCY_S = 0.04
TIMING_COLUMNS = {"Request Time (s)", "Average Request Time (s)"}
# timing, the run's name, and the server's per-request token (it counts the requests of
# both runs, so it differs between them by construction)
IGNORED_KEYS = {"request_time_s", "cached", "attempts", "created", "finished",
                "average_request_time_s", "run_name", "fault_token"}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update({"NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"})
    env.pop("ATHENA_SECRET", None)
    return env


def _cmd(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "eunomia", *map(str, args)]


@pytest.fixture(scope="module")
def server() -> Iterator[dict[str, Any]]:
    with fault_server_process("--latency", str(LATENCY_S), "--seed", "11") as info:
        yield info


def _stored(db: Path, run: str) -> dict[str, str]:
    """case name -> status of the cases stored for a run (read-only, while it is written)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = con.execute(
            "SELECT c.case_name, c.status FROM cases c JOIN runs r ON r.id = c.run_id"
            " WHERE r.name = ?", (run,)).fetchall()
    except sqlite3.OperationalError:  # the schema is not created yet
        return {}
    finally:
        con.close()
    return dict(rows)


def _csv(path: Path, drop: set[str]) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [{k: v for k, v in row.items() if k not in drop} for row in csv.DictReader(fh)]


def _json(path: Path) -> Any:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in IGNORED_KEYS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(path.read_text(encoding="utf-8")))


def _results(folder: Path) -> dict[str, Any]:
    """Everything a run wrote for the scenario, without the timing values."""
    out: dict[str, Any] = {}
    for name in ("test_case_results.csv", "scenario_summary.csv", "criteria_summary.csv",
                 "instruction_summary.csv"):
        out[name] = _csv(folder / "tables" / name, TIMING_COLUMNS)
    summary = out["scenario_summary.csv"]
    out["scenario_summary.csv"] = [r for r in summary if r["Metric"] not in TIMING_COLUMNS]
    for name in ("scenario_results.json", "failures.json"):
        out[name] = _json(folder / name)
    out["cases"] = {p.stem: _json(p) for p in sorted((folder / "test_cases").glob("*.json"))}
    return out


def _counts(server: dict[str, Any]) -> FaultStats:
    return fetch_stats(server["base_url"])


def test_sigkill_then_resume_equals_an_uninterrupted_run(
    server: dict[str, Any], tmp_path: Path
) -> None:
    folder = make_scenario(tmp_path, CASES)
    common = ("--server-url", server["url"], "--concurrency", str(CONCURRENCY),
              "--retries", "0", "--timeout", "20")

    # the reference: an uninterrupted run in its own store (so nothing comes from a cache)
    base = subprocess.run(_cmd("run", folder, "--run-name", "ref", "--results",
                               tmp_path / "ref", *common),
                          env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False)
    assert base.returncode == 0, base.stdout + base.stderr
    before = _counts(server).counts
    assert sum(before.values()) == CASES

    # the run to kill
    results = tmp_path / "results"
    db = results / "eunomia.db"
    proc = subprocess.Popen(_cmd("run", folder, "--run-name", "killed", "--results", results,
                                 *common),
                            env=_env(), cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if db.is_file() and len(_stored(db, "killed")) >= CASES // 4:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.02)
        else:
            pytest.fail("the run stored too few cases within 60 s")
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(10) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    finished_at_kill = _stored(db, "killed")
    assert CASES // 4 <= len(finished_at_kill) < CASES, len(finished_at_kill)
    assert set(finished_at_kill.values()) == {"scored"}

    resumed = subprocess.run(_cmd("run", "--resume", "killed", "--results", results,
                                  "--concurrency", str(CONCURRENCY)),
                             env=_env(), cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, check=False)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "Traceback" not in resumed.stderr

    # no finished case was requested again; at most the cases in flight at the kill were
    after = _counts(server).counts
    delta = {sid: after[sid] - before[sid] for sid in after}
    folder_out = results / "killed" / "project_management"
    cases = _results(folder_out)["cases"]
    assert len(cases) == CASES
    sid_of = _submission_ids(folder)
    for name in finished_at_kill:
        assert delta[sid_of[name]] == 1, f"{name} was finished before the kill but asked again"
    assert all(delta[sid] >= 1 or name in finished_at_kill
               or _was_cached(db, name) for name, sid in sid_of.items())
    twice = [name for name, sid in sid_of.items() if delta[sid] > 1]
    # only what was in flight at the kill, and what had finished since the last group commit
    # (STORE_GROUP_DELAY_S: at most as many cases as the places answer in that time)
    uncommitted = CONCURRENCY * math.ceil(defaults.STORE_GROUP_DELAY_S / LATENCY_S)
    assert len(twice) <= CONCURRENCY + uncommitted, twice
    assert max(delta.values()) <= 2

    # the results equal the uninterrupted run's
    assert _results(folder_out) == _results(tmp_path / "ref" / "ref" / "project_management")

    listed = subprocess.run(_cmd("runs", "--results", results), env=_env(), cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, check=False)
    assert listed.returncode == 0, listed.stderr
    (line,) = [ln for ln in listed.stdout.splitlines() if "killed" in ln]
    assert "complete" in line and str(CASES) in line


def _submission_ids(folder: Path) -> dict[str, int]:
    from eunomia.scenarios import load_scenario

    scenario, diags = load_scenario(folder)
    assert scenario is not None, diags
    return {c.name: c.submission_id for c in scenario.test_cases}


def _was_cached(db: Path, case: str) -> bool:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = con.execute("SELECT cached FROM cases WHERE case_name=?", (case,)).fetchone()
    finally:
        con.close()
    return bool(row and row[0])
