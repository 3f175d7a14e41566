"""The ``eunomia`` command as a user runs it: a subprocess, with and without a terminal."""

from __future__ import annotations

import csv
import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest
from tests.support.cli import cli_env, run_cli
from tests.support.scripted_server import (
    RecordedRequest,
    Reply,
    ScriptedServer,
    case_names,
    feedback_reply,
    usage,
)

from eunomia.scenarios import Scenario, load_scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"
SECRET = "Zq9-cli-secret-4711"
AUTO_NAME = re.compile(r"^run_\d{8}_\d{6}_[0-9a-f]{6}$")


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    loaded, diags = load_scenario(EXAMPLES / "project_management")
    assert loaded is not None, diags
    return loaded


@pytest.fixture
def server(threaded_server: ScriptedServer, scenario: Scenario) -> ScriptedServer:
    """Answers every case with exactly its expected instructions."""
    expected = {case.name: case.expected for case in scenario.test_cases}

    def answer(request: RecordedRequest) -> Reply:
        return feedback_reply(expected[request.key], llm_requests=[usage("gpt-4o", 100, 10)])

    threaded_server.names = case_names(scenario)
    threaded_server.default = answer
    return threaded_server


def _env(**extra: str) -> dict[str, str]:
    return cli_env({"ATHENA_SECRET": SECRET, **extra})


def eunomia(*args: str | Path, cwd: Path, stdin: Any = subprocess.DEVNULL,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, env={"ATHENA_SECRET": SECRET}, stdin=stdin,
                   timeout=timeout)


def _summary(folder: Path) -> dict[str, str]:
    with (folder / "tables" / "scenario_summary.csv").open(newline="", encoding="utf-8") as fh:
        return dict(list(csv.reader(fh))[1:])


def _case_files(folder: Path) -> list[str]:
    return sorted(p.stem for p in (folder / "test_cases").glob("*.json"))


# --- validate ----------------------------------------------------------------------------------


