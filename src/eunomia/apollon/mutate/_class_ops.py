"""Operators on UML class diagrams: delete, retype, reverse, re-multiply, add and move.

Apollon draws a composition's or aggregation's diamond (and an inheritance's triangle) at
the relationship's target end, so "Project <>-- Task" is stored as source Task, target
Project; reversing a relationship swaps its ends, each keeping its multiplicity and role.
"""

from __future__ import annotations

import math
import random

from eunomia.apollon.mutate._base import Choice, Operator, SpecError
from eunomia.apollon.mutate._doc import CLASSIFIERS, MEMBERS, Doc, JsonDict
from eunomia.apollon.mutate._layout import (
    fits,
    free_spot,
    member_row,
    overlaps,
    place,
    relayout_members,
    reverse_path,
    route,
)
from eunomia.apollon.mutate._select import (
    CLASS_RELATIONSHIPS,
    OpSpec,
    bare_name,
    named,
    select_elements,
    select_relationships,
)

RELATION_KINDS: dict[str, str] = {
    "association": "ClassBidirectional",
    "bidirectional": "ClassBidirectional",
    "unidirectional": "ClassUnidirectional",
    "directed_association": "ClassUnidirectional",
    "aggregation": "ClassAggregation",
    "composition": "ClassComposition",
    "inheritance": "ClassInheritance",
    "realization": "ClassRealization",
    "dependency": "ClassDependency",
}
"""The kinds ``retype_relationship`` takes in ``to`` (or an Apollon type itself)."""
WITHOUT_MULTIPLICITY = frozenset({"ClassInheritance", "ClassRealization"})
"""Relationships whose ends carry no multiplicity or role in UML: retyping to them clears
both ends' multiplicity and role."""
MULTIPLICITIES = ("1", "0..1", "0..*", "1..*")
"""What ``change_multiplicity`` tries when the rule gives no ``to``."""


def relation_type(kind: str) -> str:
    found = RELATION_KINDS.get(kind, kind)
    if found not in CLASS_RELATIONSHIPS:
        raise SpecError(f"unknown relationship kind {kind!r}; use one of "
                        f"{', '.join(RELATION_KINDS)} (or an Apollon type)")
    return found


def _ends_text(doc: Doc, rel_id: str) -> str:
    source, target = doc.ends(rel_id)
    return f"{doc.label(source)} -> {doc.label(target)}"


def fix_ends(doc: Doc, element_id: str) -> None:
    """Draw again the relationships of an element whose box changed, when their end no
    longer lies on its border."""
    x, y, w, h = doc.bounds(element_id)
    for rel_id in doc.relationships_of(element_id):
        rel = doc.relationships[rel_id]
        path = rel.get("path")
        b = rel.get("bounds") or {}
        if not isinstance(path, list) or len(path) < 2 or not isinstance(b, dict):
            route(doc, rel_id)
            continue
        source, _ = doc.ends(rel_id)
        point = path[0] if source == element_id else path[-1]
        try:
            px = float(point["x"]) + float(b.get("x", 0))
            py = float(point["y"]) + float(b.get("y", 0))
        except (KeyError, TypeError, ValueError):
            route(doc, rel_id)
            continue
        on_x = (math.isclose(px, x, abs_tol=2) or math.isclose(px, x + w, abs_tol=2)) \
            and y - 2 <= py <= y + h + 2
        on_y = (math.isclose(py, y, abs_tol=2) or math.isclose(py, y + h, abs_tol=2)) \
            and x - 2 <= px <= x + w + 2
        if not (on_x or on_y):
            route(doc, rel_id)


def _members(doc: Doc, class_id: str) -> set[str]:
    return {i for i in doc.children(class_id) if doc.elements[i].get("type") in MEMBERS}


def _delete_class(doc: Doc, spec: OpSpec) -> list[Choice]:
    out = []
    for cid in select_elements(doc, spec, CLASSIFIERS):
        members = _members(doc, cid)
        rels = {r for e in (cid, *members) for r in doc.relationships_of(e)}

        def apply(d: Doc, rng: random.Random, cid: str = cid) -> None:
            d.remove_element(cid)

        out.append(Choice("delete_class", f"delete_class:{cid}",
                          f"delete class {doc.label(cid)} with its members and relationships",
                          frozenset({cid, *members, *rels}), apply))
    return out


def _delete_member(kind: str, member_type: str) -> Operator:
    def candidates(doc: Doc, spec: OpSpec) -> list[Choice]:
        out = []
        for mid in select_elements(doc, spec, {member_type}):
            owner = doc.owner(mid)

            def apply(d: Doc, rng: random.Random, mid: str = mid,
                      owner: str | None = owner) -> None:
                d.remove_element(mid)
                if owner is not None:
                    relayout_members(d, owner)
                    fix_ends(d, owner)

            out.append(Choice(f"delete_{kind}", f"delete_{kind}:{mid}",
                              f"delete {kind} {doc.label(mid)} of {doc.label(owner)}",
                              frozenset({mid}), apply))
        return out

    return Operator(f"delete_{kind}", f"delete a class's {kind} (the class shrinks)",
                    frozenset({"ClassDiagram"}), candidates)


