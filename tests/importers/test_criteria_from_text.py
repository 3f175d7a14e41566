"""``eunomia import athena --criteria-from-grading-instructions``: an export without criteria
gets one per numbered "Give P point(s) if ..., 0 otherwise." item of its grading instructions,
so its submissions can be labelled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.importers.test_athena_import import PLAYGROUND, needs_athena, small_export, write_json
from tests.support.cli import run_cli

from eunomia.errors import EunomiaError
from eunomia.importers._criteria_text import criteria_from_text
from eunomia.scenarios import load_scenario

TEXT = ("Evaluate the following 2 criteria: 1. Give 1 point if a start-event is present, "
        "0 otherwise. 2. Give 2 points if if all tasks are named, 0 otherwise.")


def test_each_numbered_item_is_a_criterion_met_or_not() -> None:
    first, second = criteria_from_text(TEXT)
    assert (first.id, first.title) == (1, "A start-event is present")
    assert [(i.id, i.credits, i.grading_scale) for i in first.structured_grading_instructions] \
        == [(1, 1.0, "Met"), (2, 0.0, "Not met")]
    assert second.title == "All tasks are named"  # the doubled "if" of the real file
    assert [i.credits for i in second.structured_grading_instructions] == [2.0, 0.0]


@pytest.mark.parametrize("text", ["", "Grade fairly.", "1. Give a point if x."])
def test_other_text_is_refused(text: str) -> None:
    with pytest.raises(EunomiaError, match="Give P"):
        criteria_from_text(text)


def test_the_command(tmp_path: Path) -> None:
    source = write_json(tmp_path / "shop.json",
                        small_export(grading_criteria=[], grading_instructions=TEXT))
    folder = tmp_path / "shop"
    got = run_cli("import", "athena", source, "--output", folder,
                  "--criteria-from-grading-instructions", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "2 criteria" in got.stdout
    manifest = yaml.safe_load((folder / "manifest.yml").read_text(encoding="utf-8"))
    assert [c["id"] for c in manifest["criteria"]] == ["criterion_1", "criterion_2"]
    assert "default_expected" not in manifest
    assert "## Label it" in (folder / "README.md").read_text(encoding="utf-8")
    scenario, problems = load_scenario(folder)
    assert scenario is not None and not scenario.labelled and problems == []
    # the tutor's item named an instruction of the export's own criteria (21): kept, in meta
    (item,) = manifest["cases"]["07_submission"]["tutor"]["feedback"]
    assert "instruction" not in item and item["meta"]["grading_instruction_id"] == 21
    # an export with criteria of its own keeps them: the option is refused
    own = write_json(tmp_path / "own.json", small_export())
    got = run_cli("import", "athena", own, "--output", tmp_path / "own",
                  "--criteria-from-grading-instructions", cwd=tmp_path)
    assert got.returncode != 0 and "has grading criteria of its own" in got.stdout + got.stderr


@needs_athena
def test_the_loan_exercise_has_ten_criteria() -> None:
    export = json.loads((PLAYGROUND / "exercise-6.json").read_text(encoding="utf-8"))
    criteria = criteria_from_text(export["grading_instructions"])
    assert len(criteria) == 10 and sum(c.structured_grading_instructions[0].credits
                                       for c in criteria) == export["max_points"]
