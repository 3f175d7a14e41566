"""Tests for the text rendering of Apollon diagrams (eunomia.apollon.render_diagram)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from eunomia.apollon import parse_diagram, render_diagram

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
BPMN_LOAN = SHARED / "conformance" / "eunomia_testbench" / "scenarios" / "bpmn_loan"
needs_bpmn_loan = pytest.mark.skipif(
    not BPMN_LOAN.is_dir(), reason=f"shared conformance data not found at {BPMN_LOAN}"
)


def _bpmn_loan_files() -> list[Path]:
    if not BPMN_LOAN.is_dir():
        return []
    return sorted((BPMN_LOAN / "test_cases").glob("*.json"))


def _element(
    id_: str,
    type_: str,
    name: str = "",
    owner: str | None = None,
    x: float = 0,
    y: float = 0,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": id_,
        "name": name,
        "type": type_,
        "owner": owner,
        "bounds": {"x": x, "y": y, "width": 100, "height": 40},
        **extra,
    }


def _end(element: str, multiplicity: str = "", role: str = "") -> dict[str, Any]:
    return {"element": element, "direction": "Left", "multiplicity": multiplicity, "role": role}


def _rel(
    id_: str,
    type_: str,
    source: dict[str, Any],
    target: dict[str, Any],
    name: str = "",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": id_,
        "name": name,
        "type": type_,
        "owner": None,
        "bounds": {"x": 0, "y": 0, "width": 0, "height": 0},
        "path": [{"x": 0, "y": 0}, {"x": 10, "y": 0}],
        "source": source,
        "target": target,
        "isManuallyLayouted": False,
        **extra,
    }


def _v3(type_: str, elements: list[dict[str, Any]], rels: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "version": "3.0.0",
        "type": type_,
        "size": {"width": 800, "height": 600},
        "interactive": {"elements": {}, "relationships": {}},
        "elements": {e["id"]: e for e in elements},
        "relationships": {r["id"]: r for r in rels},
        "assessments": {},
    }


def _class_diagram() -> dict[str, Any]:
    elements = [
        _element("pkg", "Package", "planning", x=0, y=0),
        _element(
            "project",
            "Class",
            "Project",
            owner="pkg",
            x=20,
            y=40,
            attributes=["a1", "a2"],
            methods=["m1"],
        ),
        _element("a1", "ClassAttribute", "+ name: String", owner="project", x=20, y=80),
        _element("a2", "ClassAttribute", "+ deadline: Date", owner="project", x=20, y=110),
        _element("m1", "ClassMethod", "+ start(): void", owner="project", x=20, y=140),
        _element("task", "Class", "Task", owner="pkg", x=300, y=40),
        _element("task2", "Class", "Task", x=0, y=400),
        _element("iface", "Interface", "Schedulable", x=300, y=400, methods=["m2"]),
        _element("m2", "ClassMethod", "+ schedule(): void", owner="iface", x=300, y=440),
        _element("prio", "Enumeration", "Priority", x=600, y=400, attributes=["v1", "v2"]),
        _element("v1", "ClassAttribute", "LOW", owner="prio", x=600, y=440),
        _element("v2", "ClassAttribute", "HIGH", owner="prio", x=600, y=470),
        _element("abs", "AbstractClass", "", x=0, y=700),
    ]
    rels = [
        _rel("r1", "ClassComposition", _end("task", "0..*", "tasks"), _end("project", "1")),
        _rel("r2", "ClassInheritance", _end("task2", ""), _end("task", "")),
        _rel("r3", "ClassRealization", _end("project"), _end("iface")),
        _rel("r4", "ClassBidirectional", _end("task", "*", "a"), _end("task2", "1", "b"), "uses"),
        _rel("r5", "ClassAggregation", _end("abs"), _end("project", "", "owner")),
        _rel("r6", "ClassDependency", _end("project"), _end("prio")),
        _rel("r7", "ClassUnidirectional", _end("task2"), _end("prio")),
    ]
    return _v3("ClassDiagram", elements, rels)


CLASS_EXPECTED = """\
Diagram type: ClassDiagram
Elements:
[Package] planning
  [Class] Project {attributes: + name: String; + deadline: Date | methods: + start(): void}
  [Class] Task