def _delete_relationship(doc: Doc, spec: OpSpec) -> list[Choice]:
    out = []
    for rid in select_relationships(doc, spec, CLASS_RELATIONSHIPS):
        def apply(d: Doc, rng: random.Random, rid: str = rid) -> None:
            d.remove_relationship(rid)

        rel_type = doc.relationships[rid].get("type")
        out.append(Choice("delete_relationship", f"delete_relationship:{rid}",
                          f"delete {rel_type} {_ends_text(doc, rid)}", frozenset({rid}),
                          apply))
    return out


def _retype_relationship(doc: Doc, spec: OpSpec) -> list[Choice]:
    wanted = [relation_type(kind) for kind in spec.to]
    out = []
    for rid in select_relationships(doc, spec, CLASS_RELATIONSHIPS):
        current = doc.relationships[rid].get("type")
        for new_type in dict.fromkeys(wanted):
            if new_type == current:
                continue

            def apply(d: Doc, rng: random.Random, rid: str = rid, new_type: str = new_type
                      ) -> None:
                rel = d.relationships[rid]
                rel["type"] = new_type
                if new_type in WITHOUT_MULTIPLICITY:
                    for side in ("source", "target"):
                        end = rel.get(side)
                        if isinstance(end, dict):
                            end["multiplicity"] = ""
                            end["role"] = ""

            out.append(Choice("retype_relationship", f"retype_relationship:{rid}:{new_type}",
                              f"retype {_ends_text(doc, rid)} from {current} to {new_type}",
                              frozenset({rid}), apply))
    return out


def _reverse_relationship(doc: Doc, spec: OpSpec) -> list[Choice]:
    directed = CLASS_RELATIONSHIPS - {"ClassBidirectional"}
    out = []
    for rid in select_relationships(doc, spec, directed):
        def apply(d: Doc, rng: random.Random, rid: str = rid) -> None:
            reverse_path(d.relationships[rid])

        out.append(Choice("reverse_relationship", f"reverse_relationship:{rid}",
                          f"reverse {doc.relationships[rid].get('type')} "
                          f"{_ends_text(doc, rid)}", frozenset({rid}), apply))
    return out


def _change_multiplicity(doc: Doc, spec: OpSpec) -> list[Choice]:
    values = spec.to or list(MULTIPLICITIES)
    out = []
    for rid in select_relationships(doc, spec, CLASS_RELATIONSHIPS):
        rel = doc.relationships[rid]
        if rel.get("type") in WITHOUT_MULTIPLICITY:
            continue
        for side in ("source", "target"):
            end = rel.get(side)
            if not isinstance(end, dict):
                continue
            element = doc.get(end.get("element"))
            if element is None:
                continue
            if spec.end is not None and spec.end not in (element.get("name"),
                                                         bare_name(str(element.get("name")))):
                continue
            current = str(end.get("multiplicity") or "")
            for value in dict.fromkeys(values):
                if value.replace(" ", "") == current.replace(" ", ""):
                    continue

                def apply(d: Doc, rng: random.Random, rid: str = rid, side: str = side,
                          value: str = value) -> None:
                    d.relationships[rid][side]["multiplicity"] = value

                out.append(Choice(
                    "change_multiplicity", f"change_multiplicity:{rid}:{side}:{value}",
                    f"change the multiplicity at {doc.label(end.get('element'))} of "
                    f"{_ends_text(doc, rid)} from {current or '(none)'} to {value or '(none)'}",
                    frozenset({rid}), apply))
    return out


def _class_size(doc: Doc, rows: int) -> tuple[float, float, float]:
    """(width, header, row) of a new class, measured from the diagram's first class."""
    classes = doc.of_types(CLASSIFIERS)
    width, header, row = 220.0, 40.0, 30.0
    for cid in classes:
        _, y, w, _ = doc.bounds(cid)
        width = w if w > 0 else width
        members = [m for key in ("attributes", "methods")
                   for m in doc.elements[cid].get(key) or [] if doc.get(m) is not None]
        if members:
            header = doc.bounds(members[0])[1] - y or header
            row = doc.bounds(members[0])[3] or row
            break
    return width, header, row


