"""Rule checks on the project-management class diagram, one function per check.

Each check takes a :class:`ClassDiagramView` and returns an :class:`Outcome`: a
label (matched case-insensitively against an SGI's ``gradingScale``) and the ids of
the diagram elements concerned.

Apollon convention used throughout: a ``ClassComposition`` or ``ClassAggregation``
draws its diamond at the relationship's **target** end (the SVG ``markerEnd`` of the
path in Apollon's association component). "Project ◆── Task" is therefore stored as
``source = Task``, ``target = Project``.

The checks are deliberately simple: they compare names, types and multiplicities.
They do not understand synonyms ("Job" for "Task") and only look for extraneous
*classes*, so the example server is a realistic, imperfect target.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from eunomia.apollon import ApollonDiagram, Element, Relationship

# --- outcome labels (the gradingScale values of the example scenario) --------------
CLASSES_CORRECT = "Classes Correct"
CLASSES_MISSING = "Classes Missing"
COMPOSITION_CORRECT = "Composition Correct"
COMPOSITION_REVERSED = "Composition Reversed"
NOT_A_COMPOSITION = "Not a Composition"
MULTIPLICITIES_CORRECT = "Multiplicities Correct"
MULTIPLICITIES_INCORRECT = "Multiplicities Incorrect"
ASSIGNMENT_CORRECT = "Assignment Correct"
ASSIGNMENT_MISSING = "Assignment Missing"
ATTRIBUTES_CORRECT = "Attributes Correct"
ATTRIBUTES_MISSING = "Attributes Missing"
NAMING_CORRECT = "Naming Correct"
NAMING_INCORRECT = "Naming Incorrect"
NO_EXTRAS = "No Extras"
EXTRAS_PRESENT = "Extras Present"

# --- what the exercise asks for ------------------------------------------------------
PROJECT, TASK, MEMBER = "Project", "Task", "TeamMember"
REQUIRED_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    PROJECT: ("name", "deadline"),
    TASK: ("title", "status"),
    MEMBER: ("name", "email"),
}
CLASS_TYPES = frozenset({"Class", "AbstractClass", "Interface", "Enumeration"})
MEMBER_TYPES = frozenset({"ClassAttribute", "ClassMethod"})
ASSOCIATION_TYPES = frozenset({"ClassBidirectional", "ClassUnidirectional"})

_UPPER_CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_LOWER_CAMEL = re.compile(r"^[a-z][A-Za-z0-9]*$")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one check."""

    label: str
    element_ids: tuple[str, ...] = ()


