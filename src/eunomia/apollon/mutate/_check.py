"""Is a diagram well formed? Every mutant is checked against its source.

:func:`problems` lists what makes a diagram inconsistent: ids (a version-3 key that is not
its element's id, an id used twice), owners that do not exist or own each other, a class's
``attributes``/``methods`` lists and its members disagreeing, relationship ends that do not
exist, bounds that are not finite or not positive, ``interactive`` and ``assessments``
naming what is not there. :func:`mutant_problems` adds what a mutation must not introduce:
another version, elements overlapping their neighbours or sticking out of their container
where the source had no such overlap.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

from eunomia.apollon.mutate._doc import CLASSIFIERS, MEMBERS, DiagramError, Doc
from eunomia.apollon.mutate._layout import Box, overlaps

CONTAINERS = frozenset({"Package", "BPMNPool", "BPMNSwimlane", "BPMNGroup", "Activity",
                        "UseCaseSystem", *CLASSIFIERS})


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value)


def _raw_ids(data: dict[str, Any], section: str) -> list[str]:
    value = data.get(section)
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out.append(str(key))
            if isinstance(item, dict) and item.get("id") != key:
                out.append(f"!{key}")  # marked: key and id disagree
        return out
    if isinstance(value, list):
        return [str(item.get("id")) for item in value if isinstance(item, dict)]
    return []


def problems(data: Any) -> list[str]:
    """What is inconsistent in a diagram ([] when nothing)."""
    try:
        doc = Doc(data, copy=False)
    except DiagramError as exc:
        return [str(exc)]
    out: list[str] = []
    ids = _raw_ids(doc.data, "elements") + _raw_ids(doc.data, "relationships")
    out += [f"element key {i[1:]!r} is not its element's id" for i in ids if i.startswith("!")]
    seen: set[str] = set()
    for i in (i for i in ids if not i.startswith("!")):
        if not i:
            out.append("an element has an empty id")
        if i in seen:
            out.append(f"id {i!r} is used twice")
        seen.add(i)
    for eid, e in doc.elements.items():
        owner = e.get("owner")
        if owner is not None and owner not in doc.elements:
            out.append(f"{eid}: owner {owner!r} does not exist")
        if eid in set(doc.ancestors(eid)):
            out.append(f"{eid}: owns itself through its owners")
        b = e.get("bounds")
        if not isinstance(b, dict) or not all(_finite(b.get(k)) for k in ("x", "y", "width",
                                                                          "height")):
            out.append(f"{eid}: bounds are missing or not finite numbers")
        elif b["width"] <= 0 or b["height"] <= 0:
            out.append(f"{eid}: bounds have no area")
        if e.get("type") in CLASSIFIERS:
            for key, member_type in (("attributes", "ClassAttribute"),
                                     ("methods", "ClassMethod")):
                listed = e.get(key) or []
                if len(set(listed)) != len(listed):
                    out.append(f"{eid}: {key} lists an id twice")
                for m in listed:
                    member = doc.get(m)
                    if member is None:
                        out.append(f"{eid}: {key} lists {m!r}, which does not exist")
                    elif member.get("type") != member_type or member.get("owner") != eid:
                        out.append(f"{eid}: {key} lists {m!r}, which is not its {member_type}")
        if e.get("type") in MEMBERS:
            cls = doc.get(e.get("owner"))
            key = "attributes" if e.get("type") == "ClassAttribute" else "methods"
            if cls is None or eid not in (cls.get(key) or []):
                out.append(f"{eid}: a {e.get('type')} not listed in its class's {key}")
    for rid, rel in doc.relationships.items():
        for side in ("source", "target"):
            end = rel.get(side)
            element = end.get("element") if isinstance(end, dict) else None
            if element not in doc.elements:
                out.append(f"relationship {rid}: {side} {element!r} does not exist")
    live = set(doc.elements) | set(doc.relationships)
    interactive = doc.data.get("interactive")
    if isinstance(interactive, dict):
        for section, flags in interactive.items():
            named = flags.keys() if isinstance(flags, dict) else flags \
                if isinstance(flags, list) else []
            out += [f"interactive.{section} names {k!r}, which does not exist"
                    for k in named if k not in live]
    assessments = doc.data.get("assessments")
    if isinstance(assessments, dict):
        out += [f"assessments name {k!r}, which does not exist" for k in assessments
                if k not in live]
    return out


def _boxes(doc: Doc) -> dict[str, Box]:
    return {i: doc.bounds(i) for i in doc.elements}


def layout_faults(doc: Doc) -> set[tuple[str, ...]]:
    """Pairs of siblings whose boxes overlap, by their (type, name) (ids differ between a
    source and its mutant), and elements sticking out of their container."""
    boxes = _boxes(doc)
    faults: set[tuple[str, ...]] = set()
    by_owner: dict[str | None, list[str]] = {}
    for i, e in doc.elements.items():
        if e.get("type") not in MEMBERS:
            by_owner.setdefault(e.get("owner"), []).append(i)

    def key(i: str) -> str:
        e = doc.elements[i]
        return f"{e.get('type')}:{e.get('name') or ''}:{i if not e.get('name') else ''}"

    for siblings in by_owner.values():
        for a, b in combinations(siblings, 2):
            if overlaps(boxes[a], boxes[b]):
                faults.add(("overlap", *sorted((key(a), key(b)))))
    for i, e in doc.elements.items():
        owner = doc.get(e.get("owner"))
        if owner is None or owner.get("type") not in CONTAINERS:
            continue
        x, y, w, h = boxes[i]
        ox, oy, ow, oh = boxes[str(owner["id"])]
        if x < ox - 0.5 or y < oy - 0.5 or x + w > ox + ow + 0.5 or y + h > oy + oh + 0.5:
            faults.add(("outside", key(i)))
    return faults


def mutant_problems(source: Any, mutant: Any) -> list[str]:
    """:func:`problems` of the mutant, and what its layout has that the source's has not."""
    out = problems(mutant)
    if out:
        return out
    before, after = Doc(source, copy=False), Doc(mutant, copy=False)
    if before.v2 != after.v2:
        out.append(f"the mutant is Apollon version {'2' if after.v2 else '3'}, its source "
                   f"version {'2' if before.v2 else '3'}")
    if str(before.data.get("version")) != str(after.data.get("version")):
        out.append("the mutant's version field differs from its source's")
    old = layout_faults(before)
    for fault in sorted(layout_faults(after) - old):
        if fault[0] == "overlap":
            out.append(f"{fault[1]} overlaps {fault[2]}")
        else:
            out.append(f"{fault[1]} sticks out of its container")
    return out