def test_validate_example(tmp_path: Path) -> None:
    got = eunomia("validate", EXAMPLES, cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "project_management: 7 criteria, 15 instructions, 14 test cases" in got.stdout
    assert "0 error(s), 0 warning(s)" in got.stdout


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """Two broken scenarios and a broken price file, in one folder."""
    root = tmp_path / "broken"
    for name in ("schema_bad", "semantic_bad"):
        shutil.copytree(EXAMPLES / "project_management", root / name,
                        ignore=shutil.ignore_patterns("_generate.py"))
    (root / "llm_cost.yml").write_text(
        "llm_costs:\n  gpt-4o:\n    input_cost_per_million: -1\n"
        "    output_cost_per_million: 10\n    typo_key: 1\n", encoding="utf-8")
    schema = root / "schema_bad" / "manifest.yml"
    text = schema.read_text(encoding="utf-8")
    text = text.replace("  max_points: 8\n", '  max_points: "eight"\n', 1)
    text = text.replace("        credits: 2.0\n", "", 1)  # relationship_correct
    schema.write_text(text, encoding="utf-8")
    semantic = root / "semantic_bad" / "manifest.yml"
    text = semantic.read_text(encoding="utf-8")
    text = text.replace('      - id: "classes_missing"', '      - id: "classes_correct"', 1)
    text = text.replace('  - "no_extras"\n', '  - "no_extra"\n', 1)
    text = text.replace('"wrong_multiplicity": "multiplicity_incorrect"',
                        '"wrong_multiplicity": "multiplicity_wrong"', 1)
    text = text.replace('example_solution: "example_solution.json"',
                        'example_solution: "missing_solution.json"', 1)
    semantic.write_text(text, encoding="utf-8")
    (root / "semantic_bad" / "test_cases" / "broken.json").write_text(
        '{"type": "ClassDiagram",', encoding="utf-8")
    return root


def test_validate_broken_lists_every_problem(broken: Path, tmp_path: Path) -> None:
    got = eunomia("validate", broken, cwd=tmp_path)
    out = got.stdout + got.stderr
    assert "Traceback" not in out
    schema = broken / "schema_bad" / "manifest.yml"
    semantic = broken / "semantic_bad" / "manifest.yml"
    prices = broken / "llm_cost.yml"
    expected = [
        (schema, "[exercise.max_points]", "valid number"),
        (schema, "[criteria[1].instructions[0].credits]", "Field required"),
        (prices, "[llm_costs.gpt-4o.input_cost_per_million]", "greater than or equal to 0"),
        (prices, "[llm_costs.gpt-4o.typo_key]", "Extra inputs"),
        (semantic, "[criteria[0].instructions[1].id]", "duplicate instruction id"),
        (semantic, "[exercise.example_solution]", "'missing_solution.json' not found"),
        (semantic, "[default_expected[6]]", "unknown instruction id 'no_extra'"),
        (semantic, "[test_case_diffs.multiplicity_correct.wrong_multiplicity]",
         "unknown instruction id 'multiplicity_wrong'"),
        (semantic, "[test_case_diffs.classes_correct.missing_task_class]",
         "unknown instruction id 'classes_missing'"),
    ]
    lines = got.stdout.splitlines()
    for file, key, message in expected:
        assert any(str(file) in line and key in line and message in line
                   for line in lines), (file, key, message, got.stdout)
    bad_case = broken / "semantic_bad" / "test_cases" / "broken.json"
    assert any(str(bad_case) in line and "invalid JSON" in line for line in lines)
    errors = int(re.search(r"(\d+) error\(s\)", got.stdout).group(1))  # type: ignore[union-attr]
    assert errors >= len(expected) + 1


def test_validate_broken_exits_1(broken: Path, tmp_path: Path) -> None:
    assert eunomia("validate", broken, cwd=tmp_path).returncode == 1


# --- run: options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--concurrency", "0", "--concurrency must be positive, got 0"),
        ("--timeout", "0", "--timeout must be positive, got 0"),
        ("--timeout", "-1.5", "--timeout must be positive, got -1.5"),
        ("--retries", "-1", "--retries must be non-negative, got -1"),
        ("--max-cases", "0", "--max-cases must be positive, got 0"),
    ],
)
def test_run_rejects_bad_numbers(option: str, value: str, message: str, tmp_path: Path) -> None:
    got = eunomia("run", EXAMPLES, "--server-url", "http://127.0.0.1:9/x", option, value,
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 2
    assert message in got.stderr
    assert "Traceback" not in got.stdout + got.stderr
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.csv"))


@pytest.mark.parametrize("args", [("--concurrency", "abc"), ("--bogus",)])
def test_run_usage_errors_without_traceback(args: tuple[str, ...], tmp_path: Path) -> None:
    got = eunomia("run", EXAMPLES, *args, cwd=tmp_path)
    assert got.returncode == 2
    assert "Traceback" not in got.stderr


def test_run_rejects_non_http_server_url(tmp_path: Path) -> None:
    got = eunomia("run", EXAMPLES, "--server-url", "ftp://127.0.0.1/x", "--run-name", "x",
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 2
    assert "only absolute http:// or https:// URLs" in got.stderr
    assert "Traceback" not in got.stderr


def test_run_no_case_matches(server: ScriptedServer, tmp_path: Path) -> None:
    got = eunomia("run", EXAMPLES, "--server-url", server.url, "--case", "nothing_like_this*",
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 2
    assert "no test case matches nothing_like_this*" in got.stderr
    assert server.requests == []


# --- run: against the scripted server --------------------------------------------------------


def test_run_case_globs(server: ScriptedServer, tmp_path: Path) -> None:
    got = eunomia("run", EXAMPLES, "--server-url", server.url, "--run-name", "globs",
                  "--case", "missing_*", "--case", "project_management/perfect_*",
                  "--results", tmp_path / "results", "--retries", "0", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    folder = tmp_path / "results" / "globs" / "project_management"
    wanted = ["missing_assignment", "missing_attributes", "missing_task_class",
              "perfect_solution"]
    assert _case_files(folder) == wanted
    assert sorted(server.counts) == wanted
    summary = _summary(folder)
    assert summary["Total Cases"] == "4"
    assert summary["Fully Correct Cases"] == "4"
    assert summary["Total Cost"] == "0.0014"  # 4 * (100 * 2.5e-6 + 10 * 10e-6)
    assert {r.headers["Authorization"] for r in server.requests} == {SECRET}
    assert "Fully Correct Cases" in got.stdout  # the terminal summary


def test_run_max_cases_and_auto_name_without_terminal(
    server: ScriptedServer, tmp_path: Path
) -> None:
    got = eunomia("run", EXAMPLES, "--server-url", server.url, "--max-cases", "2",
                  "--x-server-url", "https://lms.example.org",
                  "--results", tmp_path / "results", cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "Run name" not in got.stdout and "Test cases to run" not in got.stdout
    (run_dir,) = [p for p in (tmp_path / "results").iterdir()
                  if p.is_dir() and p.name != "eunomia.db-locks"]  # the runs' locks
    assert AUTO_NAME.match(run_dir.name)
    assert _case_files(run_dir / "project_management") == [
        "aggregation_instead_of_composition", "association_and_uppercase_attributes"]
    assert len(server.requests) == 2
    assert {r.headers["X-Server-URL"] for r in server.requests} == {"https://lms.example.org"}


def test_no_prompt_when_only_stdin_is_a_terminal(server: ScriptedServer, tmp_path: Path) -> None:
    master, slave = pty.openpty()
    try:
        got = eunomia("run", EXAMPLES, "--server-url", server.url, "--case", "perfect_solution",
                      "--results", tmp_path / "results", cwd=tmp_path, stdin=slave, timeout=30)
    finally:
        os.close(slave)
        os.close(master)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "Run name" not in got.stdout
    (run_dir,) = [p for p in (tmp_path / "results").iterdir()
                  if p.is_dir() and p.name != "eunomia.db-locks"]  # the runs' locks
    assert AUTO_NAME.match(run_dir.name)


def test_prompts_at_a_terminal_are_asked_and_honoured(
    server: ScriptedServer, tmp_path: Path
) -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "run", str(EXAMPLES), "--server-url", server.url,
         "--results", str(tmp_path / "results"), "--retries", "0"],
        stdin=slave, stdout=slave, stderr=slave, cwd=tmp_path, env=_env(TERM="xterm"),
        close_fds=True,
    )
    os.close(slave)
    buf = b""
    asked_name = asked_cases = False
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                buf += chunk
            text = buf.decode("utf-8", errors="replace")
            if not asked_name and "Run name" in text:
                asked_name = True
                os.write(master, b"pty_run\n")
            if not asked_cases and "Test cases to run" in text:
                asked_cases = True
                os.write(master, b"missing_a*, perfect_solution\n")
            if not ready and proc.poll() is not None:
                break
        else:
            proc.kill()
            pytest.fail(f"no exit within 30 s; output so far:\n{buf.decode(errors='replace')}")
    finally:
        os.close(master)
    assert proc.wait(10) == 0, buf.decode(errors="replace")
    assert asked_name and asked_cases
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buf.decode("utf-8", errors="replace"))
    assert "Run name (run_" in text  # the generated name is offered as the default
    # the cases are listed before the question
    assert "project_management: aggregation_instead_of_composition" in text
    folder = tmp_path / "results" / "pty_run" / "project_management"
    assert _case_files(folder) == ["missing_assignment", "missing_attributes",
                                   "perfect_solution"]
    assert sorted(server.counts) == ["missing_assignment", "missing_attributes",
                                     "perfect_solution"]


# --- failures and the secret -------------------------------------------------------------------


@pytest.fixture
def leaky(server: ScriptedServer) -> ScriptedServer:
    """Two cases fail with error bodies that echo the Authorization header."""
    server.script("extra_class", Reply(500, text=f"boom Authorization: {SECRET} ({SECRET})"))
    server.script("wrong_multiplicity", Reply(422, {"detail": f"bad secret {SECRET}"}))
    return server


def test_secret_never_written_or_printed(leaky: ScriptedServer, tmp_path: Path) -> None:
    results = tmp_path / "results"
    got = eunomia("run", EXAMPLES, "--server-url", leaky.url, "--run-name", "leak",
                  "--results", results, "--retries", "0", cwd=tmp_path)
    assert {r.headers.get("Authorization") for r in leaky.requests} == {SECRET}
    assert len(leaky.requests) == 14
    assert "2 case(s) failed" in got.stdout
    assert "HTTP 500: boom" in got.stdout  # the failure is shown, redacted
    assert SECRET not in got.stdout
    assert SECRET not in got.stderr
    files = [p for p in results.rglob("*") if p.is_file()]
    assert len(files) > 14
    leaking = [p for p in files if SECRET.encode() in p.read_bytes()]
    assert leaking == []
    failures = (results / "leak" / "project_management" / "failures.json").read_text()
    assert "extra_class" in failures and "wrong_multiplicity" in failures
    assert "***" in failures


def test_run_with_failed_cases_exits_1(leaky: ScriptedServer, tmp_path: Path) -> None:
    got = eunomia("run", EXAMPLES, "--server-url", leaky.url, "--run-name", "f",
                  "--case", "extra_class", "--results", tmp_path / "results",
                  "--retries", "0", cwd=tmp_path)
    assert "1 case(s) failed" in got.stdout
    assert got.returncode == 1


def test_run_name_reuse_refused(server: ScriptedServer, tmp_path: Path) -> None:
    args = ("run", EXAMPLES, "--server-url", server.url, "--run-name", "same",
            "--case", "perfect_solution", "--results", tmp_path / "results")
    assert eunomia(*args, cwd=tmp_path).returncode == 0
    again = eunomia(*args, cwd=tmp_path)
    assert again.returncode == 2
    assert "already" in again.stderr and "'same'" in again.stderr
    assert "Traceback" not in again.stderr
    assert server.counts["perfect_solution"] == 1


# --- demo ---------------------------------------------------------------------------------------


def test_demo_writes_results(tmp_path: Path) -> None:
    got = eunomia("demo", "--target", "example", "--results", tmp_path / "results",
                  "--run-name", "d1", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    folder = tmp_path / "results" / "d1" / "project_management"
    assert len(_case_files(folder)) == 14
    summary = _summary(folder)
    # the example server gets everything right but job_instead_of_task (over-zealous) and
    # redundant_project_attribute (misses extras_present)
    assert summary["Total Cases"] == "14"
    assert summary["Fully Correct Cases"] == "12"
    assert summary["Correctly Detected Test Cases / Total Cases"] == "13/14"
    assert summary["Average Test Case Score"] == "93.75"  # (12*100 + 37.5 + 75) / 14
    assert summary["Total Cost"] == "0"
    assert "Results:" in got.stdout