[Class] Task#2
[Interface] Schedulable {methods: + schedule(): void}
[Enumeration] Priority {values: LOW; HIGH}
[AbstractClass] <unnamed>
Relationships:
R1: Project ..|> Schedulable (realization, interface: Schedulable)
R2: Project ..> Priority (dependency)
R3: Task [0..*, role "tasks"] --◆ Project [1] (composition, whole: Project)
R4: Task [*, role "a"] <--> Task#2 [1, role "b"] (bidirectional association) "uses"
R5: Task#2 --|> Task (inheritance, parent: Task)
R6: Task#2 --> Priority (unidirectional association)
R7: [AbstractClass] <unnamed> --◇ Project [role "owner"] (aggregation, whole: Project)
"""


def test_class_diagram_exact() -> None:
    assert render_diagram(parse_diagram(_class_diagram())) == CLASS_EXPECTED


def _activity_diagram() -> dict[str, Any]:
    elements = [
        _element("act", "Activity", "Handle order", x=0, y=0),
        _element("init", "ActivityInitialNode", owner="act", x=100, y=20),
        _element("recv", "ActivityActionNode", "Receive order", owner="act", x=80, y=80),
        _element("ok", "ActivityMergeNode", "valid?", owner="act", x=100, y=160),
        _element("fork", "ActivityForkNode", owner="act", x=100, y=240),
        _element("ship", "ActivityActionNode", "Ship order", owner="act", x=40, y=300),
        _element("bill", "ActivityActionNode", "Send invoice", owner="act", x=200, y=300),
        _element("inv", "ActivityObjectNode", "Invoice", owner="act", x=200, y=360),
        _element("join", "ActivityForkNodeHorizontal", owner="act", x=100, y=420),
        _element("end", "ActivityFinalNode", owner="act", x=100, y=500),
        _element("end2", "ActivityFinalNode", owner="act", x=300, y=200),
    ]
    flows = [
        ("f1", "init", "recv", ""),
        ("f2", "recv", "ok", ""),
        ("f3", "ok", "fork", "yes"),
        ("f4", "ok", "end2", "no"),
        ("f5", "fork", "ship", ""),
        ("f6", "fork", "bill", ""),
        ("f7", "bill", "inv", ""),
        ("f8", "ship", "join", ""),
        ("f9", "inv", "join", ""),
        ("f10", "join", "end", ""),
    ]
    rels = [_rel(i, "ActivityControlFlow", _end(s), _end(t), n) for i, s, t, n in flows]
    return _v3("ActivityDiagram", elements, rels)


ACTIVITY_EXPECTED = """\
Diagram type: ActivityDiagram
Elements:
[Activity] "Handle order"
  [ActivityInitialNode] <unnamed>
  [ActivityActionNode] "Receive order"
  [ActivityMergeNode] "valid?"
  [ActivityFinalNode] <unnamed>
  [ActivityForkNode] <unnamed>
  [ActivityActionNode] "Ship order"
  [ActivityActionNode] "Send invoice"
  [ActivityObjectNode] "Invoice"
  [ActivityForkNodeHorizontal] <unnamed>
  [ActivityFinalNode] <unnamed>#2
