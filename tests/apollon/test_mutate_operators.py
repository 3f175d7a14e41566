"""Every mutation operator on the two example diagrams: each mutant is well formed (ids,
owners, member lists, relationship ends, bounds without new overlaps), changes what the
operator says and nothing else (the structural diff sees exactly that change), comes out
in the source's Apollon version, and is the same for the same random seed."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from eunomia.apollon import diff_diagrams
from eunomia.apollon.mutate import (
    OPERATORS,
    Doc,
    OpSpec,
    SpecError,
    choices,
    mutant_problems,
    problems,
)

ROOT = Path(__file__).resolve().parents[2]
CLASS = json.loads((ROOT / "examples/scenarios/project_management/example_solution.json")
                   .read_text(encoding="utf-8"))
BPMN = json.loads((ROOT / "examples/bpmn/bpmn_loan/example_solution.json")
                  .read_text(encoding="utf-8"))


def _activity() -> dict[str, Any]:
    """A small UML activity diagram: start -> Receive order -> Ship order -> end."""
    def el(i: str, t: str, name: str, x: float, w: float = 120, h: float = 50) -> dict[str, Any]:
        return {"id": i, "name": name, "type": t, "owner": None,
                "bounds": {"x": x, "y": 40, "width": w, "height": h}}

    def flow(i: str, s: str, t: str) -> dict[str, Any]:
        return {"id": i, "name": "", "type": "ActivityControlFlow", "owner": None,
                "bounds": {"x": 0, "y": 0, "width": 1, "height": 1}, "path": [],
                "source": {"element": s, "direction": "Right"},
                "target": {"element": t, "direction": "Left"}, "isManuallyLayouted": False}

    elements = [el("s", "ActivityInitialNode", "", 20, 40, 40),
                el("a", "ActivityActionNode", "Receive order", 100),
                el("b", "ActivityActionNode", "Ship order", 280),
                el("e", "ActivityFinalNode", "", 460, 40, 40)]
    rels = [flow("f1", "s", "a"), flow("f2", "a", "b"), flow("f3", "b", "e")]
    return {"version": "3.0.0", "type": "ActivityDiagram",
            "size": {"width": 600, "height": 200},
            "interactive": {"elements": {}, "relationships": {}},
            "elements": {e["id"]: e for e in elements},
            "relationships": {r["id"]: r for r in rels}, "assessments": {}}


ACTIVITY = _activity()


def as_v2(data: dict[str, Any]) -> dict[str, Any]:
    """The same diagram in Apollon version 2 (arrays)."""
    out = copy.deepcopy(data)
    out["version"] = "2.0.0"
    out["elements"] = list(out["elements"].values())
    out["relationships"] = list(out["relationships"].values())
    out["assessments"] = []
    out["interactive"] = {"elements": [], "relationships": []}
    return out


# operator -> (diagram, rule, the kind of change the diff must see, and on what type)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], str, str]] = [
    ("delete_class", CLASS, {"element": "Task"}, "removed", "Class"),
    ("delete_attribute", CLASS, {"element": "deadline"}, "removed", "ClassAttribute"),
    ("delete_method", "class_with_method", {"element": "close"}, "removed", "ClassMethod"),
    ("delete_relationship", CLASS, {"between": ["Task", "TeamMember"]}, "removed",
     "ClassBidirectional"),
    ("retype_relationship", CLASS, {"between": ["Project", "Task"], "to": ["aggregation"]},
     "retyped", "ClassComposition"),
    ("reverse_relationship", CLASS, {"between": ["Project", "Task"]}, "reversed",
     "ClassComposition"),
    ("change_multiplicity", CLASS, {"between": ["Project", "Task"], "end": "Project",
                                    "to": ["0..*"]}, "changed", "ClassComposition"),
    ("add_class", CLASS, {"to": ["Client"], "attributes": ["+ name: String"],
                          "connect": "Project"}, "added", "Class"),
    ("add_attribute", CLASS, {"in": "Task", "to": ["+ project: Project"]}, "added",
     "ClassAttribute"),
    ("move_attribute", CLASS, {"element": "deadline", "to": ["Task"]}, "moved",
     "ClassAttribute"),
    ("delete_task", BPMN, {"element": "Calculate terms"}, "removed", "BPMNTask"),
    ("delete_event", BPMN, {"element": "Quote received"}, "removed", "BPMNIntermediateEvent"),
    ("delete_gateway", BPMN, {"element": "Standard terms applicable?"}, "removed",
     "BPMNGateway"),
    ("delete_flow", BPMN, {"type": "message_flow", "between": ["Send quote", "Quote received"]},
     "removed", "BPMNFlow (message)"),
    ("retype_gateway", BPMN, {"element": "Standard terms applicable?", "to": ["parallel"]},
     "retyped", "BPMNGateway"),
    ("retype_event", BPMN, {"element": "Quote received", "to": ["start"]}, "retyped",
     "BPMNIntermediateEvent"),
    ("retype_task", BPMN, {"element": "Review request", "to": ["loop"]}, "retyped",
     "BPMNTask"),
    ("swap_tasks", BPMN, {"element": "Prepare contract", "to": ["Calculate terms"]}, "moved",
     "BPMNTask"),
    ("to_message_flow", BPMN, {"between": ["Calculate terms", ""]}, "retyped",
     "BPMNFlow (sequence)"),
    ("to_sequence_flow", BPMN, {"between": ["Send quote", "Quote received"]}, "retyped",
     "BPMNFlow (message)"),
    ("add_task", BPMN, {"to": ["Check credit history"], "after": "Assess risk"}, "added",
     "BPMNTask"),
    ("delete", BPMN, {"type": "lane", "element": "Loan Assessor"}, "removed", "BPMNSwimlane"),
    ("rename", CLASS, {"type": "class", "convention": "lower_camel"}, "renamed", "Class"),
    ("remove_label", BPMN, {"type": "pool", "element": "Loan Applicant"}, "renamed",
     "BPMNPool"),
]


def _class_with_method() -> dict[str, Any]:
    data = copy.deepcopy(CLASS)
    project = next(e for e in data["elements"].values() if e["name"] == "Project")
    data["elements"]["m1"] = {"id": "m1", "name": "+ close(): void", "type": "ClassMethod",
                              "owner": project["id"],
                              "bounds": {"x": 40, "y": 140, "width": 220, "height": 30}}
    project["methods"] = ["m1"]
    project["bounds"]["height"] = 130
    return data


def _diagram(which: dict[str, Any] | str) -> dict[str, Any]:
    return _class_with_method() if which == "class_with_method" else \
        which  # type: ignore[return-value]


def _mutants(source: dict[str, Any], spec: dict[str, Any], op: str, seed: int = 1
             ) -> list[dict[str, Any]]:
    rule = OpSpec.model_validate({"op": op, **spec})
    out = []
    for c in choices(Doc(source), rule):
        doc = Doc(source)
        c.apply(doc, random.Random(seed))
        out.append(doc.to_json())
    return out


def test_every_operator_is_tested() -> None:
    assert {op for op, *_ in CASES} == set(OPERATORS)


def test_the_sources_are_well_formed() -> None:
    for source in (CLASS, BPMN, ACTIVITY, _class_with_method()):
        assert problems(source) == []


@pytest.mark.parametrize(("op", "which", "spec", "kind", "element_type"), CASES,
                         ids=[c[0] for c in CASES])
@pytest.mark.parametrize("version", ["v3", "v2"])
def test_operator_gives_a_valid_mutant_with_exactly_its_change(
        op: str, which: dict[str, Any] | str, spec: dict[str, Any], kind: str,
        element_type: str, version: str) -> None:
    source = _diagram(which)
    if version == "v2":
        source = as_v2(source)
    mutants = _mutants(source, spec, op)
    assert mutants, f"{op} found nothing to change"
    for mutant in mutants:
        assert mutant_problems(source, mutant) == []
        assert isinstance(mutant["elements"], list) == (version == "v2")
        assert mutant["version"] == source["version"]
        main = diff_diagrams(source, mutant).main
        assert main, f"{op}: the diff sees no change"
        assert (kind, element_type) in {(c.kind, c.element_type) for c in main}, \
            [c.text() for c in main]
    assert source == _diagram(which) if version == "v3" else True  # the source is untouched


@pytest.mark.parametrize(("op", "which", "spec", "kind", "element_type"), CASES,
                         ids=[c[0] for c in CASES])
def test_operator_is_deterministic_under_a_seed(
        op: str, which: dict[str, Any] | str, spec: dict[str, Any], kind: str,
        element_type: str) -> None:
    source = _diagram(which)
    assert _mutants(source, spec, op, seed=7) == _mutants(source, spec, op, seed=7)


def test_new_ids_follow_the_seed() -> None:
    spec = {"to": ["Client"], "attributes": ["+ name: String"]}
    a, b = _mutants(CLASS, spec, "add_class", 1), _mutants(CLASS, spec, "add_class", 2)
    assert set(a[0]["elements"]) != set(b[0]["elements"])


@pytest.mark.parametrize(("op", "spec", "kind"), [
    ("delete_task", {"element": "Ship order"}, "removed"),
    ("delete_event", {"type": "end_event"}, "removed"),
    ("delete_flow", {"between": ["Receive order", "Ship order"]}, "removed"),
    ("swap_tasks", {"element": "Receive order"}, "moved"),
    ("add_task", {"to": ["Pack order"], "after": "Receive order"}, "added"),
    ("rename", {"element": "Ship order", "to": ["Order shipping"]}, "renamed"),
    ("remove_label", {"type": "task"}, "renamed"),
    ("retype_gateway", {"type": "gateway", "to": ["fork"]}, None),
])
def test_activity_diagrams_take_the_process_operators(op: str, spec: dict[str, Any],
                                                      kind: str | None) -> None:
    mutants = _mutants(ACTIVITY, spec, op)
    if kind is None:  # no gateway in this diagram: nothing to change, no error
        assert mutants == []
        return
    assert mutants
    for mutant in mutants:
        assert mutant_problems(ACTIVITY, mutant) == []
        assert kind in {c.kind for c in diff_diagrams(ACTIVITY, mutant).main}


def test_deleting_a_task_joins_the_flow_around_it() -> None:
    (mutant,) = _mutants(ACTIVITY, {"element": "Receive order"}, "delete_task")
    ends = {(r["source"]["element"], r["target"]["element"])
            for r in mutant["relationships"].values()}
    assert ends == {("s", "b"), ("b", "e")}
    (hole,) = _mutants(ACTIVITY, {"element": "Receive order", "reconnect": False},
                       "delete_task")
    assert {(r["source"]["element"], r["target"]["element"])
            for r in hole["relationships"].values()} == {("b", "e")}


def test_deleting_a_class_keeps_member_lists_and_ends_consistent() -> None:
    (mutant,) = _mutants(CLASS, {"element": "Task"}, "delete_class")
    names = {e["name"] for e in mutant["elements"].values()}
    assert "Task" not in names and "+ title: String" not in names
    assert len(mutant["relationships"]) == 0  # both relationships touched Task


def test_deleting_an_attribute_shrinks_its_class() -> None:
    (mutant,) = _mutants(CLASS, {"element": "deadline"}, "delete_attribute")
    project = next(e for e in mutant["elements"].values() if e["name"] == "Project")
    assert project["bounds"]["height"] == 70 and len(project["attributes"]) == 1


def test_reversing_keeps_each_multiplicity_at_its_class() -> None:
    (mutant,) = _mutants(CLASS, {"between": ["Project", "Task"]}, "reverse_relationship")
    rel = next(r for r in mutant["relationships"].values() if r["type"] == "ClassComposition")
    by_id = {e["id"]: e["name"] for e in mutant["elements"].values()}
    assert by_id[rel["target"]["element"]] == "Task"  # the diamond moved to Task
    assert {by_id[rel[s]["element"]]: rel[s]["multiplicity"] for s in ("source", "target")} \
        == {"Project": "1", "Task": "0..*"}


def test_retyping_to_inheritance_clears_the_multiplicities() -> None:
    (mutant,) = _mutants(CLASS, {"between": ["Project", "Task"], "to": ["inheritance"]},
                         "retype_relationship")
    rel = next(r for r in mutant["relationships"].values() if r["type"] == "ClassInheritance")
    assert rel["source"]["multiplicity"] == rel["target"]["multiplicity"] == ""


def test_a_rename_against_a_convention_keeps_an_attributes_type() -> None:
    names = {m["elements"][k]["name"] for m in _mutants(CLASS, {"type": "attribute",
                                                                "convention": "upper_camel"},
                                                        "rename")
             for k in m["elements"]}
    assert "+ Deadline: Date" in names and "+ deadline: Date" in names


@pytest.mark.parametrize(("op", "spec", "message"), [
    ("frobnicate", {}, "unknown operator"),
    ("retype_relationship", {}, "needs 'to'"),
    ("retype_relationship", {"to": ["friendship"]}, "unknown relationship kind"),
    ("retype_gateway", {"to": ["diamond"]}, "applies to"),
    ("rename", {"convention": "camelCaps"}, "unknown naming convention"),
])
def test_a_rule_that_cannot_work_says_why(op: str, spec: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        choices(Doc(CLASS), OpSpec.model_validate({"op": op, **spec}))


def test_the_check_catches_what_an_operator_must_never_do() -> None:
    broken = copy.deepcopy(CLASS)
    task = next(e for e in broken["elements"].values() if e["name"] == "Task")
    task["attributes"].append("nowhere")
    rel = next(iter(broken["relationships"].values()))
    rel["target"]["element"] = "gone"
    project = next(e for e in broken["elements"].values() if e["name"] == "Project")
    project["bounds"]["x"] = task["bounds"]["x"]
    found = mutant_problems(CLASS, broken)
    assert any("'nowhere', which does not exist" in p for p in found)
    assert any("target 'gone' does not exist" in p for p in found)
    moved = copy.deepcopy(CLASS)
    first = next(e for e in moved["elements"].values() if e["name"] == "Project")
    first["bounds"]["x"] = 440
    assert any("overlaps" in p for p in mutant_problems(CLASS, moved))


def test_docs_list_every_operator() -> None:
    text = (ROOT / "docs" / "mutate.md").read_text(encoding="utf-8")
    assert [op for op in OPERATORS if f"| `{op}` |" not in text] == []
