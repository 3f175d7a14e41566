"""``eunomia validate`` on suites of any kind, and numbers and URLs checked where they enter.

A number a file gives must be finite and in its range, a URL must be an http(s) URL with a
host: each is a load error naming the file, the key path and the line, before anything is
asked (``credits: 1e999`` once loaded as infinity and every request was then refused).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared" / "conformance"
LLMEVALFORGE = SHARED / "llmevalforge"
BROKEN = ("common_sense_reasoning_ecommerce_tests.yaml", "ethical_reasoning_ecommerce_tests.yaml",
          "general_knowledge_ecommerce_tests.yaml", "instruction_following_ecommerce_tests.yaml")


def _scenario(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    shutil.copytree(EXAMPLES / "scenarios", folder)
    return folder / "project_management"


def _edit(manifest: Path, old: str, new: str) -> int:
    """Replace the first ``old`` with ``new``; the 1-based line it is on."""
    text = manifest.read_text(encoding="utf-8")
    at = text.index(old)
    manifest.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    return text.count("\n", 0, at) + 1


def test_both_kinds_in_one_call(tmp_path: Path) -> None:
    got = run_cli("validate", EXAMPLES / "scenarios", EXAMPLES / "tasks" / "ecommerce",
                  cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "project_management: 7 criteria, 15 instructions, 14 test cases" in got.stdout
    assert "summarization: " in got.stdout and "test case(s)" in got.stdout
    assert got.stdout.strip().endswith("0 error(s), 0 warning(s)")


def test_a_folder_of_folders_is_searched(tmp_path: Path) -> None:
    got = run_cli("validate", EXAMPLES, cwd=tmp_path)
    assert got.returncode == 0, got.stdout
    assert "project_management:" in got.stdout and "summarization:" in got.stdout


def test_not_a_suite(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    got = run_cli("validate", tmp_path / "notes.txt", tmp_path / "missing", cwd=tmp_path)
    assert got.returncode == 1
    assert "notes.txt: not a suite" in got.stdout
    assert "missing: no such file or folder" in got.stdout
    assert "2 error(s)" in got.stdout and "Traceback" not in got.stderr


@pytest.mark.skipif(not LLMEVALFORGE.is_dir(), reason="../shared/conformance not present")
def test_the_four_broken_llmevalforge_files_are_named_with_their_lines(tmp_path: Path) -> None:
    got = run_cli("validate", LLMEVALFORGE / "v1_862b0db" / "custom_tasks",
                  LLMEVALFORGE / "v2_604cd20" / "datasets", cwd=tmp_path)
    assert got.returncode == 1
    errors = [line for line in got.stdout.splitlines() if line.startswith("error:")]
    assert len(errors) == 4, got.stdout
    for name, line in zip(BROKEN, errors, strict=True):
        assert f"custom_tasks/{name}:" in line and "invalid YAML" in line
    assert "4 error(s)" in got.stdout
    assert got.stdout.count("test case(s)") == 7  # every parsable file loads


@pytest.mark.skipif(not LLMEVALFORGE.is_dir(), reason="../shared/conformance not present")
def test_the_whole_conformance_folder_reaches_the_suites_below_config_files(
        tmp_path: Path) -> None:
    # v1_862b0db holds configs.yaml beside custom_tasks/: the folder is claimed by the task
    # kind for its config file, and the suites below it must be read all the same
    got = run_cli("validate", SHARED, cwd=tmp_path)
    assert got.returncode == 1
    out = " ".join(got.stdout.split())
    for name in BROKEN:
        assert re.search(rf"custom_tasks/{name}:\d+:\d+: invalid YAML", out), name
    assert "bpmn_loan: 10 criteria" in out
    assert "summarization_ecommerce_tests: 5 test case(s)" in out


@pytest.mark.parametrize(("old", "new", "key", "message"), [
    ("credits: 1.0", "credits: 1e999", "instructions[0].credits", "finite number"),
    ("credits: 1.0", "credits: .nan", "instructions[0].credits", "finite number"),
    ("credits: 1.0", "credits: 40", "instructions[0].credits",
     "gives 40 credits, more than the exercise's max_points + bonus_points (8)"),
    ("max_points: 8", "max_points: -3", "exercise.max_points", "greater than or equal to 0"),
    ("max_points: 8", "max_points: 1e999", "exercise.max_points", "finite number"),
])
def test_absurd_numbers_are_load_errors(tmp_path: Path, old: str, new: str, key: str,
                                         message: str) -> None:
    folder = _scenario(tmp_path)
    line = _edit(folder / "manifest.yml", old, new)
    got = run_cli("validate", folder, cwd=tmp_path)
    assert got.returncode == 1
    error = next(x for x in got.stdout.splitlines() if x.startswith("error:"))
    assert "manifest.yml" in error and key in error and message in error, error
    assert f"manifest.yml:{line} " in error
    ran = run_cli("run", folder, "--target", "example", "--run-name", "r", "--results",
                  tmp_path / "results", cwd=tmp_path)
    assert ran.returncode == 2 and "cannot run" in ran.stderr + ran.stdout
    assert not (tmp_path / "results" / "r").exists()  # nothing was asked


def test_a_price_must_be_finite(tmp_path: Path) -> None:
    folder = _scenario(tmp_path)
    prices = folder.parent / "llm_cost.yml"
    text = prices.read_text(encoding="utf-8")
    prices.write_text(re.sub(r"output_cost_per_million: [0-9.]+", "output_cost_per_million: 1e999",
                             text, count=1), encoding="utf-8")
    got = run_cli("validate", folder, cwd=tmp_path)
    assert got.returncode == 1
    assert "llm_cost.yml" in got.stdout and "output_cost_per_million" in got.stdout
    assert "finite number" in got.stdout


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--timeout", "inf", "--timeout must be at most 86400"),
    ("--timeout", "1e999", "--timeout must be at most 86400"),
    ("--concurrency", "100000", "--concurrency must be at most 10000"),
    ("--repeat", "1000000", "--repeat must be at most 10000"),
])
def test_absurd_options_are_refused(tmp_path: Path, option: str, value: str,
                                    message: str) -> None:
    got = run_cli("run", _scenario(tmp_path), "--target", "example", option, value,
                  "--results", tmp_path / "results", "--run-name", "x", cwd=tmp_path)
    assert got.returncode == 2
    assert message in got.stderr + got.stdout and "Traceback" not in got.stderr


def test_ids_that_are_not_ids_are_named_with_file_line_and_key(tmp_path: Path) -> None:
    """Issue 31: an empty criterion id, ``.nan`` and numbers were taken as ids ("nan")."""
    manifest = _scenario(tmp_path) / "manifest.yml"
    empty = _edit(manifest, 'id: "classes"', 'id: ""')
    nan = _edit(manifest, 'id: "classes_missing"', "id: .nan")
    number = _edit(manifest, 'id: "relationship_reversed"', "id: 12")
    suite = tmp_path / "summarization.yaml"
    suite.write_text("- case_id: true\n  instruction: a\n- case_id: ok\n  instruction: b\n",
                     encoding="utf-8")
    got = run_cli("validate", manifest.parent, suite, cwd=tmp_path)
    assert got.returncode == 1, got.stdout
    assert "Traceback" not in got.stdout + got.stderr
    lines = [" ".join(line.split()) for line in got.stdout.splitlines()]
    expected = [
        f"manifest.yml:{empty} [criteria[0].id]: is empty",
        f"manifest.yml:{nan} [criteria[0].instructions[1].id]: YAML reads this id as the "
        "number NaN, not as text",
        f"manifest.yml:{number} [criteria[1].instructions[1].id]: YAML reads this id as the "
        "number 12, not as text",
        "summarization.yaml:1 [[0].case_id]: YAML reads this id as the boolean true",
    ]
    for fragment in expected:
        assert any(fragment in line for line in lines), (fragment, got.stdout)
    assert "4 error(s)" in got.stdout
