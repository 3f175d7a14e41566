"""An id that is not an id, as a run meets it (issue 31, point 3): the run is refused before any
request to the scripted module on 127.0.0.1, naming file, line and key."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.cli import run_cli
from tests.support.scripted_server import ScriptedServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"


def test_a_run_with_an_id_that_is_not_one_asks_nothing(threaded_server: ScriptedServer,
                                                       tmp_path: Path) -> None:
    """Issue 31, point 3, as a run meets it: refused before any request, file, line, key."""
    scenario = tmp_path / "scenarios" / "project_management"
    shutil.copytree(EXAMPLE, scenario)
    manifest = scenario / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    line = text[:text.index('id: "classes_missing"')].count("\n") + 1
    manifest.write_text(text.replace('id: "classes_missing"', "id: .nan", 1), encoding="utf-8")
    got = run_cli("run", scenario, "--server-url", threaded_server.url, "--results",
                  tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 2, got.stdout + got.stderr
    said = " ".join((got.stdout + got.stderr).split())
    assert f"manifest.yml:{line} [criteria[0].instructions[1].id]: YAML reads this id as the " \
           "number NaN, not as text" in said
    assert "Traceback" not in said and threaded_server.requests == []
