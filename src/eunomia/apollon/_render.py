"""Render an Apollon diagram as compact, deterministic text for an LLM prompt.

The output has no coordinates and no ids, and is the same for the same diagram
whatever the order of its JSON keys, so it is safe to use in prompts and cache keys.

Layout::

    Diagram type: BPMN
    Elements:
    [BPMNPool] "Loan Applicant"
      [BPMNStartEvent] <unnamed>
      [BPMNTask] "Send credit request"
    Relationships:
    F1: [BPMNStartEvent] <unnamed> --(sequence)--> "Send credit request"

* Elements are nested under their owner (indented two spaces per level) and ordered
  by position (y, then x, then id).
* Names of class-diagram elements are shown bare (``Project``); all other names are
  quoted (``"Review request"``).  Unnamed elements are ``<unnamed>``.  Repeated labels
  get a suffix (``Task#2``, ``"Review"#2``, ``<unnamed>#2``) in element order, so every
  reference in a relationship line points at exactly one element line.  Unnamed
  endpoints of a relationship also carry their type (``[BPMNStartEvent] <unnamed>``).
* Relationships are numbered ``F1, F2, ...`` (BPMN flows and activity control flows) or
  ``R1, R2, ...`` (everything else), ordered by the position of their source, then target.
  An endpoint whose element does not exist is shown as ``<missing>``.
* Every element and every relationship of the input appears exactly once (class
  attributes and methods inline in their class); types Eunomia does not know are
  rendered generically as ``[<type>] <name> (key=value, ...)``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from eunomia.apollon._model import ApollonDiagram, Element, Endpoint, Relationship

INDENT = "  "
UNNAMED = "<unnamed>"
MISSING = "<missing>"

CLASS_FAMILY = frozenset(
    {
        "Package",
        "Class",
        "AbstractClass",
        "Interface",
        "Enumeration",
        "ClassAttribute",
        "ClassMethod",
    }
)
# Owners whose ClassAttribute / ClassMethod children are rendered inline.
CLASSIFIERS = frozenset({"Class", "AbstractClass", "Interface", "Enumeration"})
MEMBER_TYPES = frozenset({"ClassAttribute", "ClassMethod"})

# BPMN / activity fields worth showing, in display order.
BPMN_FIELDS = ("taskType", "marker", "eventType", "gatewayType")
# Values that mean "nothing special"; such fields are left out to keep lines short.
# gatewayType is always shown: the kind of gateway is what a grader checks.
DEFAULT_VALUES = frozenset({"", "default", "none"})
ALWAYS_SHOWN = frozenset({"gatewayType"})

# Fields that are layout, styling or identity only: never shown in generic rendering.
HIDDEN_FIELDS = frozenset(
    {
        "id",
        "name",
        "type",
        "owner",
        "bounds",
        "path",
        "source",
        "target",
        "isManuallyLayouted",
        "fillColor",
        "strokeColor",
        "textColor",
        "highlight",
        "assessmentNote",
        "selected",
        "hovered",
        "resizable",
        "movable",
        "connectable",
        "updatable",
        "droppable",
        "hoverable",
        "selectable",
        "interactive",
    }
)

# Class relationships: (arrow, description).  Verified against ls1intum/Apollon
# (src/main/packages/uml-class-diagram/uml-class-association/
# uml-class-association-component.tsx): the relationship is drawn as one polyline along
# `path`, which runs from the source element to the target element, and the type's marker
# (getMarkerForTypeForUMLAssociation: Arrow for ClassDependency/ClassUnidirectional,
# Rhombus for ClassAggregation, RhombusFilled for ClassComposition, Triangle for
# ClassInheritance/ClassRealization) is attached with `markerEnd`, i.e. at the TARGET end.
# So in a ClassComposition the filled diamond touches the target: target = the whole,
# source = the part; in a ClassInheritance the target is the parent.  We always print
# `source <arrow> target` with the head on the target side, and say it in words too.
# The description is formatted with t = the target's label.
CLASS_RELATIONS: dict[str, tuple[str, str]] = {
    "ClassComposition": ("--◆", "composition, whole: {t}"),
    "ClassAggregation": ("--◇", "aggregation, whole: {t}"),
    "ClassInheritance": ("--|>", "inheritance, parent: {t}"),
    "ClassRealization": ("..|>", "realization, interface: {t}"),
    "ClassDependency": ("..>", "dependency"),
    "ClassUnidirectional": ("-->", "unidirectional association"),
    "ClassBidirectional": ("<-->", "bidirectional association"),
}

FLOW_TYPES = frozenset({"BPMNFlow", "ActivityControlFlow"})
BPMN_CONTAINERS = frozenset({"BPMNPool", "BPMNSwimlane", "BPMNGroup"})

_SIMPLE = re.compile(r"[\w.\-+*]+")


def render_diagram(diagram: ApollonDiagram) -> str:
    """The diagram as text: a header, the element tree, then one line per relationship."""
    return _Renderer(diagram).render()


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _one_line(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value if _SIMPLE.fullmatch(value) else _quote(value)
    return json.dumps(_strip(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _strip(value: Any) -> Any:
    """Drop ids and layout from nested values of generic fields."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in HIDDEN_FIELDS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _fields(pairs: list[tuple[str, str]]) -> str:
    return f" ({', '.join(f'{k}={v}' for k, v in pairs)})" if pairs else ""


