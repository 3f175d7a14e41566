"""Unit tests of the example server's diagram checks and criterion mapping."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from eunomia.apollon import parse_diagram
from eunomia.example_server import rules
from eunomia.example_server.grading import check_for

SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"


def _diagram(
    classes: dict[str, list[str]],
    rels: Sequence[tuple[str, str, str, str, str]] = (),
    diagram_type: str = "ClassDiagram",
) -> rules.ClassDiagramView:
    """A small v3 diagram: classes by name with attribute texts; rels as
    (type, source class, target class, source multiplicity, target multiplicity)."""
    elements: dict[str, Any] = {}
    for name, attrs in classes.items():
        attr_ids = [f"{name}.a{i}" for i in range(len(attrs))]
        elements[name] = {"id": name, "name": name, "type": "Class", "attributes": attr_ids}
        for aid, text in zip(attr_ids, attrs, strict=True):
            elements[aid] = {"id": aid, "name": text, "type": "ClassAttribute", "owner": name}
    relationships = {
        f"r{i}": {
            "id": f"r{i}",
            "type": rtype,
            "source": {"element": src, "multiplicity": sm},
            "target": {"element": tgt, "multiplicity": tm},
        }
        for i, (rtype, src, tgt, sm, tm) in enumerate(rels)
    }
    data = {"type": diagram_type, "elements": elements, "relationships": relationships}
    return rules.ClassDiagramView(parse_diagram(data))


GOOD_CLASSES = {
    "Project": ["+ name: String", "+ deadline: Date"],
    "Task": ["+ title: String", "+ status: String"],
    "TeamMember": ["+ name: String", "+ email: String"],
}
GOOD_RELS = [
    ("ClassComposition", "Task", "Project", "0..*", "1"),
    ("ClassBidirectional", "Task", "TeamMember", "0..*", "0..1"),
]


def _good(**overrides: Any) -> rules.ClassDiagramView:
    classes = {**GOOD_CLASSES, **overrides.pop("classes", {})}
    for name in overrides.pop("drop", ()):
        classes.pop(name)
    return _diagram(classes, overrides.pop("rels", GOOD_RELS))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("+ name: String", "name"),
        ("name", "name"),
        ("- /age : int", "age"),
        ("# deadline:Date", "deadline"),
        ("+ getName(): String", "getName"),
        ("  ~ status ", "status"),
    ],
)
def test_bare_name_strips_visibility_and_type(text: str, expected: str) -> None:
    assert rules.bare_name(text) == expected


def test_normalize_ignores_case_and_separators() -> None:
    assert rules.normalize("Team_Member") == rules.normalize("teammember") == "teammember"
    assert rules.normalize("Team Member") == "teammember"


def test_the_correct_diagram_passes_every_check() -> None:
    view = _good()
    assert rules.check_classes(view).label == rules.CLASSES_CORRECT
    assert rules.check_relationship_type(view).label == rules.COMPOSITION_CORRECT
    assert rules.check_multiplicities(view).label == rules.MULTIPLICITIES_CORRECT
    assert rules.check_assignment(view).label == rules.ASSIGNMENT_CORRECT
    assert rules.check_attributes(view).label == rules.ATTRIBUTES_CORRECT
    assert rules.check_naming(view).label == rules.NAMING_CORRECT
    assert rules.check_extras(view).label == rules.NO_EXTRAS


def test_classes_missing_names_the_present_ones() -> None:
    outcome = rules.check_classes(_good(drop=["Task"], rels=[]))
    assert outcome.label == rules.CLASSES_MISSING
    assert set(outcome.element_ids) == {"Project", "TeamMember"}


def test_classes_are_found_whatever_their_case() -> None:
    view = _diagram({"project": [], "TASK": [], "team_member": []})
    assert rules.check_classes(view).label == rules.CLASSES_CORRECT


def test_composition_correct_reports_relationship_and_classes() -> None:
    outcome = rules.check_relationship_type(_good())
    assert outcome.element_ids == ("r0", "Project", "Task")


@pytest.mark.parametrize(
    ("rel", "label"),
    [
        (("ClassComposition", "Project", "Task", "1", "0..*"), rules.COMPOSITION_REVERSED),
        (("ClassAggregation", "Task", "Project", "0..*", "1"), rules.NOT_A_COMPOSITION),
        (("ClassBidirectional", "Task", "Project", "0..*", "1"), rules.NOT_A_COMPOSITION),
        (("ClassUnidirectional", "Project", "Task", "1", "0..*"), rules.NOT_A_COMPOSITION),
        (("ClassInheritance", "Task", "Project", "", ""), rules.NOT_A_COMPOSITION),
    ],
)
def test_relationship_type_and_direction(rel: tuple[str, str, str, str, str], label: str) -> None:
    view = _good(rels=[rel, GOOD_RELS[1]])
    assert rules.check_relationship_type(view).label == label


def test_no_relationship_is_not_a_composition() -> None:
    assert rules.check_relationship_type(_good(rels=[])).label == rules.NOT_A_COMPOSITION


def test_a_correct_composition_wins_over_an_extra_association() -> None:
    rels = [("ClassBidirectional", "Project", "Task", "", ""), *GOOD_RELS]
    assert rules.check_relationship_type(_good(rels=rels)).label == rules.COMPOSITION_CORRECT


@pytest.mark.parametrize(
    ("composition", "association", "label"),
    [
        (("0..*", "1"), ("0..*", "0..1"), rules.MULTIPLICITIES_CORRECT),
        (("*", "1..1"), ("*", "0..1"), rules.MULTIPLICITIES_CORRECT),
        (("0..n", " 1 "), ("0..*", "0..1"), rules.MULTIPLICITIES_CORRECT),
        (("1", "0..*"), ("0..*", "0..1"), rules.MULTIPLICITIES_INCORRECT),
        (("0..*", "0..1"), ("0..*", "0..1"), rules.MULTIPLICITIES_INCORRECT),
        (("", ""), ("0..*", "0..1"), rules.MULTIPLICITIES_INCORRECT),
        (("0..*", "1"), ("1", "0..*"), rules.MULTIPLICITIES_INCORRECT),
        (("0..*", "1"), ("0..*", "1"), rules.MULTIPLICITIES_INCORRECT),
    ],
)
def test_multiplicities(
    composition: tuple[str, str], association: tuple[str, str], label: str
) -> None:
    rels = [
        ("ClassComposition", "Task", "Project", *composition),
        ("ClassBidirectional", "Task", "TeamMember", *association),
    ]
    assert rules.check_multiplicities(_good(rels=rels)).label == label


def test_multiplicities_are_read_at_each_class_even_when_reversed() -> None:
    rels = [("ClassComposition", "Project", "Task", "1", "0..*"), GOOD_RELS[1]]
    assert rules.check_multiplicities(_good(rels=rels)).label == rules.MULTIPLICITIES_CORRECT


def test_wrong_multiplicity_points_at_the_relationship() -> None:
    rels = [GOOD_RELS[0], ("ClassBidirectional", "Task", "TeamMember", "1", "1")]
    outcome = rules.check_multiplicities(_good(rels=rels))
    assert outcome == rules.Outcome(rules.MULTIPLICITIES_INCORRECT, ("r1",))


def test_multiplicities_need_a_project_task_relationship() -> None:
    outcome = rules.check_multiplicities(_good(rels=[GOOD_RELS[1]]))
    assert outcome.label == rules.MULTIPLICITIES_INCORRECT


def test_assignment_needs_an_association_between_task_and_member() -> None:
    assert rules.check_assignment(_good()).element_ids == ("r1",)
    assert rules.check_assignment(_good(rels=[GOOD_RELS[0]])).label == rules.ASSIGNMENT_MISSING
    to_project = [GOOD_RELS[0], ("ClassBidirectional", "Project", "TeamMember", "", "")]
    assert rules.check_assignment(_good(rels=to_project)).label == rules.ASSIGNMENT_MISSING
    inherits = [GOOD_RELS[0], ("ClassInheritance", "TeamMember", "Task", "", "")]
    assert rules.check_assignment(_good(rels=inherits)).label == rules.ASSIGNMENT_MISSING


def test_attributes_tolerate_visibility_type_and_case() -> None:
    classes = {"Project": ["Name", "- deadline : LocalDate"], "Task": ["title", "+Status:Enum"]}
    assert rules.check_attributes(_good(classes=classes)).label == rules.ATTRIBUTES_CORRECT


def test_missing_attribute_names_the_class() -> None:
    outcome = rules.check_attributes(_good(classes={"Task": ["+ title: String"]}))
    assert outcome == rules.Outcome(rules.ATTRIBUTES_MISSING, ("Task",))


def test_attribute_in_the_wrong_class_is_missing() -> None:
    classes = {"Project": ["+ name: String"], "Task": ["+ title", "+ status", "+ deadline"]}
    assert rules.check_attributes(_good(classes=classes)).label == rules.ATTRIBUTES_MISSING


def test_a_misspelled_attribute_counts_as_missing() -> None:
    classes = {"Project": ["+ nme: String", "+ deadline: Date"]}
    assert rules.check_attributes(_good(classes=classes)).label == rules.ATTRIBUTES_MISSING


def test_missing_class_means_missing_attributes() -> None:
    view = _good(drop=["TeamMember"], rels=GOOD_RELS[:1])
    assert rules.check_attributes(view).label == rules.ATTRIBUTES_MISSING


@pytest.mark.parametrize(
    ("replaced", "classes", "bad_ids"),
    [
        ("Project", {"project": GOOD_CLASSES["Project"]}, {"project"}),
        ("TeamMember", {"Team_Member": ["+ name", "+ email"]}, {"Team_Member"}),
        ("Task", {"Task": ["+ Title: String", "+ status"]}, {"Task.a0"}),
        ("Task", {"Task": ["+ title", "+ task_status"]}, {"Task.a1"}),
    ],
)
def test_naming_conventions(
    replaced: str, classes: dict[str, list[str]], bad_ids: set[str]
) -> None:
    others = {k: v for k, v in GOOD_CLASSES.items() if k != replaced}
    outcome = rules.check_naming(_diagram({**others, **classes}))
    assert outcome.label == rules.NAMING_INCORRECT
    assert set(outcome.element_ids) == bad_ids


def test_enumeration_literals_may_be_upper_case() -> None:
    data = {
        "type": "ClassDiagram",
        "elements": {
            "e": {"id": "e", "name": "TaskStatus", "type": "Enumeration", "attributes": ["l"]},
            "l": {"id": "l", "name": "IN_PROGRESS", "type": "ClassAttribute", "owner": "e"},
        },
    }
    view = rules.ClassDiagramView(parse_diagram(data))
    assert rules.check_naming(view).label == rules.NAMING_CORRECT


def test_extras_are_classes_beyond_the_three() -> None:
    outcome = rules.check_extras(_good(classes={"Client": ["+ name"]}))
    assert outcome == rules.Outcome(rules.EXTRAS_PRESENT, ("Client",))


def test_extras_ignore_extra_attributes() -> None:
    """A known blind spot: only extra classes are detected."""
    classes = {"Task": ["+ title", "+ status", "+ project: Project"]}
    assert rules.check_extras(_good(classes=classes)).label == rules.NO_EXTRAS


def test_members_listed_or_only_owned_are_both_found() -> None:
    data = {
        "type": "ClassDiagram",
        "elements": {
            "c": {"id": "c", "name": "Task", "type": "Class", "attributes": ["a"]},
            "a": {"id": "a", "name": "+ title", "type": "ClassAttribute", "owner": "c"},
            "b": {"id": "b", "name": "+ status", "type": "ClassAttribute", "owner": "c"},
            "m": {"id": "m", "name": "+ close()", "type": "ClassMethod", "owner": "c"},
        },
    }
    view = rules.ClassDiagramView(parse_diagram(data))
    task = view.find("task")
    assert task is not None
    assert [m.id for m in view.members(task)] == ["a", "b", "m"]
    assert view.attribute_names(task) == {"title", "status"}


def test_version_2_arrays_are_checked_like_version_3() -> None:
    data = json.loads((SCENARIO / "example_solution.json").read_text(encoding="utf-8"))
    data["version"] = "2.0.0"
    data["elements"] = list(data["elements"].values())
    data["relationships"] = list(data["relationships"].values())
    view = rules.ClassDiagramView(parse_diagram(data))
    assert rules.check_relationship_type(view).label == rules.COMPOSITION_CORRECT
    assert rules.check_attributes(view).label == rules.ATTRIBUTES_CORRECT


def test_example_solution_uses_the_target_end_for_the_diamond() -> None:
    data = json.loads((SCENARIO / "example_solution.json").read_text(encoding="utf-8"))
    view = rules.ClassDiagramView(parse_diagram(data))
    (composition,) = [r for r in view.diagram.relationships.values() if "Compos" in r.type]
    project = view.find("Project")
    assert project is not None
    assert composition.target.element == project.id
    assert composition.target.multiplicity == "1"


@pytest.mark.parametrize(
    ("title", "check"),
    [
        ("Required Classes", rules.check_classes),
        ("Project-Task Relationship Type", rules.check_relationship_type),
        ("Composition between Project and Task", rules.check_relationship_type),
        ("Multiplicities", rules.check_multiplicities),
        ("Task Assignment to Team Members", rules.check_assignment),
        ("Class Attributes", rules.check_attributes),
        ("Naming Conventions", rules.check_naming),
        ("No Extraneous Elements", rules.check_extras),
        ("No unnecessary classes", rules.check_extras),
    ],
)
def test_criterion_titles_map_to_checks(title: str, check: rules.Check) -> None:
    assert check_for(title) is check


@pytest.mark.parametrize("title", ["Start and End Events", "Gateway Logic", ""])
def test_unknown_criteria_have_no_check(title: str) -> None:
    assert check_for(title) is None