def normalize(name: str) -> str:
    """Lookup key of a class name: case and non-alphanumerics ignored ("team_member")."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def bare_name(text: str) -> str:
    """The name of an attribute or method without visibility, type or parameters.

    ``"+ name: String"`` → ``"name"``, ``"- /age : int"`` → ``"age"``,
    ``"+ getName(): String"`` → ``"getName"``.
    """
    text = text.strip().lstrip("+-#~").strip().lstrip("/").strip()
    return re.split(r"[:(]", text, maxsplit=1)[0].strip()


def _multiplicity(value: str | None) -> str:
    """Canonical multiplicity: ``*`` → ``0..*``, ``1..1`` → ``1``, spaces removed."""
    text = re.sub(r"\s", "", value or "").lower().replace("n", "*")
    return {"*": "0..*", "1..1": "1"}.get(text, text)


class ClassDiagramView:
    """The classes, members and relationships of an Apollon class diagram."""

    def __init__(self, diagram: ApollonDiagram) -> None:
        self.diagram = diagram
        self.classes = [e for e in diagram.elements.values() if e.type in CLASS_TYPES]
        self._by_key: dict[str, Element] = {}
        for cls in self.classes:
            self._by_key.setdefault(normalize(cls.name), cls)

    def find(self, name: str) -> Element | None:
        """The class with this name, ignoring case and separators."""
        return self._by_key.get(normalize(name))

    def members(self, cls: Element) -> list[Element]:
        """Attributes and methods of a class: the listed ids, then any other owned member."""
        listed = [self.diagram.elements.get(i) for i in [*cls.attributes, *cls.methods]]
        found = [m for m in listed if m is not None]
        seen = {m.id for m in found}
        owned = [c for c in self.diagram.children(cls.id) if c.type in MEMBER_TYPES]
        return found + [c for c in owned if c.id not in seen]

    def attribute_names(self, cls: Element) -> set[str]:
        members = self.members(cls)
        return {bare_name(m.name).casefold() for m in members if m.type == "ClassAttribute"}

    def between(self, a: Element, b: Element) -> list[Relationship]:
        """Relationships joining two classes, in either direction."""
        ends = {a.id, b.id}
        return [
            r
            for r in self.diagram.relationships.values()
            if {r.source.element, r.target.element} == ends and a.id != b.id
        ]


Check = Callable[[ClassDiagramView], Outcome]


def _ids(*items: Element | Relationship | None) -> tuple[str, ...]:
    return tuple(item.id for item in items if item is not None)


def check_classes(view: ClassDiagramView) -> Outcome:
    """Project, Task and TeamMember are all present (names compared case-insensitively)."""
    found = [view.find(name) for name in (PROJECT, TASK, MEMBER)]
    label = CLASSES_CORRECT if all(found) else CLASSES_MISSING
    return Outcome(label, _ids(*found))


def check_relationship_type(view: ClassDiagramView) -> Outcome:
    """Project ◆── Task is a composition whose diamond (target end) is on Project."""
    project, task = view.find(PROJECT), view.find(TASK)
    if project is None or task is None:
        return Outcome(NOT_A_COMPOSITION, _ids(project, task))
    rels = view.between(project, task)
    compositions = [r for r in rels if r.type == "ClassComposition"]
    for rel in compositions:
        if rel.target.element == project.id:
            return Outcome(COMPOSITION_CORRECT, _ids(rel, project, task))
    if compositions:
        return Outcome(COMPOSITION_REVERSED, _ids(*compositions, project, task))
    return Outcome(NOT_A_COMPOSITION, _ids(*rels, project, task))


def _end_multiplicity(rel: Relationship, element_id: str) -> str:
    end = rel.source if rel.source.element == element_id else rel.target
    return _multiplicity(end.multiplicity)


def check_multiplicities(view: ClassDiagramView) -> Outcome:
    """Project 1 ── 0..* Task, and Task 0..* ── 0..1 TeamMember if that association exists."""
    project, task, member = view.find(PROJECT), view.find(TASK), view.find(MEMBER)
    if project is None or task is None:
        return Outcome(MULTIPLICITIES_INCORRECT, _ids(project, task))
    rels = sorted(view.between(project, task), key=lambda r: r.type != "ClassComposition")
    if not rels:
        return Outcome(MULTIPLICITIES_INCORRECT, _ids(project, task))
    wrong: list[Relationship] = []
    owning = rels[0]
    if (_end_multiplicity(owning, project.id), _end_multiplicity(owning, task.id)) != ("1", "0..*"):
        wrong.append(owning)
    if member is not None:
        for rel in view.between(task, member):
            ends = (_end_multiplicity(rel, task.id), _end_multiplicity(rel, member.id))
            if rel.type in ASSOCIATION_TYPES and ends != ("0..*", "0..1"):
                wrong.append(rel)
    if wrong:
        return Outcome(MULTIPLICITIES_INCORRECT, _ids(*wrong))
    return Outcome(MULTIPLICITIES_CORRECT, _ids(owning))


def check_assignment(view: ClassDiagramView) -> Outcome:
    """An association (bidirectional or unidirectional) joins Task and TeamMember."""
    task, member = view.find(TASK), view.find(MEMBER)
    if task is None or member is None:
        return Outcome(ASSIGNMENT_MISSING, _ids(task, member))
    links = [r for r in view.between(task, member) if r.type in ASSOCIATION_TYPES]
    if links:
        return Outcome(ASSIGNMENT_CORRECT, _ids(*links))
    return Outcome(ASSIGNMENT_MISSING, _ids(task, member))


def check_attributes(view: ClassDiagramView) -> Outcome:
    """Every required attribute is in its class (visibility, type and case ignored)."""
    lacking: list[Element] = []
    complete = True
    for name, required in REQUIRED_ATTRIBUTES.items():
        cls = view.find(name)
        if cls is None:
            complete = False
            continue
        if not set(required) <= view.attribute_names(cls):
            complete = False
            lacking.append(cls)
    if complete:
        return Outcome(ATTRIBUTES_CORRECT)
    return Outcome(ATTRIBUTES_MISSING, _ids(*lacking))


def check_naming(view: ClassDiagramView) -> Outcome:
    """Class names are UpperCamelCase; attribute and method names lowerCamelCase.

    Enumeration literals are exempt (they are conventionally UPPER_CASE).
    """
    wrong: list[Element] = []
    for cls in view.classes:
        if not _UPPER_CAMEL.match(cls.name.strip()):
            wrong.append(cls)
        if cls.type == "Enumeration":
            continue
        wrong.extend(m for m in view.members(cls) if not _LOWER_CAMEL.match(bare_name(m.name)))
    if wrong:
        return Outcome(NAMING_INCORRECT, _ids(*wrong))
    return Outcome(NAMING_CORRECT)


def check_extras(view: ClassDiagramView) -> Outcome:
    """No class beyond Project, Task and TeamMember (extra attributes are not checked)."""
    expected = {normalize(n) for n in (PROJECT, TASK, MEMBER)}
    extras = [c for c in view.classes if normalize(c.name) not in expected]
    if extras:
        return Outcome(EXTRAS_PRESENT, _ids(*extras))
    return Outcome(NO_EXTRAS)
