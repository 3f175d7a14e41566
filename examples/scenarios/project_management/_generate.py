"""Generate the Apollon v3 JSON files of the ``project_management`` scenario.

Run from the repository root::

    .venv/bin/python examples/scenarios/project_management/_generate.py

The output is deterministic: element ids are ``uuid5`` of a stable key, so an
element keeps its id in every test case and re-running changes nothing.

Apollon draws the diamond of a ClassComposition/ClassAggregation at the
**target** end of the relationship (the SVG ``markerEnd`` of the path). So
"Project ◆── Task" is stored as source = Task, target = Project.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://eunomia.example/scenarios/project_management")

HEADER_HEIGHT = 40
ROW_HEIGHT = 30
CLASS_WIDTH = 220
CLASS_TOP = 40


def _id(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, key))


@dataclass(frozen=True)
class Cls:
    key: str
    name: str
    x: int
    attributes: tuple[str, ...]
    methods: tuple[str, ...] = ()
    y: int = CLASS_TOP

    @property
    def height(self) -> int:
        return HEADER_HEIGHT + ROW_HEIGHT * (len(self.attributes) + len(self.methods))


@dataclass(frozen=True)
class Rel:
    key: str
    type: str
    source: str
    """Key of the source class."""
    target: str
    """Key of the target class (the diamond end for compositions and aggregations)."""
    source_multiplicity: str = ""
    target_multiplicity: str = ""


@dataclass(frozen=True)
class Model:
    classes: tuple[Cls, ...]
    relationships: tuple[Rel, ...] = field(default=())

    def with_class(self, key: str, **changes: Any) -> Model:
        classes = tuple(replace(c, **changes) if c.key == key else c for c in self.classes)
        return replace(self, classes=classes)

    def with_rel(self, key: str, **changes: Any) -> Model:
        rels = tuple(replace(r, **changes) if r.key == key else r for r in self.relationships)
        return replace(self, relationships=rels)

    def without_class(self, key: str) -> Model:
        return Model(
            tuple(c for c in self.classes if c.key != key),
            tuple(r for r in self.relationships if key not in (r.source, r.target)),
        )

    def without_rel(self, key: str) -> Model:
        return replace(self, relationships=tuple(r for r in self.relationships if r.key != key))

    def plus(self, cls: Cls | None = None, rel: Rel | None = None) -> Model:
        classes = self.classes + ((cls,) if cls else ())
        rels = self.relationships + ((rel,) if rel else ())
        return Model(classes, rels)


SOLUTION = Model(
    classes=(
        Cls("project", "Project", 40, ("+ name: String", "+ deadline: Date")),
        Cls("task", "Task", 440, ("+ title: String", "+ status: String")),
        Cls("member", "TeamMember", 840, ("+ name: String", "+ email: String")),
    ),
    relationships=(
        # Project ◆── Task: the diamond (target) is on Project, 1 Project to 0..* Tasks.
        Rel("consists_of", "ClassComposition", "task", "project", "0..*", "1"),
        # Task ── TeamMember: 0..* Tasks are assigned to 0..1 TeamMember.
        Rel("assigned_to", "ClassBidirectional", "task", "member", "0..*", "0..1"),
    ),
)


def _attr_key(cls: Cls, index: int, prefix: str = "attr") -> str:
    return f"{cls.key}/{prefix}/{index}"


def render(model: Model) -> dict[str, Any]:
    """The Apollon version-3 ClassDiagram JSON of a model."""
    elements: dict[str, Any] = {}
    by_key: dict[str, Cls] = {c.key: c for c in model.classes}
    for cls in model.classes:
        cid = _id(f"class/{cls.key}")
        attr_ids = [_id(_attr_key(cls, i)) for i in range(len(cls.attributes))]
        method_ids = [_id(_attr_key(cls, i, "method")) for i in range(len(cls.methods))]
        elements[cid] = {
            "id": cid,
            "name": cls.name,
            "type": "Class",
            "owner": None,
            "bounds": {"x": cls.x, "y": cls.y, "width": CLASS_WIDTH, "height": cls.height},
            "attributes": attr_ids,
            "methods": method_ids,
        }
        rows = [(i, "ClassAttribute", n) for i, n in zip(attr_ids, cls.attributes, strict=True)]
        rows += [(i, "ClassMethod", n) for i, n in zip(method_ids, cls.methods, strict=True)]
        for row, (eid, etype, name) in enumerate(rows):
            elements[eid] = {
                "id": eid,
                "name": name,
                "type": etype,
                "owner": cid,
                "bounds": {
                    "x": cls.x,
                    "y": cls.y + HEADER_HEIGHT + ROW_HEIGHT * row,
                    "width": CLASS_WIDTH,
                    "height": ROW_HEIGHT,
                },
            }
    relationships: dict[str, Any] = {}
    for rel in model.relationships:
        rid = _id(f"rel/{rel.key}")
        src, tgt = by_key[rel.source], by_key[rel.target]
        (x_from, y_from, d_from), (x_to, y_to, d_to) = _ports(src, tgt)
        x0, y0 = min(x_from, x_to), min(y_from, y_to)
        relationships[rid] = {
            "id": rid,
            "name": "",
            "type": rel.type,
            "owner": None,
            "bounds": {
                "x": x0,
                "y": y0,
                "width": max(abs(x_to - x_from), 1),
                "height": max(abs(y_to - y_from), 1),
            },
            "path": [{"x": x_from - x0, "y": y_from - y0}, {"x": x_to - x0, "y": y_to - y0}],
            "source": {
                "direction": d_from,
                "element": _id(f"class/{rel.source}"),
                "multiplicity": rel.source_multiplicity,
                "role": "",
            },
            "target": {
                "direction": d_to,
                "element": _id(f"class/{rel.target}"),
                "multiplicity": rel.target_multiplicity,
                "role": "",
            },
            "isManuallyLayouted": False,
        }
    width = max((c.x + CLASS_WIDTH for c in model.classes), default=0) + 40
    height = max((c.y + c.height for c in model.classes), default=0) + 40
    return {
        "version": "3.0.0",
        "type": "ClassDiagram",
        "size": {"width": width, "height": height},
        "interactive": {"elements": {}, "relationships": {}},
        "elements": elements,
        "relationships": relationships,
        "assessments": {},
    }


def _ports(src: Cls, tgt: Cls) -> tuple[tuple[int, int, str], tuple[int, int, str]]:
    """Where a straight line between two classes leaves and enters them: (x, y, direction)."""
    if src.x + CLASS_WIDTH <= tgt.x or tgt.x + CLASS_WIDTH <= src.x:  # side by side
        y = max(src.y, tgt.y) + HEADER_HEIGHT // 2
        if src.x < tgt.x:
            return (src.x + CLASS_WIDTH, y, "Right"), (tgt.x, y, "Left")
        return (src.x, y, "Left"), (tgt.x + CLASS_WIDTH, y, "Right")
    x = max(src.x, tgt.x) + CLASS_WIDTH // 2
    if src.y < tgt.y:  # one above the other
        return (x, src.y + src.height, "Down"), (x, tgt.y, "Up")
    return (x, src.y, "Up"), (x, tgt.y + tgt.height, "Down")


def _rename_all(model: Model, names: dict[str, str]) -> Model:
    for key, name in names.items():
        model = model.with_class(key, name=name)
    return model


CLIENT = Cls("client", "Client", 40, ("+ name: String", "+ company: String"), y=280)

CASES: dict[str, Callable[[Model], Model]] = {
    "perfect_solution": lambda m: m,
    "association_instead_of_composition": lambda m: m.with_rel(
        "consists_of", type="ClassBidirectional"
    ),
    "aggregation_instead_of_composition": lambda m: m.with_rel(
        "consists_of", type="ClassAggregation"
    ),
    # The diamond is on Task: source = Project, target = Task (multiplicities stay at their class).
    "composition_reversed": lambda m: m.with_rel(
        "consists_of",
        source="project",
        target="task",
        source_multiplicity="1",
        target_multiplicity="0..*",
    ),
    "missing_task_class": lambda m: m.without_class("task"),
    "missing_attributes": lambda m: m.with_class(
        "task", attributes=("+ title: String",)
    ).with_class("project", attributes=("+ name: String",)),
    "lowercase_class_names": lambda m: _rename_all(
        m, {"project": "project", "task": "task", "member": "teamMember"}
    ),
    "wrong_multiplicity": lambda m: m.with_rel(
        "consists_of", source_multiplicity="1", target_multiplicity="0..*"
    ),
    "extra_class": lambda m: m.plus(
        CLIENT, Rel("ordered_by", "ClassBidirectional", "project", "client", "0..*", "1")
    ),
    "inheritance_instead_of_composition": lambda m: m.with_rel(
        "consists_of", type="ClassInheritance", source_multiplicity="", target_multiplicity=""
    ),
    "missing_assignment": lambda m: m.without_rel("assigned_to"),
    # Two mistakes at once: an association instead of the composition, UpperCamelCase attributes.
    "association_and_uppercase_attributes": lambda m: (
        m.with_rel("consists_of", type="ClassBidirectional")
        .with_class("project", attributes=("+ Name: String", "+ Deadline: Date"))
        .with_class("task", attributes=("+ Title: String", "+ Status: String"))
    ),
    # Semantic mistakes the example server's simple rules get wrong (see the manifest):
    # Task repeats the composition as an attribute: an extraneous element, not a class.
    "redundant_project_attribute": lambda m: m.with_class(
        "task", attributes=("+ title: String", "+ status: String", "+ project: Project")
    ),
    # "Job" is the Task class under another name; only the class name is wrong.
    "job_instead_of_task": lambda m: m.with_class("task", name="Job"),
}


def main() -> None:
    (HERE / "test_cases").mkdir(exist_ok=True)
    _write(HERE / "example_solution.json", render(SOLUTION))
    for name, mutate in CASES.items():
        _write(HERE / "test_cases" / f"{name}.json", render(mutate(SOLUTION)))
    print(f"wrote example_solution.json and {len(CASES)} test cases to {HERE}")


def _write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
