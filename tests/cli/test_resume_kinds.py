"""``--resume NAME`` of a run of another kind is refused before anything runs, naming the
command that resumes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.cli import run_cli

from eunomia.store import RunStore


@pytest.mark.parametrize(("command", "stored_kind", "right"), [
    ("run", "tasks", "eval"),
    ("eval", "scenarios", "run"),
    ("judge-check", "tasks", "eval"),
    ("eval", "judge_check", "judge-check"),
])
def test_resume_of_another_kind_names_the_right_command(
        tmp_path: Path, command: str, stored_kind: str, right: str) -> None:
    store = RunStore(tmp_path / "eunomia.db")
    store.create_run("earlier", stored_kind, ["x"], {"paths": []})
    store.close()
    done = run_cli(command, "--resume", "earlier", "--results", tmp_path, cwd=tmp_path)
    text = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2, text
    assert f"resume it with 'eunomia {right} --resume earlier'" in text
    assert "Traceback" not in text


def test_resume_without_a_store_says_where_it_looked(tmp_path: Path) -> None:
    done = run_cli("run", "--resume", "nothing", "--results", tmp_path / "none", cwd=tmp_path)
    assert done.returncode == 2
    assert "no run store at" in " ".join((done.stdout + done.stderr).split())
