"""``eunomia export --output``: a file path gives a file, a folder a folder (issue #30, 6:
``--format csv --output exp.csv`` made a folder named exp.csv)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "scenarios" / "project_management"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("export")
    done = run_cli("run", SCENARIO, "--target", "baseline:default", "--max-cases", "3",
                   "--results", where / "results", "--run-name", "base", cwd=where)
    assert done.returncode == 0, done.stdout + done.stderr
    return where


def export(where: Path, *args: str) -> tuple[int, str]:
    done = run_cli("export", "base", "--results", where / "results", *args, cwd=where)
    return done.returncode, " ".join((done.stdout + done.stderr).split())


def test_csv_to_a_file_name_is_refused_saying_what_to_give(results: Path) -> None:
    code, out = export(results, "--format", "csv", "--output", "exp.csv")
    assert code == 2, out
    assert "--output exp.csv: names a file, and --format csv writes a folder of files" in out
    assert "--format jsonl --output exp.jsonl" in out
    assert not (results / "exp.csv").exists()
    code, out = export(results, "--format", "csv", "--output", "-")
    assert code == 2 and "not standard output" in out and not (results / "-").exists()
    (results / "taken.txt").write_text("mine\n", encoding="utf-8")
    code, out = export(results, "--format", "csv", "--output", "taken.txt")
    assert code == 2 and (results / "taken.txt").read_text(encoding="utf-8") == "mine\n"


def test_csv_to_a_folder_writes_the_files_under_it(results: Path) -> None:
    code, out = export(results, "--format", "csv", "--output", "exp")
    assert code == 0, out
    tables = results / "exp" / "base" / "project_management" / "tables"
    assert (tables / "test_case_results.csv").is_file()
    assert json.loads((results / "exp" / "base" / "run.json").read_text())["run_name"] == "base"


def test_one_file_format_to_a_folder_writes_its_file_inside(results: Path) -> None:
    (results / "existing").mkdir()
    for folder in ("existing", "new/"):
        code, out = export(results, "--format", "jsonl", "--output", folder)
        assert code == 0, out
        written = results / folder / "base" / "cases.jsonl"
        assert f"jsonl written to {Path(folder) / 'base' / 'cases.jsonl'}" in out
        assert len(written.read_text(encoding="utf-8").splitlines()) == 3
    assert not (results / "new").is_file()
    code, out = export(results, "--format", "junit", "--output", "one.xml")
    assert code == 0 and (results / "one.xml").is_file(), out
