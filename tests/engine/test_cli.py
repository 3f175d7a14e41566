"""``eunomia run --target llm:<spec> --prompt-dir`` and ``eunomia serve`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.engine.fake_chat import FAKE_MODEL, FakeChatServer
from typer.testing import CliRunner

from eunomia.cli import app
from eunomia.errors import EunomiaError
from eunomia.scenarios import Scenario


def test_run_with_an_llm_target_and_a_prompt_dir(
    example_scenario: Scenario, examples_copy: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeChatServer(example_scenario)
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "user.txt").write_text("Custom user prompt.\n{submission}\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    with fake.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-secret")
        result = CliRunner().invoke(app, [
            "run", str(examples_copy), "--target", f"llm:openai:{FAKE_MODEL}",
            "--run-name", "cli1", "--results", str(tmp_path / "results"),
            "--case", "perfect_solution", "--case", "extra_class",
            "--prompt-dir", str(prompts),
        ])
    assert result.exit_code == 0, result.output
    assert len(fake.requests) == 2
    assert all(r["messages"][1]["content"].startswith("Custom user prompt.")
               for r in fake.requests)
    summary = json.loads((tmp_path / "results" / "cli1" / "project_management"
                          / "scenario_results.json").read_text("utf-8"))
    assert (summary["scored_cases"], summary["fully_correct_cases"]) == (2, 2)
    assert summary["target"] == f"llm:openai:{FAKE_MODEL}"


def test_serve_reports_a_bad_template_before_listening(tmp_path: Path) -> None:
    (tmp_path / "system.txt").write_text("{rubric}\n", "utf-8")
    result = CliRunner().invoke(app, ["serve", "--model", "openai:x", "--port", "0",
                                      "--prompt-dir", str(tmp_path)])
    assert isinstance(result.exception, EunomiaError)
    assert str(tmp_path / "system.txt") in str(result.exception)
    assert "unknown placeholder {rubric}" in str(result.exception)
