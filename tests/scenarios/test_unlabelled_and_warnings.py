"""Unlabelled scenarios (no default_expected) and the run-level warnings of a scenario run.

A figure that measures nothing must say so: a system that names no grading instruction, or
answers the same on every diagram, gets a warning in the terminal, the summary file and the
HTML report; a scenario without expectations reports no correctness at all, only what needs
none (consistency across repeats, feedback, cost, latency, failures).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.support.cli import run_cli
from tests.support.scripted_server import ScriptedServer, feedback_reply

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"


def _unlabelled(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    shutil.copytree(EXAMPLES, folder)
    manifest = folder / "project_management" / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    text = re.sub(r"(?ms)^default_expected:.*?(?=^\S)", "", text)
    text = re.sub(r"(?ms)^test_case_diffs:.*\Z", "", text)
    assert "default_expected" not in text and "test_case_diffs" not in text
    manifest.write_text(text, encoding="utf-8")
    return folder / "project_management"


def _results(folder: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((folder / "scenario_results.json").read_text())
    return data


def test_an_unlabelled_scenario_loads(tmp_path: Path) -> None:
    got = run_cli("validate", _unlabelled(tmp_path), cwd=tmp_path)
    assert got.returncode == 0, got.stdout
    assert "project_management: 7 criteria, 15 instructions, 14 test cases" in got.stdout


def test_diffs_need_expectations(tmp_path: Path) -> None:
    scenario = _unlabelled(tmp_path)
    with (scenario / "manifest.yml").open("a", encoding="utf-8") as out:
        out.write("test_case_diffs:\n  classes_correct:\n    missing_class: classes_missing\n")
    got = run_cli("validate", scenario, cwd=tmp_path)
    assert got.returncode == 1
    assert "test_case_diffs need default_expected" in got.stdout


def test_an_unlabelled_run_measures_no_correctness(tmp_path: Path) -> None:
    scenario = _unlabelled(tmp_path)
    got = run_cli("run", scenario, "--target", "example", "--repeat", "2", "--run-name", "u",
                  "--results", tmp_path / "results", cwd=tmp_path, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "not measured (unlabelled)" in got.stdout
    assert "correctness is not measured" in got.stdout
    assert "Consistency across repeats" in got.stdout
    folder = tmp_path / "results" / "u" / "project_management"
    data = _results(folder)
    assert data["labelled"] is False and data["scored_cases"] == 28
    assert data["fully_correct_cases"] is None and data["average_test_case_score"] is None
    assert data["correctly_detected_cases"] is None
    assert data["feedback_items"] and data["feedback_items_naming_an_instruction"]
    assert any("unlabelled" in w for w in data["warnings"])  # type: ignore[union-attr]
    assert "consistency" in data
    case = json.loads((folder / "test_cases" / "perfect_solution.json").read_text())
    assert case["returned_instructions"] and "test_case_score_percent" not in case
    assert "missing_instructions" not in case and "fully_correct" not in case
    table = (folder / "tables" / "test_case_results.csv").read_text().splitlines()
    perfect = next(line for line in table if line.startswith("perfect_solution,"))
    assert perfect.split(",")[1:4] == ["", "", ""]  # detected, score %, expected points
    report = run_cli("report", "u", "--results", tmp_path / "results", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "results" / "u" / "report.html").read_text()
    assert "not measured (unlabelled scenario)" in html and "Mean case score" not in html


def test_no_sgi_ids_is_said_loudly(threaded_server: ScriptedServer, tmp_path: Path) -> None:
    threaded_server.default = feedback_reply([None, None, None])  # items naming nothing
    got = run_cli("run", EXAMPLES, "--server-url", threaded_server.url, "--run-name", "n",
                  "--max-cases", "4", "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    message = ("the system returned 12 feedback item(s) and no structured grading "
               "instruction ids: SGI scores measure nothing")
    assert message in " ".join(got.stdout.split())
    data = _results(tmp_path / "results" / "n" / "project_management")
    assert message in data["warnings"]  # type: ignore[operator]
    run_cli("report", "n", "--results", tmp_path / "results", cwd=tmp_path)
    html = (tmp_path / "results" / "n" / "report.html").read_text()
    assert "SGI scores measure nothing" in html and 'class="warnings"' in html


def test_the_same_answer_everywhere_is_said(threaded_server: ScriptedServer,
                                           tmp_path: Path) -> None:
    threaded_server.default = feedback_reply([1, 4])  # whatever the diagram
    got = run_cli("run", EXAMPLES, "--server-url", threaded_server.url, "--run-name", "s",
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    data = _results(tmp_path / "results" / "s" / "project_management")
    assert any("the same answer (2 instruction(s)) on 14 of 14 cases" in w
               for w in data["warnings"])  # type: ignore[union-attr]


def test_a_varied_system_gets_no_warning(tmp_path: Path) -> None:
    got = run_cli("run", EXAMPLES, "--target", "example", "--run-name", "ok",
                  "--results", tmp_path / "results", cwd=tmp_path, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    assert _results(tmp_path / "results" / "ok" / "project_management")["warnings"] == []
    assert "warning:" not in got.stdout
