"""labels.yml beside a scenario's manifest: the loader reads the tutors' labels as each case's
expected instructions, under the policy the file names, and says what it cannot use."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.support.cli import run_cli

from eunomia.errors import Severity
from eunomia.scenarios import Scenario, load_scenario

ROOT = Path(__file__).resolve().parents[2]
LOAN = ROOT / "examples" / "athena" / "athena_loan_real"
PROJECT = ROOT / "examples" / "scenarios" / "project_management"
AT = "2026-11-27T08:00:00.000+00:00"


def _copy(source: Path, tmp_path: Path) -> Path:
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    return folder


def _all_met(**changes: str) -> dict[str, str]:
    out = {f"criterion_{n}": f"sgi_{2 * n - 1}" for n in range(1, 11)}
    out.update(changes)
    return out


def _label(choices: dict[str, str], note: str = "") -> dict[str, Any]:
    return {"choices": choices, "note": note, "at": AT, "revision": 1}


def _write(folder: Path, cases: dict[str, dict[str, Any]], **top: Any) -> None:
    (folder / "labels.yml").write_text(
        yaml.safe_dump({"kind": "scenario", **top, "cases": cases}), encoding="utf-8")


def _load(folder: Path) -> tuple[Scenario, list[str]]:
    scenario, problems = load_scenario(folder)
    assert scenario is not None, problems
    return scenario, [str(p) for p in problems]


def _ids(scenario: Scenario, case: str) -> set[str]:
    found = scenario.case_named(case)
    assert found is not None
    return {scenario.instructions[i].textual_id for i in found.expected}


def test_an_unlabelled_scenario_with_labels_runs_its_labelled_cases(tmp_path: Path) -> None:
    folder = _copy(LOAN, tmp_path)
    _write(folder, {
        "02_missing_start_event": {"anna": _label(_all_met(criterion_3="sgi_6"))},
        "03_missing_end_event": {"anna": _label({"criterion_4": "sgi_8"})},  # draft
    })
    scenario, problems = _load(folder)
    assert scenario.labelled
    assert [c.name for c in scenario.test_cases] == ["02_missing_start_event"]
    assert _ids(scenario, "02_missing_start_event") == set(_all_met(
        criterion_3="sgi_6").values())
    # the submission ids stay those of every case, so a target sees the same requests
    assert scenario.test_cases[0].submission_id == 2
    # a perfect solution (baseline:default) gets the instruction of most credits everywhere
    assert {scenario.instructions[i].textual_id for i in scenario.default_expected} == set(
        _all_met().values())
    assert {scenario.instructions[i].textual_id
            for i in scenario.test_cases[0].diff_instructions} == {"sgi_6"}
    assert scenario.labels_note == "1 of 39 cases labelled in labels.yml (anna 1)"
    assert any("38 of 39 cases have no label yet and are left out of runs" in p
               for p in problems)
    # the others are kept aside, expecting nothing, and still shown
    assert len(scenario.left_out) == 38 and all(c.expected == () for c in scenario.left_out)
    shown = run_cli("show", folder / "04_non_control_flow_as_control_flow", "--output",
                    tmp_path / "x.svg", cwd=tmp_path)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "none yet: no label in labels.yml, so runs leave it out" in shown.stdout
    # without the labels: every case, unlabelled
    plain, _ = load_scenario(folder, labels=False)
    assert plain is not None and not plain.labelled and len(plain.test_cases) == 39


def test_no_complete_label_keeps_the_scenario_unlabelled(tmp_path: Path) -> None:
    folder = _copy(LOAN, tmp_path)
    _write(folder, {"02_missing_start_event": {"anna": _label({"criterion_1": "sgi_1"})}})
    scenario, problems = _load(folder)
    assert not scenario.labelled and len(scenario.test_cases) == 39
    assert any("no case has a complete label yet" in p for p in problems)


def test_majority_ties_and_cannot_tell(tmp_path: Path) -> None:
    folder = _copy(LOAN, tmp_path)
    flipped = _all_met(criterion_5="sgi_10")
    _write(folder, {
        "04_non_control_flow_as_control_flow": {  # 2 against 1 on criterion 5
            "anna": _label(flipped), "bob": _label(flipped), "cem": _label(_all_met())},
        "05_using_an_event_as_indicator": {  # a tie
            "anna": _label(flipped), "bob": _label(_all_met())},
        "06_wrong_use_of_start_event": {  # cannot tell abstains
            "anna": _label({**flipped, "criterion_2": "cannot tell"}), "bob": _label(flipped)},
        "07_wrong_use_of_end_event": {"anna": _label(_all_met(criterion_2="cannot tell"))},
    })
    scenario, problems = _load(folder)
    assert {c.name for c in scenario.test_cases} == {
        "04_non_control_flow_as_control_flow", "06_wrong_use_of_start_event"}
    assert "sgi_10" in _ids(scenario, "04_non_control_flow_as_control_flow")
    assert _ids(scenario, "06_wrong_use_of_start_event") == set(flipped.values())
    note = next(p for p in problems if "expect nothing their labels agree on" in p)
    assert "05_using_an_event_as_indicator: a tie on criterion_5" in note
    assert "07_wrong_use_of_end_event: nobody could tell criterion_2" in note


def test_a_named_labeller_counts_first(tmp_path: Path) -> None:
    folder = _copy(LOAN, tmp_path)
    flipped = _all_met(criterion_5="sgi_10")
    cases = {"05_using_an_event_as_indicator": {"anna": _label(flipped), "bob": _label(_all_met())},
             "08_unlabelled_activity": {"bob": _label(flipped)}}
    _write(folder, cases, expected=["bob", "anna"])
    scenario, _ = _load(folder)
    assert "sgi_9" in _ids(scenario, "05_using_an_event_as_indicator")
    assert "sgi_10" in _ids(scenario, "08_unlabelled_activity")
    _write(folder, cases, expected="anna")
    scenario, problems = _load(folder)
    assert [c.name for c in scenario.test_cases] == ["05_using_an_event_as_indicator"]
    assert "sgi_10" in _ids(scenario, "05_using_an_event_as_indicator")
    assert any("08_unlabelled_activity: not labelled by anna" in p for p in problems)


def test_labels_override_the_manifest_case_by_case(tmp_path: Path) -> None:
    folder = _copy(PROJECT, tmp_path)
    before, _ = _load(folder)
    choices = {"classes": "classes_correct", "relationship_type": "relationship_reversed",
               "multiplicity": "multiplicity_correct", "assignment": "assignment_correct",
               "attributes": "attributes_correct", "naming_format": "naming_format_correct",
               "extras": "no_extras"}
    _write(folder, {"perfect_solution": {"tutor": _label(choices)}})
    scenario, problems = _load(folder)
    assert len(scenario.test_cases) == len(before.test_cases)  # the manifest labels the rest
    case = scenario.case_named("perfect_solution")
    assert case is not None and _ids(scenario, "perfect_solution") == set(choices.values())
    assert {scenario.instructions[i].textual_id for i in case.diff_instructions} == {
        "relationship_reversed"}
    other = scenario.case_named("extra_class")
    assert other == before.case_named("extra_class")
    assert not any(p.startswith("error") for p in problems)


def test_labels_naming_what_the_scenario_lacks_are_errors_with_lines(tmp_path: Path) -> None:
    folder = _copy(LOAN, tmp_path)
    _write(folder, {
        "02_missing_start_event": {"anna": _label(_all_met(criterion_3="sgi_8"))},
        "03_missing_end_event": {"anna": _label(_all_met(criterion_4="no_such_instruction"))},
        "99_no_such_case": {"anna": _label(_all_met())},
        "08_unlabelled_activity": {"anna": _label({**_all_met(), "no_such_criterion": "x"})},
    })
    scenario, problems = load_scenario(folder)
    assert scenario is not None  # the manifest is fine: the scenario still loads
    errors = [p for p in problems if p.severity is Severity.ERROR]
    messages = " | ".join(f"{p.key}: {p.message}" for p in errors)
    assert all(p.file == folder / "labels.yml" and p.line is not None for p in errors)
    assert "instruction 'sgi_8' belongs to criterion 'criterion_4'" in messages
    assert "03_missing_end_event.anna.choices.criterion_4: unknown instruction" in messages
    assert "unknown criterion 'no_such_criterion'" in messages
    assert any("no test case named '99_no_such_case'" in str(p) for p in problems)
    assert [c.name for c in scenario.test_cases] == ["08_unlabelled_activity"]


@pytest.mark.parametrize("text", ["cases: [1, 2", "cases: {a: {anna: {choices: 3}}}",
                                  "kind: tasks\n"])
def test_a_broken_labels_file_is_named_and_the_scenario_still_loads(
        tmp_path: Path, text: str) -> None:
    folder = _copy(LOAN, tmp_path)
    (folder / "labels.yml").write_text(text, encoding="utf-8")
    scenario, problems = load_scenario(folder)
    assert scenario is not None and len(scenario.test_cases) == 39
    assert any(p.file == folder / "labels.yml" and p.severity is Severity.ERROR
               for p in problems)


def test_validate_reports_the_labels(tmp_path: Path) -> None:
    folder = _copy(LOAN, tmp_path)
    _write(folder, {"02_missing_start_event": {"anna": _label(_all_met())},
                    "03_missing_end_event": {"anna": _label(_all_met(criterion_1="nope"))}})
    got = run_cli("validate", folder, cwd=tmp_path)
    out = " ".join(got.stdout.split())
    assert got.returncode == 1, out
    assert ("athena_loan_real: 10 criteria, 20 instructions, 1 test cases; 1 of 39 cases "
            "labelled in labels.yml (anna 1)") in out
    assert "unknown instruction 'nope'" in out
    assert "38 of 39 cases have no label yet" in out
