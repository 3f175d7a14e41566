"""Every command that starts a run refuses a run name that is not a plain folder name, with
the same message, before anything is asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "examples" / "scenarios"
SUITE = ROOT / "examples" / "tasks" / "ecommerce" / "summarization.yaml"


@pytest.mark.parametrize("args", [
    ("run", SCENARIOS, "--server-url", "http://127.0.0.1:9/feedback_suggestions"),
    ("eval", SUITE, "--model", "openai:x", "--judge", "none"),
    ("eval", SUITE, "--model", "openai:x", "--model", "openai:y", "--judge", "openai:z",
     "--pairwise"),
    ("judge-check", SUITE, "--judge", "openai:z"),
])
@pytest.mark.parametrize("name", ["../escape", "a b", "x" * 101, "-dash"])
def test_a_run_name_that_is_not_a_folder_name_is_refused(
        tmp_path: Path, args: tuple[str | Path, ...], name: str) -> None:
    got = run_cli(*args, "--run-name", name, "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 2, got.stdout + got.stderr
    text = " ".join((got.stdout + got.stderr).split())
    assert "invalid run name" in text and "at most 100 characters" in text
    assert "Traceback" not in got.stderr
    assert not (tmp_path / "results" / name).exists()
