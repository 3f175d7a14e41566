"""``eunomia run --target athena`` says what happened, as a user sees it from the command line:
every attempt of a case (HTTP 500 retried only with ``--retry-500``), warnings before the first
request, ids in Eunomia's own range, the system's own cost figure beside Eunomia's, and prices
that came from the bundled table rather than the user's."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tests.support.cli import run_cli
from tests.support.scripted_server import (
    RecordedRequest,
    Reply,
    ScriptedServer,
    case_names,
    feedback_reply,
    usage,
)

from eunomia.athena import DEFAULT_ID_BASE
from eunomia.scenarios import Scenario, load_scenario
from eunomia.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"
SECRET = "Zq9-honest-secret-0815"
FAILING = "extra_class"
"""Always answers 500."""
FLAKY = "lowercase_class_names"
"""Answers 503 once, then its expected feedback."""


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, diags = load_scenario(EXAMPLE)
    assert loaded is not None, diags
    return loaded


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The example scenario beside a price file that does not price gpt-4o-mini."""
    shutil.copytree(EXAMPLE, tmp_path / "scenarios" / EXAMPLE.name)
    (tmp_path / "scenarios" / "llm_cost.yml").write_text(
        "llm_costs:\n  gpt-4o:\n    input_cost_per_million: 2.5\n"
        "    output_cost_per_million: 10.0\n", encoding="utf-8")
    return tmp_path / "scenarios"


@pytest.fixture
def server(threaded_server: ScriptedServer, scenario: Scenario) -> ScriptedServer:
    expected = {case.name: case.expected for case in scenario.test_cases}

    def answer(request: RecordedRequest) -> Reply:
        # gpt-4o priced by the user (and the module's own cost figure 10x too high);
        # the dated gpt-4o-mini name priced by nobody but Eunomia's bundled table
        return feedback_reply(expected[request.key], meta={
            "llmRequests": [usage("gpt-4o", 1000, 100),
                            usage("gpt-4o-mini-2024-07-18", 1000, 100)],
            "totalUsage": {"numInputTokens": 2000, "numOutputTokens": 200,
                           "numTotalTokens": 2200, "cost": 0.045}})

    threaded_server.names = case_names(scenario)
    threaded_server.default = answer
    threaded_server.script(FAILING, [Reply(500, {"detail": "the LLM answer did not parse"})])
    threaded_server.script(FLAKY, [Reply(503, {"detail": "busy"}), answer])
    return threaded_server


def _run(folder: Path, server: ScriptedServer, name: str, *extra: str,
         secret: bool = True) -> Any:
    return run_cli("run", folder, "--target", "athena", "--server-url", server.url,
                   "--run-name", name, "--results", folder.parent / "results",
                   "--retries", "2", *extra, cwd=folder.parent,
                   env={"ATHENA_SECRET": SECRET} if secret else {"ATHENA_SECRET": ""})


def _case(folder: Path, run: str, case: str) -> dict[str, Any]:
    path = folder.parent / "results" / run / "project_management" / "test_cases" / f"{case}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _results(folder: Path, run: str) -> dict[str, Any]:
    path = folder.parent / "results" / run / "project_management" / "scenario_results.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_a_500_is_tried_once_and_every_attempt_is_logged(folder: Path,
                                                         server: ScriptedServer) -> None:
    done = _run(folder, server, "once")
    assert done.returncode == 1, done.stderr  # one case failed
    assert server.counts[FAILING] == 1 and server.counts[FLAKY] == 2
    failed = _case(folder, "once", FAILING)
    assert failed["status"] == "failed" and failed["attempts"] == 1
    assert "attempt_log" not in failed  # one attempt: nothing more to say
    flaky = _case(folder, "once", FLAKY)
    assert flaky["status"] == "scored" and flaky["attempts"] == 2
    assert flaky["attempt_log"] == ["HTTP 503", "ok"]
    # the log is in the store, so a later export says the same
    db = RunStore(folder.parent / "results" / "eunomia.db")
    try:
        rows = {r.case_name: r for r in db.iter_cases(db.require_run("once"), "project_management")}
    finally:
        db.close()
    assert rows[FLAKY].attempt_log == ("HTTP 503", "ok") and rows[FAILING].attempt_log == ()


