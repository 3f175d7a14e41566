"""What a mutation rule says (:class:`OpSpec`) and which elements its selectors pick.

Selectors name elements as a person reads the diagram, never by id: ``element`` (its name;
an attribute or method also by its bare name, ``title`` for ``+ title: String``), ``type``
(an Apollon type such as ``BPMNGateway`` or a family: ``class``, ``attribute``, ``task``,
``event``, ``gateway``, ``flow``, ...), ``in`` (the name of a class, pool or lane it is in)
and, for relationships, ``between: [A, B]`` (its two ends, either way round).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from eunomia.apollon.mutate._doc import CLASSIFIERS, Doc, JsonDict

CLASS_RELATIONSHIPS = frozenset({
    "ClassBidirectional", "ClassUnidirectional", "ClassAggregation", "ClassComposition",
    "ClassInheritance", "ClassRealization", "ClassDependency"})
TASKS = frozenset({"BPMNTask", "BPMNSubprocess", "BPMNTransaction", "BPMNCallActivity",
                   "ActivityActionNode", "ActivityObjectNode"})
EVENTS = frozenset({"BPMNStartEvent", "BPMNIntermediateEvent", "BPMNEndEvent",
                    "ActivityInitialNode", "ActivityFinalNode"})
GATEWAYS = frozenset({"BPMNGateway", "ActivityDecisionNode", "ActivityMergeNode",
                      "ActivityForkNode", "ActivityForkNodeHorizontal"})
FLOWS = frozenset({"BPMNFlow", "ActivityControlFlow"})
FLOW_NODES = TASKS | EVENTS | GATEWAYS

FAMILIES: dict[str, frozenset[str]] = {
    "class": CLASSIFIERS,
    "attribute": frozenset({"ClassAttribute"}),
    "method": frozenset({"ClassMethod"}),
    "package": frozenset({"Package"}),
    "relationship": CLASS_RELATIONSHIPS,
    "task": TASKS,
    "event": EVENTS,
    "start_event": frozenset({"BPMNStartEvent", "ActivityInitialNode"}),
    "intermediate_event": frozenset({"BPMNIntermediateEvent"}),
    "end_event": frozenset({"BPMNEndEvent", "ActivityFinalNode"}),
    "gateway": GATEWAYS,
    "flow": FLOWS,
    "sequence_flow": FLOWS,
    "message_flow": frozenset({"BPMNFlow"}),
    "pool": frozenset({"BPMNPool"}),
    "lane": frozenset({"BPMNSwimlane"}),
}
"""Names of families of element types a rule's ``type`` may use."""

_FLOW_TYPE_OF_FAMILY = {"sequence_flow": "sequence", "message_flow": "message"}


def _as_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list):
        return [str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
                for v in value]
    return value


class OpSpec(BaseModel):
    """One declared mutation: an operator and where and how it applies."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    op: str
    """The operator (``eunomia.apollon.mutate.OPERATORS``)."""
    element: str | None = None
    """The name of the element the operator changes."""
    type: str | None = None
    """An Apollon element type or a family name (:data:`FAMILIES`)."""
    within: str | None = Field(default=None, alias="in")
    """The name of a class, pool or lane the element is in."""
    between: list[str] | None = None
    """A relationship's two ends by name, either way round."""
    end: str | None = None
    """``change_multiplicity``: the name of the element at the end to change."""
    to: list[str] = Field(default_factory=list)
    """What the element becomes: a relationship kind, a multiplicity, a name, a class..."""
    convention: str | None = None
    """``rename``: a naming convention to break (see ``CONVENTIONS``)."""
    reconnect: bool = True
    """``delete_task``/``delete_event``/``delete_gateway``: join the flow around the hole."""
    after: str | None = None
    """``add_task``: insert the new task into the flow after this element."""
    attributes: list[str] = Field(default_factory=list)
    """``add_class``: the new class's attributes."""
    connect: str | None = None
    """``add_class``: associate the new class with the class of this name."""

    _v_lists = field_validator("to", "attributes", mode="before")(_as_list)

    @field_validator("between", mode="before")
    @classmethod
    def _two(cls, value: Any) -> Any:
        if value is not None and (not isinstance(value, list) or len(value) != 2):
            raise ValueError("between names two elements: [A, B]")
        return _as_list(value)

    @field_validator("element", "type", "within", "end", "after", "connect", "convention",
                     mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) and not isinstance(value, bool) \
            else value


_VISIBILITY = re.compile(r"^\s*[+\-#~]?\s*/?\s*")


def bare_name(text: str) -> str:
    """``+ title: String`` -> ``title``; ``+ start(): void`` -> ``start``."""
    return re.split(r"[:(]", _VISIBILITY.sub("", text), maxsplit=1)[0].strip()


def name_matches(element: JsonDict, name: str) -> bool:
    own = str(element.get("name") or "")
    if own == name:
        return True
    return element.get("type") in ("ClassAttribute", "ClassMethod") and bare_name(own) == name


def types_of(spec_type: str | None, default: Iterable[str]) -> frozenset[str]:
    """The Apollon types a rule's ``type`` stands for, within the operator's ``default``."""
    allowed = frozenset(default)
    if spec_type is None:
        return allowed
    wanted = FAMILIES.get(spec_type, frozenset({spec_type}))
    return wanted & allowed if allowed else wanted


def _inside(doc: Doc, element_id: str, name: str) -> bool:
    return any(name_matches(doc.elements[a], name) for a in doc.ancestors(element_id)
               if a in doc.elements)


def select_elements(doc: Doc, spec: OpSpec, default: Iterable[str]) -> list[str]:
    """The ids of the elements a rule picks, in document order."""
    types = types_of(spec.type, default)
    return [i for i, e in doc.elements.items()
            if e.get("type") in types
            and (spec.element is None or name_matches(e, spec.element))
            and (spec.within is None or _inside(doc, i, spec.within))]


def flow_type(rel: JsonDict) -> str:
    return str(rel.get("flowType") or "sequence") if rel.get("type") == "BPMNFlow" \
        else "sequence"


def select_relationships(doc: Doc, spec: OpSpec, default: Iterable[str]) -> list[str]:
    """The ids of the relationships a rule picks (``between``, ``type``, ``element``: its
    name), in document order."""
    types = types_of(spec.type, default)
    wanted_flow = _FLOW_TYPE_OF_FAMILY.get(spec.type or "")
    out = []
    for rel_id, rel in doc.relationships.items():
        if rel.get("type") not in types:
            continue
        if wanted_flow is not None and flow_type(rel) != wanted_flow:
            continue
        if spec.element is not None and str(rel.get("name") or "") != spec.element:
            continue
        if spec.between is not None:
            source, target = doc.ends(rel_id)
            a, b = spec.between
            ends = [doc.get(source), doc.get(target)]
            if any(e is None for e in ends):
                continue
            s, t = ends
            assert s is not None and t is not None
            if not ((name_matches(s, a) and name_matches(t, b))
                    or (name_matches(s, b) and name_matches(t, a))):
                continue
        if spec.within is not None:
            source, target = doc.ends(rel_id)
            if not any(e is not None and e in doc.elements and _inside(doc, e, spec.within)
                       for e in (source, target)):
                continue
        out.append(rel_id)
    return out


def named(doc: Doc, name: str, types: Iterable[str]) -> list[str]:
    """Elements of these types with this name."""
    wanted = frozenset(types)
    return [i for i, e in doc.elements.items() if e.get("type") in wanted
            and name_matches(e, name)]
