"""The structural diff of a test case against the example solution, on the hand-made cases
of both bundled scenarios: matched by name and type, never by id."""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from eunomia.apollon import diff_diagrams

ROOT = Path(__file__).resolve().parents[2]
PM = ROOT / "examples" / "scenarios" / "project_management"
LOAN = ROOT / "examples" / "bpmn" / "bpmn_loan"


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _main(folder: Path, case: str) -> set[tuple[str, str, str]]:
    diff = diff_diagrams(_read(folder / "example_solution.json"),
                         _read(folder / "test_cases" / f"{case}.json"))
    return {(c.kind, c.element_type, c.name) for c in diff.main}


@pytest.mark.parametrize(("case", "expected"), [
    ("perfect_solution", set()),
    ("aggregation_instead_of_composition",
     {("retyped", "ClassComposition", "Task -> Project")}),
    ("composition_reversed", {("reversed", "ClassComposition", "Task -> Project")}),
    ("missing_assignment", {("removed", "ClassBidirectional", "Task -> TeamMember")}),
    ("missing_task_class", {("removed", "Class", "Task")}),
    ("job_instead_of_task", {("renamed", "Class", "Task")}),
    ("extra_class", {("added", "Class", "Client")}),
    ("redundant_project_attribute", {("added", "ClassAttribute", "+ project: Project")}),
    ("wrong_multiplicity", {("changed", "ClassComposition", "Task -> Project")}),
    ("missing_attributes", {("removed", "ClassAttribute", "+ deadline: Date"),
                            ("removed", "ClassAttribute", "+ status: String")}),
    ("lowercase_class_names", {("renamed", "Class", n) for n in ("Project", "Task",
                                                                 "TeamMember")}),
])
def test_hand_made_class_cases(case: str, expected: set[tuple[str, str, str]]) -> None:
    assert _main(PM, case) == expected


@pytest.mark.parametrize(("case", "expected"), [
    ("missing_message_flow", {("removed", "BPMNFlow (message)", "Send quote -> Quote received")}),
    ("unlabelled_gateway", {("renamed", "BPMNGateway", "Standard terms applicable?"),
                            ("renamed", "BPMNFlow (sequence)",
                             "Standard terms applicable? -> Calculate terms"),
                            ("renamed", "BPMNFlow (sequence)",
                             "Standard terms applicable? -> Prepare special terms")}),
    ("use_of_wrong_gateway_type", {("retyped", "BPMNGateway", "<unnamed BPMNGateway>")}),
    ("wrong_use_of_start_event", {("retyped", "BPMNEndEvent", "<unnamed BPMNEndEvent>")}),
    ("wrong_use_of_the_loop_marker", {("retyped", "BPMNTask", "Review request")}),
    ("missing_gateway", {("removed", "BPMNGateway", "<unnamed BPMNGateway>")}),
    # as published, this case differs from the solution only by a regenerated id
    ("wrong_use_of_end_event", set()),
])
def test_hand_made_bpmn_cases(case: str, expected: set[tuple[str, str, str]]) -> None:
    assert _main(LOAN, case) == expected


def test_the_swapped_tasks_of_a_hand_made_case_are_moved() -> None:
    found = _main(LOAN, "wrong_sequence_of_diagram_objects")
    assert {("moved", "BPMNTask", "Prepare contract"),
            ("moved", "BPMNTask", "Send quote")} <= found


def test_ids_do_not_matter() -> None:
    solution = _read(PM / "example_solution.json")
    fresh = copy.deepcopy(solution)
    mapping = {old: str(uuid.uuid4()) for old in [*fresh["elements"], *fresh["relationships"]]}
    text = json.dumps(fresh)
    for old, new in mapping.items():
        text = text.replace(old, new)
    assert diff_diagrams(solution, json.loads(text)).changes == ()


def test_implied_changes_are_marked_and_anchors_point_into_the_case() -> None:
    solution = _read(PM / "example_solution.json")
    case = _read(PM / "test_cases" / "missing_task_class.json")
    diff = diff_diagrams(solution, case)
    implied = [c for c in diff.changes if c.implied]
    assert {c.element_type for c in implied} == {"ClassAttribute", "ClassComposition",
                                                 "ClassBidirectional"}
    assert diff.element_types == ("Class",)
    # a removed relationship points at its surviving end in the case
    composition = next(c for c in implied if c.element_type == "ClassComposition")
    project = next(i for i, e in case["elements"].items() if e["name"] == "Project")
    assert composition.anchors == (project,)
    assert diff.anchors <= set(case["elements"]) | set(case["relationships"])


def test_version_2_is_read_too() -> None:
    solution = _read(PM / "example_solution.json")
    case = _read(PM / "test_cases" / "composition_reversed.json")
    for data in (solution, case):
        data["elements"] = list(data["elements"].values())
        data["relationships"] = list(data["relationships"].values())
    assert [c.kind for c in diff_diagrams(solution, case).main] == ["reversed"]