def _add_class(doc: Doc, spec: OpSpec) -> list[Choice]:
    connect_to = named(doc, spec.connect, CLASSIFIERS) if spec.connect else []
    if spec.connect and not connect_to:
        raise SpecError(f"connect: no class named {spec.connect!r}")
    out = []
    for name in spec.to:
        if named(doc, name, CLASSIFIERS):
            continue  # a class of that name is there already: nothing extra

        def apply(d: Doc, rng: random.Random, name: str = name) -> None:
            width, header, row = _class_size(d, len(spec.attributes))
            box = free_spot(d, None, width, header + row * len(spec.attributes))
            assert box is not None  # top level always has room below
            cid = d.new_id(rng)
            cls: JsonDict = {"id": cid, "name": name, "type": "Class", "owner": None,
                             "bounds": {}, "attributes": [], "methods": []}
            place(cls, box)
            d.add_element(cls)
            for text in spec.attributes:
                aid = d.new_id(rng)
                d.add_element({"id": aid, "name": text, "type": "ClassAttribute",
                               "owner": cid, "bounds": {}})
                cls["attributes"].append(aid)
            relayout_members(d, cid)
            if connect_to and connect_to[0] in d.elements:
                rid = d.new_id(rng)
                d.add_relationship({
                    "id": rid, "name": "", "type": "ClassBidirectional", "owner": None,
                    "bounds": {}, "path": [],
                    "source": {"direction": "Up", "element": cid, "multiplicity": "",
                               "role": ""},
                    "target": {"direction": "Down", "element": connect_to[0],
                               "multiplicity": "", "role": ""},
                    "isManuallyLayouted": False})
                route(d, rid)

        joined = f", associated with {spec.connect}" if connect_to else ""
        touched = {f"new:class:{name}", *connect_to}
        out.append(Choice("add_class", f"add_class:{name}",
                          f"add a class {name}{joined}", frozenset(touched), apply))
    return out


def _grows_into(doc: Doc, class_id: str, rows: int) -> bool:
    """Whether ``rows`` more member rows would push the class into a neighbour."""
    x, y, w, h = doc.bounds(class_id)
    grown = (x, y, w, h + rows * member_row(doc, class_id))
    owner = doc.owner(class_id)
    return any(overlaps(grown, doc.bounds(o)) for o in doc.children(owner)
               if o != class_id and doc.elements[o].get("type") not in MEMBERS) \
        or not fits(doc, owner, grown, {class_id})


def _add_attribute(doc: Doc, spec: OpSpec) -> list[Choice]:
    classes = select_elements(doc, OpSpec(op=spec.op, element=spec.within, type=spec.type),
                              CLASSIFIERS)
    out = []
    for cid in classes:
        have = {bare_name(doc.name(m)) for m in _members(doc, cid)}
        if _grows_into(doc, cid, 1):
            continue
        for text in spec.to:
            if bare_name(text) in have:
                continue

            def apply(d: Doc, rng: random.Random, cid: str = cid, text: str = text) -> None:
                aid = d.new_id(rng)
                d.add_element({"id": aid, "name": text, "type": "ClassAttribute",
                               "owner": cid, "bounds": {}})
                d.elements[cid].setdefault("attributes", []).append(aid)
                relayout_members(d, cid)
                fix_ends(d, cid)

            out.append(Choice("add_attribute", f"add_attribute:{cid}:{text}",
                              f"add attribute {text} to {doc.label(cid)}",
                              frozenset({cid}), apply))
    return out


def _move_attribute(doc: Doc, spec: OpSpec) -> list[Choice]:
    out = []
    for aid in select_elements(doc, spec, {"ClassAttribute"}):
        source = doc.owner(aid)
        if source is None:
            continue
        if spec.to:
            targets = [c for name in spec.to for c in named(doc, name, CLASSIFIERS)]
        else:
            targets = doc.of_types(CLASSIFIERS)
        for cid in dict.fromkeys(targets):
            if cid == source or _grows_into(doc, cid, 1):
                continue

            def apply(d: Doc, rng: random.Random, aid: str = aid, source: str = source,
                      cid: str = cid) -> None:
                old = d.elements[source]
                old["attributes"] = [m for m in old.get("attributes") or [] if m != aid]
                d.elements[aid]["owner"] = cid
                d.elements[cid].setdefault("attributes", []).append(aid)
                for changed in (source, cid):
                    relayout_members(d, changed)
                    fix_ends(d, changed)

            out.append(Choice("move_attribute", f"move_attribute:{aid}:{cid}",
                              f"move attribute {doc.label(aid)} from {doc.label(source)} to "
                              f"{doc.label(cid)}", frozenset({aid, cid}), apply))
    return out


CLASS = frozenset({"ClassDiagram"})
CLASS_OPERATORS: tuple[Operator, ...] = (
    Operator("delete_class", "delete a class with its attributes, methods and relationships",
             CLASS, _delete_class),
    _delete_member("attribute", "ClassAttribute"),
    _delete_member("method", "ClassMethod"),
    Operator("delete_relationship", "delete a relationship between two classes", CLASS,
             _delete_relationship),
    Operator("retype_relationship", "make a relationship another kind (to: association, "
             "unidirectional, aggregation, composition, inheritance, realization, dependency)",
             CLASS, _retype_relationship, needs_to=True),
    Operator("reverse_relationship", "swap a directed relationship's ends (the diamond or "
             "arrowhead goes to the other class)", CLASS, _reverse_relationship),
    Operator("change_multiplicity", "change the multiplicity at one end (end: the class at "
             "that end; to: the new values)", CLASS, _change_multiplicity),
    Operator("add_class", "add a class that was not asked for (to: its names; attributes; "
             "connect: a class to associate it with)", CLASS, _add_class, needs_to=True),
    Operator("add_attribute", "add an attribute that was not asked for (in: the class; to: "
             "the attribute texts)", CLASS, _add_attribute, needs_to=True),
    Operator("move_attribute", "move an attribute to another class (to: the classes)", CLASS,
             _move_attribute),
)
