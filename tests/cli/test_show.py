"""``eunomia show SCENARIO[/CASE]``: a test case's diagram as SVG and text, its expected
instructions; a scenario's list of cases; errors that name the file.

The command is invoked through a Typer app of its own, so these tests do not depend on
where ``eunomia``'s app registers it; :func:`test_registered` checks that it does.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from eunomia.cli._show import show
from eunomia.errors import EunomiaError

SVG = "{http://www.w3.org/2000/svg}"


def _app() -> typer.Typer:
    app = typer.Typer(add_completion=False)
    app.command()(show)

    @app.callback()
    def _group() -> None:  # a group, so the command is called by its name as in eunomia
        pass

    return app


def invoke(*args: str) -> Result:
    return CliRunner().invoke(_app(), ["show", *args])


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(here)


def test_case_writes_the_svg_and_prints_text_and_expectations(examples_copy: Path,
                                                             in_tmp: Path) -> None:
    result = invoke(str(examples_copy / "project_management" / "composition_reversed"))
    assert result.exit_code == 0, result.output
    svg = in_tmp / "composition_reversed.svg"
    root = ET.fromstring(svg.read_text(encoding="utf-8"))
    assert root.tag == f"{SVG}svg" and root.get("aria-label") == \
        "project_management/composition_reversed"
    case = json.loads((examples_copy / "project_management" / "test_cases"
                       / "composition_reversed.json").read_text(encoding="utf-8"))
    drawn = {g.get("data-id") for g in root.iter(f"{SVG}g")
             if "el" in (g.get("class") or "").split()}
    assert drawn == set(case["elements"])
    out = result.output
    assert "[Class] Project {attributes: + name: String; + deadline: Date}" in out
    assert "R1: Project [1] --◆ Task [0..*] (composition, whole: Task)" in out
    # the instruction this case is about is starred; every criterion is listed
    assert " * relationship_type: relationship_reversed (1 pts)" in out
    assert "   classes: classes_correct (1 pts)" in out and str(svg) in out


def test_output_option_and_a_case_file_path(examples_copy: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "x.svg"
    case = examples_copy / "project_management" / "test_cases" / "extra_class.json"
    result = invoke(str(case), "--output", str(target))
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8").startswith("<svg ")
    assert "Case extra_class" in result.output


def test_scenario_lists_its_cases(examples_copy: Path) -> None:
    result = invoke(str(examples_copy / "project_management"))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "14 test case(s)" in lines[0]
    assert "  composition_reversed  (relationship_reversed)" in lines
    assert "  perfect_solution" in lines


def test_unknown_case_names_the_manifest_and_suggests(examples_copy: Path) -> None:
    result = invoke(str(examples_copy / "project_management" / "composition_reversd"))
    assert isinstance(result.exception, EunomiaError)
    message = str(result.exception)
    assert "no test case 'composition_reversd'" in message
    assert str(examples_copy / "project_management" / "manifest.yml") in message
    assert "did you mean composition_reversed?" in message


def test_unknown_scenario_and_a_folder_of_scenarios(examples_copy: Path,
                                                    tmp_path: Path) -> None:
    result = invoke(str(tmp_path / "nothing" / "case"))
    assert isinstance(result.exception, EunomiaError)
    assert "no scenario here" in str(result.exception)
    result = invoke(str(examples_copy))
    assert isinstance(result.exception, EunomiaError)
    assert "name one of them: project_management" in str(result.exception)


def test_unusable_case_and_scenario(examples_copy: Path) -> None:
    folder = examples_copy / "project_management"
    (folder / "test_cases" / "extra_class.json").write_text("{not json", encoding="utf-8")
    result = invoke(str(folder / "extra_class"))
    assert isinstance(result.exception, EunomiaError)
    assert "extra_class" in str(result.exception) and "unusable" in str(result.exception)
    listed = invoke(str(folder))
    assert "extra_class: unusable" in listed.output
    (folder / "manifest.yml").write_text("exercise: [", encoding="utf-8")
    result = invoke(str(folder / "composition_reversed"))
    assert isinstance(result.exception, EunomiaError)
    assert "cannot load the scenario" in str(result.exception)
    assert "manifest.yml" in str(result.exception)


def test_registered() -> None:
    """Once ``eunomia``'s app registers the command, it is this one."""
    from eunomia.cli import app

    commands = {c.name or c.callback.__name__: c.callback for c in app.registered_commands
                if c.callback is not None}
    if "show" not in commands:
        pytest.skip("eunomia show is not registered in cli/_app.py yet")
    assert commands["show"] is show