def test_retry_500_retries_it_and_says_so(folder: Path, server: ScriptedServer) -> None:
    done = _run(folder, server, "again", "--retry-500")
    assert done.returncode == 1, done.stderr
    assert server.counts[FAILING] == 3
    failed = _case(folder, "again", FAILING)
    assert failed["attempts"] == 3 and failed["attempt_log"] == ["HTTP 500"] * 3
    listed = {f["test_case"]: f for f in _results(folder, "again")["failures"]}
    assert listed[FAILING]["attempt_log"] == ["HTTP 500"] * 3


def test_ids_are_eunomias_own_and_a_missing_secret_is_warned_about(
        folder: Path, server: ScriptedServer) -> None:
    done = _run(folder, server, "ids", secret=False)
    out = " ".join(done.stdout.split())
    assert "warning: $ATHENA_SECRET is not set" in out
    assert out.index("warning: $ATHENA_SECRET") < out.index("project_management")
    sent = [r.json for r in server.requests]
    assert sent and all(r["submission"]["id"] >= DEFAULT_ID_BASE for r in sent)
    assert all(r["exercise"]["id"] >= DEFAULT_ID_BASE for r in sent)
    assert "Authorization" not in server.requests[0].headers

    server.requests.clear()
    base = 7_000_000
    done = _run(folder, server, "based", "--athena-id-base", str(base))
    assert done.returncode == 1, done.stderr
    assert all(base <= r.json["submission"]["id"] < 2**53 for r in server.requests)
    db = sqlite3.connect(folder.parent / "results" / "eunomia.db")
    try:
        settings = json.loads(db.execute(
            "SELECT settings FROM runs WHERE name='based'").fetchone()[0])
    finally:
        db.close()
    assert settings["athena_id_base"] == base


@pytest.mark.parametrize("value", ["0", "-5", str(2**53), "x"])
def test_a_bad_id_base_is_refused_before_any_request(folder: Path, server: ScriptedServer,
                                                     value: str) -> None:
    done = _run(folder, server, "bad", "--athena-id-base", value)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "athena-id-base" in done.stdout + done.stderr
    assert server.requests == []


def test_two_cost_figures_and_bundled_prices_are_said(folder: Path,
                                                      server: ScriptedServer) -> None:
    done = _run(folder, server, "costs")
    assert done.returncode == 1, done.stderr
    case = _case(folder, "costs", "perfect_solution")
    cost = case["cost"]
    # Eunomia: gpt-4o at the user's price, gpt-4o-mini at the bundled one
    ours = (1000 * 2.5 + 100 * 10.0 + 1000 * 0.15 + 100 * 0.60) / 1e6
    assert cost["total_cost"] == pytest.approx(ours)
    assert cost["reported_by_system"] == 0.045 and cost["disagrees_with_reported"] is True
    lines = {d["llm"]: d for d in cost["details"]}
    assert lines["gpt-4o-mini-2024-07-18"]["priced_as"] == "gpt-4o-mini"
    assert "bundled_price_as_of" in lines["gpt-4o-mini-2024-07-18"]
    assert "bundled_price_as_of" not in lines["gpt-4o"]
    warnings = " ".join(_results(folder, "costs")["warnings"])
    assert "the system's own cost figure differs from Eunomia's on 13 of 13 case(s)" in warnings
    assert "gpt-4o-mini-2024-07-18 priced as gpt-4o-mini" in warnings
    assert "bundled table" in warnings and "gpt-4o priced" not in warnings
    assert "cost figure differs" in " ".join(done.stdout.split())