def _position_key(element: Element) -> tuple[int, float, float, str]:
    """Rows top to bottom, then left to right; BPMN flow nodes left to right first.

    A BPMN process reads left to right, so the nodes inside a pool or lane are listed by
    x, then y; pools, lanes and everything else by y, then x.  Containers come before
    flow nodes among siblings so the key is a total order (ties broken by id).
    """
    bounds = element.bounds
    if element.type.startswith("BPMN") and element.type not in BPMN_CONTAINERS:
        return (1, bounds.x, bounds.y, element.id)
    return (0, bounds.y, bounds.x, element.id)


class _Renderer:
    def __init__(self, diagram: ApollonDiagram) -> None:
        self.diagram = diagram
        self.elements = diagram.elements
        self.children: dict[str | None, list[Element]] = defaultdict(list)
        for element in self.elements.values():
            owner = element.owner
            if owner is None or owner == element.id or owner not in self.elements:
                owner = None
            self.children[owner].append(element)
        for siblings in self.children.values():
            siblings.sort(key=_position_key)
        self.order: list[Element] = self._tree_order()
        self.index = {element.id: i for i, element in enumerate(self.order)}
        self.inline = {e.id for e in self.order if self._is_inline_member(e)}
        self.labels = self._labels()

    # ---- ordering and naming -------------------------------------------------

    def _tree_order(self) -> list[Element]:
        """Depth-first by owner, siblings by position; owner cycles still end up listed."""
        order: list[Element] = []
        seen: set[str] = set()

        def visit(element: Element) -> None:
            if element.id in seen:
                return
            seen.add(element.id)
            order.append(element)
            for child in self.children.get(element.id, []):
                visit(child)

        for root in self.children.get(None, []):
            visit(root)
        # Elements caught in an owner cycle are unreachable from the roots.
        for element in sorted(self.elements.values(), key=_position_key):
            visit(element)
        return order

    def _is_inline_member(self, element: Element) -> bool:
        if element.type not in MEMBER_TYPES or element.owner is None:
            return False
        owner = self.elements.get(element.owner)
        return owner is not None and owner.type in CLASSIFIERS and owner.id != element.id

    def _base_label(self, element: Element) -> str:
        if not element.name.strip():
            return UNNAMED
        if element.type in CLASS_FAMILY:
            return _one_line(element.name)
        return _quote(element.name)

    def _labels(self) -> dict[str, str]:
        # Unnamed elements are referred to with their type ("[BPMNGateway] <unnamed>#2"),
        # so they only need to be unique within their type; names must be unique overall.
        labels: dict[str, str] = {}
        used: set[tuple[str, str]] = set()
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for element in self.order:
            if element.id in self.inline:
                continue
            base = self._base_label(element)
            scope = element.type if base == UNNAMED else ""
            label = base
            while (scope, label) in used:
                counts[scope, base] += 1
                label = f"{base}#{counts[scope, base] + 1}"
            used.add((scope, label))
            labels[element.id] = label
        return labels

    def _ref(self, endpoint: Endpoint) -> str:
        element = self.elements.get(endpoint.element)
        if element is None:
            return MISSING
        label = self.labels.get(element.id) or self._base_label(element)
        if label.startswith(UNNAMED):
            return f"[{element.type}] {label}"
        return label

    # ---- elements ------------------------------------------------------------

    def _members(self, element: Element, member_type: str, listed: list[str]) -> list[str]:
        members = [
            child
            for child in self.children.get(element.id, [])
            if child.type == member_type and child.id in self.inline
        ]
        position = {member_id: i for i, member_id in enumerate(listed)}
        members.sort(key=lambda m: (position.get(m.id, len(position)), *_position_key(m)))
        return [_one_line(m.name) if m.name.strip() else UNNAMED for m in members]

    def _classifier_line(self, element: Element) -> str:
        line = f"[{element.type}] {self.labels[element.id]}"
        attributes = self._members(element, "ClassAttribute", element.attributes)
        methods = self._members(element, "ClassMethod", element.methods)
        parts = []
        if attributes:
            heading = "values" if element.type == "Enumeration" else "attributes"
            parts.append(f"{heading}: {'; '.join(attributes)}")
        if methods:
            parts.append(f"methods: {'; '.join(methods)}")
        return f"{line} {{{' | '.join(parts)}}}" if parts else line

    def _element_line(self, element: Element) -> str:
        if element.type in CLASSIFIERS:
            return self._classifier_line(element)
        line = f"[{element.type}] {self.labels[element.id]}"
        if element.type in CLASS_FAMILY:
            return line
        if element.type.startswith(("BPMN", "Activity")):
            pairs = []
            for key in BPMN_FIELDS:
                value = element.extra(key)
                if _is_empty(value):
                    continue
                if key in ALWAYS_SHOWN or str(value) not in DEFAULT_VALUES:
                    pairs.append((key, _scalar(value)))
            return line + _fields(pairs)
        return line + _fields(self._generic_pairs(element))

    @staticmethod
    def _generic_pairs(item: Element | Relationship) -> list[tuple[str, str]]:
        extra = item.model_extra or {}
        return [
            (key, _scalar(extra[key]))
            for key in sorted(extra)
            if key not in HIDDEN_FIELDS and not _is_empty(extra[key])
        ]

    def _element_lines(self) -> list[str]:
        lines: list[str] = []
        depth: dict[str, int] = {}
        for element in self.order:
            if element.id in self.inline:
                continue
            owner = element.owner
            level = depth[owner] + 1 if owner is not None and owner in depth else 0
            depth[element.id] = level
            lines.append(INDENT * level + self._element_line(element))
        return lines

    # ---- relationships -------------------------------------------------------

    def _relationship_key(self, rel: Relationship) -> tuple[Any, ...]:
        missing = len(self.index)
        return (
            self.index.get(rel.source.element, missing),
            self.index.get(rel.target.element, missing),
            rel.type,
            str(rel.extra("flowType") or ""),
            rel.name,
            rel.source.element,
            rel.target.element,
            rel.id,
        )

    def _end(self, endpoint: Endpoint) -> str:
        ref = self._ref(endpoint)
        notes = []
        if endpoint.multiplicity and endpoint.multiplicity.strip():
            notes.append(_one_line(endpoint.multiplicity.strip()))
        if endpoint.role and endpoint.role.strip():
            notes.append(f"role {_quote(endpoint.role.strip())}")
        return f"{ref} [{', '.join(notes)}]" if notes else ref

    def _relationship_line(self, rel: Relationship) -> str:
        source, target = self._end(rel.source), self._end(rel.target)
        name = f" {_quote(rel.name)}" if rel.name.strip() else ""
        if rel.type in CLASS_RELATIONS:
            arrow, description = CLASS_RELATIONS[rel.type]
            description = description.format(t=self._ref(rel.target))
            return f"{source} {arrow} {target} ({description}){name}"
        label: list[str] = []
        if rel.type == "BPMNFlow":
            flow_type = rel.extra("flowType")
            if not _is_empty(flow_type):
                label.append(str(flow_type))
        elif rel.type not in FLOW_TYPES:
            label.append(rel.type)
        if rel.name.strip():
            label.append(_quote(rel.name))
        arrow = f"--({', '.join(label)})-->" if label else "-->"
        extras = "" if rel.type in FLOW_TYPES else _fields(self._generic_pairs(rel))
        return f"{source} {arrow} {target}{extras}"

    def _relationship_lines(self) -> list[str]:
        counters: dict[str, int] = defaultdict(int)
        lines = []
        for rel in sorted(self.diagram.relationships.values(), key=self._relationship_key):
            prefix = "F" if rel.type in FLOW_TYPES else "R"
            counters[prefix] += 1
            lines.append(f"{prefix}{counters[prefix]}: {self._relationship_line(rel)}")
        return lines

    # ---- whole ---------------------------------------------------------------

    def render(self) -> str:
        lines = [f"Diagram type: {self.diagram.type}", "Elements:"]
        lines += self._element_lines() or ["(none)"]
        lines.append("Relationships:")
        lines += self._relationship_lines() or ["(none)"]
        return "\n".join(lines) + "\n"