Relationships:
F1: [ActivityInitialNode] <unnamed> --> "Receive order"
F2: "Receive order" --> "valid?"
F3: "valid?" --("no")--> [ActivityFinalNode] <unnamed>
F4: "valid?" --("yes")--> [ActivityForkNode] <unnamed>
F5: [ActivityForkNode] <unnamed> --> "Ship order"
F6: [ActivityForkNode] <unnamed> --> "Send invoice"
F7: "Ship order" --> [ActivityForkNodeHorizontal] <unnamed>
F8: "Send invoice" --> "Invoice"
F9: "Invoice" --> [ActivityForkNodeHorizontal] <unnamed>
F10: [ActivityForkNodeHorizontal] <unnamed> --> [ActivityFinalNode] <unnamed>#2
"""


def test_activity_diagram_exact() -> None:
    assert render_diagram(parse_diagram(_activity_diagram())) == ACTIVITY_EXPECTED


def test_bpmn_elements_and_flows() -> None:
    elements = [
        _element("pool", "BPMNPool", "Bank", x=0, y=0),
        _element("lane", "BPMNSwimlane", "Clerk", owner="pool", x=40, y=0),
        _element("start", "BPMNStartEvent", owner="lane", x=60, y=50, eventType="message"),
        _element(
            "t1",
            "BPMNTask",
            "Check form",
            owner="lane",
            x=140,
            y=40,
            taskType="user",
            marker="loop",
        ),
        _element("gw", "BPMNGateway", "Ok?", owner="lane", x=300, y=50, gatewayType="exclusive"),
        _element(
            "t2", "BPMNTask", "File", owner="lane", x=400, y=40, taskType="default", marker="none"
        ),
        _element("end", "BPMNEndEvent", owner="lane", x=500, y=50, eventType="default"),
        _element("note", "BPMNAnnotation", "Line one\nline two", x=0, y=300),
        _element("store", "BPMNDataStore", "Archive", x=400, y=300),
    ]
    rels = [
        _rel("a", "BPMNFlow", _end("start"), _end("t1"), flowType="sequence"),
        _rel("b", "BPMNFlow", _end("t1"), _end("gw"), flowType="sequence"),
        _rel("c", "BPMNFlow", _end("gw"), _end("t2"), "yes", flowType="sequence"),
        _rel("d", "BPMNFlow", _end("t2"), _end("end"), flowType="sequence"),
        _rel("e", "BPMNFlow", _end("t2"), _end("store"), flowType="data-association"),
        _rel("f", "BPMNFlow", _end("note"), _end("t1"), flowType="association"),
    ]
    text = render_diagram(parse_diagram(_v3("BPMN", elements, rels)))
    assert text == (
        "Diagram type: BPMN\n"
        "Elements:\n"
        '[BPMNPool] "Bank"\n'
        '  [BPMNSwimlane] "Clerk"\n'
        "    [BPMNStartEvent] <unnamed> (eventType=message)\n"
        '    [BPMNTask] "Check form" (taskType=user, marker=loop)\n'
        '    [BPMNGateway] "Ok?" (gatewayType=exclusive)\n'
        '    [BPMNTask] "File"\n'
        "    [BPMNEndEvent] <unnamed>\n"
        '[BPMNAnnotation] "Line one\\nline two"\n'
        '[BPMNDataStore] "Archive"\n'
        "Relationships:\n"
        'F1: [BPMNStartEvent] <unnamed> --(sequence)--> "Check form"\n'
        'F2: "Check form" --(sequence)--> "Ok?"\n'
        'F3: "Ok?" --(sequence, "yes")--> "File"\n'
        'F4: "File" --(sequence)--> [BPMNEndEvent] <unnamed>\n'
        'F5: "File" --(data-association)--> "Archive"\n'
        'F6: "Line one\\nline two" --(association)--> "Check form"\n'
    )


def test_missing_elements_and_unknown_types() -> None:
    elements = [
        _element("actor", "UseCaseActor", "Student", x=0, y=0),
        _element("uc", "UseCase", "Borrow book", x=200, y=0),
        _element(
            "place",
            "PetriNetPlace",
            "p1",
            x=0,
            y=200,
            amountOfTokens=2,
            capacity="Infinity",
            fillColor="#fff",
            highlight="red",
        ),
        _element("orphan", "Mystery", "", owner="gone", x=0, y=300, note="a b", tags=["x", "y"]),
    ]
    rels = [
        _rel("r1", "UseCaseAssociation", _end("actor"), _end("uc")),
        _rel("r2", "UseCaseInclude", _end("uc"), _end("nowhere"), "needs"),
        _rel("r3", "WeirdLink", _end("gone1"), _end("gone2"), weight=3),
    ]
    text = render_diagram(parse_diagram(_v3("UseCaseDiagram", elements, rels)))
    assert text == (
        "Diagram type: UseCaseDiagram\n"
        "Elements:\n"
        '[UseCaseActor] "Student"\n'
        '[UseCase] "Borrow book"\n'
        '[PetriNetPlace] "p1" (amountOfTokens=2, capacity=Infinity)\n'
        '[Mystery] <unnamed> (note="a b", tags=["x","y"])\n'
        "Relationships:\n"
        'R1: "Student" --(UseCaseAssociation)--> "Borrow book"\n'
        'R2: "Borrow book" --(UseCaseInclude, "needs")--> <missing>\n'
        "R3: <missing> --(WeirdLink)--> <missing> (weight=3)\n"
    )


def test_owner_cycle_and_self_owner_still_rendered() -> None:
    elements = [
        _element("a", "Package", "A", owner="b", y=0),
        _element("b", "Package", "B", owner="a", y=10),
        _element("c", "Class", "C", owner="c", y=20),
    ]
    text = render_diagram(parse_diagram(_v3("ClassDiagram", elements, [])))
    assert text.splitlines()[2:] == [
        "[Class] C",
        "[Package] A",
        "  [Package] B",
        "Relationships:",
        "(none)",
    ]


def test_empty_diagram() -> None:
    text = render_diagram(parse_diagram({"version": "3.0.0", "type": "ClassDiagram"}))
    assert text == "Diagram type: ClassDiagram\nElements:\n(none)\nRelationships:\n(none)\n"


def test_version_2_arrays_render_like_version_3() -> None:
    v3 = _class_diagram()
    v2 = {
        "version": "2.0.0",
        "type": v3["type"],
        "size": v3["size"],
        "interactive": {"elements": [], "relationships": []},
        "elements": list(v3["elements"].values()),
        "relationships": list(v3["relationships"].values()),
        "assessments": [],
    }
    assert render_diagram(parse_diagram(v2)) == CLASS_EXPECTED


def _shuffled(data: dict[str, Any], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    out = dict(data)
    for key in ("elements", "relationships"):
        items = list(data[key].items())
        rng.shuffle(items)
        out[key] = dict(items)
    return out


def test_deterministic_regardless_of_key_order() -> None:
    for build in (_class_diagram, _activity_diagram):
        data = build()
        expected = render_diagram(parse_diagram(data))
        for seed in range(10):
            assert render_diagram(parse_diagram(_shuffled(data, seed))) == expected


@needs_bpmn_loan
def test_example_solution_renders() -> None:
    data = json.loads((BPMN_LOAN / "example_solution.json").read_text(encoding="utf-8"))
    text = render_diagram(parse_diagram(data))
    lines = text.splitlines()
    assert lines[:3] == ["Diagram type: BPMN", "Elements:", '[BPMNPool] "Loan Applicant"']
    assert '    [BPMNGateway] "Standard terms applicable?" (gatewayType=exclusive)' in lines
    assert any(
        re.fullmatch(
            r'F\d+: "Standard terms applicable\?" --\(sequence, "yes"\)--> '
            r'"Calculate terms"',
            line,
        )
        for line in lines
    )
    assert any(
        re.fullmatch(r'F\d+: "Send quote" --\(message\)--> "Quote received"', line)
        for line in lines
    )
    # Compact: no ids, no coordinates.
    for element_id in data["elements"]:
        assert element_id not in text
    assert "bounds" not in text and "x=" not in text


@needs_bpmn_loan
@pytest.mark.parametrize("path", _bpmn_loan_files(), ids=lambda p: p.stem)
def test_bpmn_loan_every_element_and_flow_appears(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    diagram = parse_diagram(data)
    text = render_diagram(diagram)
    lines = text.splitlines()
    start = lines.index("Elements:") + 1
    middle = lines.index("Relationships:")
    element_lines = [line for line in lines[start:middle] if line != "(none)"]
    relation_lines = [line for line in lines[middle + 1 :] if line != "(none)"]
    assert len(element_lines) == len(data["elements"])
    assert all(line.lstrip().startswith("[BPMN") for line in element_lines)
    assert len(relation_lines) == len(data["relationships"])
    assert [line.split(":")[0] for line in relation_lines] == [
        f"F{i}" for i in range(1, len(relation_lines) + 1)
    ]
    # Each element type appears as often as in the input.
    for type_ in {e["type"] for e in data["elements"].values()}:
        expected = sum(e["type"] == type_ for e in data["elements"].values())
        assert sum(line.lstrip().startswith(f"[{type_}]") for line in element_lines) == expected
    assert "<missing>" not in text
    assert render_diagram(parse_diagram(_shuffled(data, 1))) == text


def test_bpmn_loan_has_37_test_cases() -> None:
    if not BPMN_LOAN.is_dir():
        pytest.skip(f"shared conformance data not found at {BPMN_LOAN}")
    assert len(_bpmn_loan_files()) == 37
