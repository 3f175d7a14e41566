"""Operators for any diagram type: delete an element, rename it (against a naming
convention or to given names), remove its label."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from eunomia.apollon.mutate._base import Choice, Operator, SpecError
from eunomia.apollon.mutate._class_ops import fix_ends
from eunomia.apollon.mutate._doc import MEMBERS, Doc
from eunomia.apollon.mutate._layout import relayout_members
from eunomia.apollon.mutate._select import (
    FAMILIES,
    OpSpec,
    bare_name,
    select_elements,
    select_relationships,
)

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[A-Z]")


def _words(name: str) -> list[str]:
    return _WORDS.findall(name)


CONVENTIONS: dict[str, Callable[[str], str]] = {
    "lower_camel": lambda s: (lambda w: (w[0].lower() + "".join(x.capitalize() for x in w[1:]))
                              if w else s)(_words(s)),
    "upper_camel": lambda s: "".join(w.capitalize() for w in _words(s)) or s,
    "snake_case": lambda s: "_".join(w.lower() for w in _words(s)) or s,
    "upper_case": lambda s: "_".join(w.upper() for w in _words(s)) or s,
    "lower_case": lambda s: "".join(w.lower() for w in _words(s)) or s,
    "spaced": lambda s: " ".join(_words(s)) or s,
}
"""How ``rename`` rewrites a name to break a naming convention: ``TeamMember`` becomes
``teamMember`` (lower_camel), ``team_member`` (snake_case), ``TEAM_MEMBER`` (upper_case),
``teammember`` (lower_case), ``Team Member`` (spaced); ``deadline`` becomes ``Deadline``
(upper_camel)."""

_ALL_TYPES: frozenset[str] = frozenset()


def _every_type(doc: Doc) -> set[str]:
    return {str(e.get("type")) for e in doc.elements.values()}


def _delete(doc: Doc, spec: OpSpec) -> list[Choice]:
    out = []
    for eid in select_elements(doc, spec, _every_type(doc)):
        below = {i for i in doc.elements if eid in set(doc.ancestors(i))}
        rels = {r for e in (eid, *below) for r in doc.relationships_of(e)}
        owner = doc.owner(eid)
        member = doc.elements[eid].get("type") in MEMBERS

        def apply(d: Doc, rng: random.Random, eid: str = eid, owner: str | None = owner,
                  member: bool = member) -> None:
            d.remove_element(eid)
            if member and owner is not None and owner in d.elements:
                relayout_members(d, owner)
                fix_ends(d, owner)

        out.append(Choice("delete", f"delete:{eid}",
                          f"delete {doc.elements[eid].get('type')} {doc.label(eid)}",
                          frozenset({eid, *below, *rels}), apply))
    return out


def _split(name: str, member: bool) -> tuple[str, str, str]:
    """(prefix, the name itself, suffix): ``+ title: String`` -> ``+ ``, ``title``,
    ``: String`` for a class member; the whole text otherwise."""
    if not member:
        return "", name, ""
    core = bare_name(name)
    at = name.find(core) if core else -1
    if at < 0:
        return "", name, ""
    return name[:at], core, name[at + len(core):]


def _rename(doc: Doc, spec: OpSpec) -> list[Choice]:
    if spec.convention is not None and spec.convention not in CONVENTIONS:
        raise SpecError(f"unknown naming convention {spec.convention!r}; use one of "
                        f"{', '.join(CONVENTIONS)}")
    if spec.convention is None and not spec.to:
        raise SpecError("rename needs the new names (to) or a convention to break")
    out = []
    for eid in select_elements(doc, spec, _every_type(doc)):
        element = doc.elements[eid]
        current = str(element.get("name") or "")
        if not current:
            continue
        prefix, core, suffix = _split(current, element.get("type") in MEMBERS)
        if spec.convention is not None:
            names = [prefix + CONVENTIONS[spec.convention](core) + suffix]
        else:
            names = [prefix + n + suffix if prefix or suffix else n for n in spec.to]
        for new in dict.fromkeys(names):
            if not new.strip() or new == current:
                continue

            def apply(d: Doc, rng: random.Random, eid: str = eid, new: str = new) -> None:
                d.elements[eid]["name"] = new

            out.append(Choice("rename", f"rename:{eid}:{new}",
                              f"rename {element.get('type')} {current!r} to {new!r}",
                              frozenset({eid}), apply))
    return out


_RELATIONSHIP_FAMILIES = frozenset({"flow", "sequence_flow", "message_flow", "relationship"})


def _remove_label(doc: Doc, spec: OpSpec) -> list[Choice]:
    out = []
    rel_types = {str(r.get("type")) for r in doc.relationships.values()}
    on_relationships = spec.between is not None or spec.type in _RELATIONSHIP_FAMILIES \
        or spec.type in rel_types
    if on_relationships:
        family = FAMILIES.get(spec.type or "", frozenset(rel_types))
        for rid in select_relationships(doc, spec, family or rel_types):
            if not str(doc.relationships[rid].get("name") or "").strip():
                continue

            def unlabel(d: Doc, rng: random.Random, rid: str = rid) -> None:
                d.relationships[rid]["name"] = ""

            source, target = doc.ends(rid)
            out.append(Choice("remove_label", f"remove_label:{rid}",
                              f"remove the label {doc.relationships[rid].get('name')!r} of "
                              f"{doc.label(source)} -> {doc.label(target)}", frozenset({rid}),
                              unlabel))
        return out
    for eid in select_elements(doc, spec, _every_type(doc) - MEMBERS):
        name = str(doc.elements[eid].get("name") or "")
        if not name.strip():
            continue

        def apply(d: Doc, rng: random.Random, eid: str = eid) -> None:
            d.elements[eid]["name"] = ""

        out.append(Choice("remove_label", f"remove_label:{eid}",
                          f"remove the label {name!r} of a {doc.elements[eid].get('type')}",
                          frozenset({eid}), apply))
    return out


GENERIC_OPERATORS: tuple[Operator, ...] = (
    Operator("delete", "delete any element with what it contains and its relationships "
             "(no reconnection)", _ALL_TYPES, _delete),
    Operator("rename", "rename an element: to: new names, or convention: lower_camel, "
             "upper_camel, snake_case, upper_case, lower_case, spaced", _ALL_TYPES, _rename),
    Operator("remove_label", "remove an element's or a flow's label (name)", _ALL_TYPES,
             _remove_label),
)
