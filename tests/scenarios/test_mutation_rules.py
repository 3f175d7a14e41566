"""Mutation rules in a scenario: checked by ``eunomia validate`` against the instructions and
the example solution, from the manifest or from ``mutations.yml`` beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from eunomia.errors import Severity
from eunomia.scenarios import load_scenario

ROOT = Path(__file__).resolve().parents[2]
PM = ROOT / "examples" / "scenarios" / "project_management"
LOAN = ROOT / "examples" / "bpmn" / "bpmn_loan"


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    dest = tmp_path / "pm"
    shutil.copytree(PM, dest, ignore=shutil.ignore_patterns("_generate.py"))
    return dest


def _with_rules(folder: Path, rules: object) -> None:
    path = folder / "manifest.yml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["mutations"] = rules
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def _errors(folder: Path) -> list[str]:
    _, diags = load_scenario(folder)
    return [f"{d.key}: {d.message}" for d in diags if d.severity is Severity.ERROR]


def test_the_shipped_rules_are_valid_and_usable() -> None:
    for folder, rules in ((PM, 23), (LOAN, 38)):
        scenario, diags = load_scenario(folder)
        assert scenario is not None
        assert [d for d in diags if d.severity is Severity.ERROR] == []
        assert sum(len(v) for v in scenario.mutation_rules.values()) == rules


def test_rules_beside_the_manifest_are_read(tmp_path: Path) -> None:
    dest = tmp_path / "bpmn_loan"
    shutil.copytree(LOAN, dest)
    scenario, _ = load_scenario(dest)
    assert scenario is not None and "gateway_incorrect" in scenario.mutation_rules
    _with_rules(dest, {"extras_present": [{"op": "add_task", "to": ["X"]}]})
    assert any("both here and in mutations.yml" in e for e in _errors(dest))


@pytest.mark.parametrize(("rules", "expected"), [
    ({"nonsense": [{"op": "delete_class"}]},
     "mutations.nonsense: unknown instruction id 'nonsense'"),
    ({"classes_correct": [{"op": "delete_class"}]},
     "mutations.classes_correct: instruction 'classes_correct' is in default_expected"),
    ({"extras_present": [{"op": "frobnicate"}]},
     "mutations.extras_present[0].op: unknown operator 'frobnicate'"),
    ({"classes_missing": [{"op": "delete_class", "element": "Tusk"}]},
     "mutations.classes_missing[0]: no mutant can satisfy this rule: element: no element "
     "named 'Tusk'"),
    ({"relationship_not_composition": [{"op": "retype_relationship",
                                        "between": ["Project", "Task"], "to": ["composition"]}]},
     "mutations.relationship_not_composition[0]: no mutant can satisfy this rule"),
    ({"extras_present": [{"op": "add_class"}]},
     "mutations.extras_present[0]: add_class needs 'to'"),
    ({"extras_present": [{"op": "delete_class", "elemnt": "Task"}]},
     "mutations.extras_present[0].elemnt: unknown key 'elemnt' in a mutation rule"),
    ({"extras_present": [{"op": "delete_class", "also": ["no_extras"]}]},
     "mutations.extras_present[0].also[0]: instruction 'no_extras' is in default_expected"),
    ({"relationship_reversed": [{"op": "reverse_relationship",
                                 "also": ["relationship_not_composition"]}]},
     "mutations.relationship_reversed[0].also: 'relationship_reversed' and "
     "'relationship_not_composition' are instructions of one criterion"),
    ({"classes_missing": [{"op": "delete_task"}]},
     "mutations.classes_missing[0]: delete_task applies to ActivityDiagram, BPMN diagrams"),
])
def test_bad_rules_are_errors_with_their_key(scenario: Path, rules: object,
                                             expected: str) -> None:
    _with_rules(scenario, rules)
    found = _errors(scenario)
    assert any(e.startswith(expected) for e in found), found


def test_bad_rules_never_block_a_run(scenario: Path) -> None:
    _with_rules(scenario, {"nonsense": [{"op": "frobnicate"}]})
    loaded, _ = load_scenario(scenario)
    assert loaded is not None and len(loaded.test_cases) == 14
    assert loaded.mutation_rules == {}


def test_rules_need_an_example_solution_and_expectations(scenario: Path) -> None:
    path = scenario / "manifest.yml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["default_expected"]
    data["test_case_diffs"] = {}
    data["mutations"] = {"classes_missing": [{"op": "delete_class"}]}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert any("mutation rules need default_expected" in e for e in _errors(scenario))
