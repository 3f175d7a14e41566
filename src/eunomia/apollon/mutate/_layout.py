"""Where a mutant's new or changed things go: class compartments re-stacked, a free spot
for a new element, and a relationship's path drawn again between its ends.

Element bounds in Apollon JSON are absolute; a relationship's ``path`` is relative to its
``bounds`` (``apollon/_svg_edges.py``).
"""

from __future__ import annotations

from eunomia.apollon.mutate._doc import Doc, JsonDict

HEADER = 40.0
"""Height of a class's name compartment when the class has no member to measure it by."""
ROW = 30.0
"""Height of one attribute or method row when none is there to measure."""
GAP = 40.0
"""Space kept between a new element and its neighbours."""

Box = tuple[float, float, float, float]


def overlaps(a: Box, b: Box) -> bool:
    """Whether two boxes share some area (touching edges do not count)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def relayout_members(doc: Doc, class_id: str) -> None:
    """Stack a class's attributes, then its methods, under its name; the class's height
    follows (its header and row heights measured from the class as it was)."""
    cls = doc.get(class_id)
    if cls is None:
        return
    x, y, width, _ = doc.bounds(class_id)
    members = [m for key in ("attributes", "methods") for m in cls.get(key) or []
               if doc.get(m) is not None]
    header, row = _measure(doc, class_id)
    top = y + header
    for m in members:
        element = doc.elements[m]
        element["bounds"] = {**(element.get("bounds") or {}), "x": x, "y": top,
                             "width": width, "height": row}
        top += row
    cls["bounds"] = {**(cls.get("bounds") or {}), "height": max(header, top - y)}


def _measure(doc: Doc, class_id: str) -> tuple[float, float]:
    """(header height, row height) as the class draws them now."""
    cls = doc.elements[class_id]
    _, y, _, height = doc.bounds(class_id)
    rows = [m for key in ("attributes", "methods") for m in cls.get(key) or []
            if doc.get(m) is not None]
    if not rows:
        return min(HEADER, height) if height > 0 else HEADER, ROW
    first = doc.bounds(rows[0])
    header = first[1] - y if first[1] > y else HEADER
    row = first[3] if first[3] > 0 else ROW
    return header, row


def member_row(doc: Doc, class_id: str) -> float:
    return _measure(doc, class_id)[1]


def sibling_boxes(doc: Doc, owner: str | None, skip: set[str] | None = None) -> list[Box]:
    """The boxes of the elements directly inside ``owner`` (top level: None)."""
    return [doc.bounds(i) for i in doc.children(owner) if i not in (skip or set())
            and doc.elements[i].get("type") not in ("ClassAttribute", "ClassMethod")]


def fits(doc: Doc, owner: str | None, box: Box, skip: set[str] | None = None) -> bool:
    """``box`` overlaps none of ``owner``'s other children and lies inside ``owner``."""
    if any(overlaps(box, other) for other in sibling_boxes(doc, owner, skip)):
        return False
    if owner is None:
        return box[0] >= 0 and box[1] >= 0
    ox, oy, ow, oh = doc.bounds(owner)
    x, y, w, h = box
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


def free_spot(doc: Doc, owner: str | None, width: float, height: float,
              near: tuple[float, float] | None = None) -> Box | None:
    """A place for a new ``width`` x ``height`` element among ``owner``'s children, with
    :data:`GAP` around it: top level, the first free slot below the diagram (left first);
    inside a container, the free slot whose centre is nearest ``near`` (default: the first
    scanning its rows). None when it is full."""
    if owner is None:
        boxes = sibling_boxes(doc, None)
        left = min((b[0] for b in boxes), default=GAP)
        bottom = max((b[1] + b[3] for b in boxes), default=0.0)
        return (left, bottom + GAP * 2, width, height)
    ox, oy, ow, oh = doc.bounds(owner)
    pad = GAP / 2
    step = 10.0
    others = sibling_boxes(doc, owner)
    best: tuple[float, Box] | None = None
    y = oy + pad
    while y + height + pad <= oy + oh:
        x = ox + GAP
        while x + width + pad <= ox + ow:
            halo = (x - pad, y - pad, width + 2 * pad, height + 2 * pad)
            if not any(overlaps(halo, other) for other in others):
                if near is None:
                    return (x, y, width, height)
                far = (x + width / 2 - near[0]) ** 2 + (y + height / 2 - near[1]) ** 2
                if best is None or far < best[0]:
                    best = (far, (x, y, width, height))
            x += step
        y += step
    return None if best is None else best[1]


def place(element: JsonDict, box: Box) -> None:
    x, y, w, h = box
    element["bounds"] = {"x": x, "y": y, "width": w, "height": h}


def _side_points(box: Box, other: Box) -> tuple[tuple[float, float], str, tuple[float, float],
                                               str]:
    """Where a line from ``box`` to ``other`` leaves and enters, with Apollon's directions:
    through the sides facing each other along the axis on which the boxes are further
    apart."""
    x, y, w, h = box
    ox, oy, ow, oh = other
    dx = (ox + ow / 2) - (x + w / 2)
    dy = (oy + oh / 2) - (y + h / 2)
    gap_x = max(ox - (x + w), x - (ox + ow))
    gap_y = max(oy - (y + h), y - (oy + oh))
    if gap_x > 0 and (gap_x >= gap_y or abs(dx) >= abs(dy)):
        if dx > 0:
            return (x + w, y + h / 2), "Right", (ox, oy + oh / 2), "Left"
        return (x, y + h / 2), "Left", (ox + ow, oy + oh / 2), "Right"
    if dy > 0:
        return (x + w / 2, y + h), "Down", (ox + ow / 2, oy), "Up"
    return (x + w / 2, y), "Up", (ox + ow / 2, oy + oh), "Down"


def route(doc: Doc, rel_id: str) -> None:
    """Draw a relationship again between its ends: a straight or one-bend orthogonal line
    from the side of its source facing the target to the facing side of the target; its
    ``bounds`` enclose the line and its ``path`` is relative to them."""
    rel = doc.relationships[rel_id]
    source, target = doc.ends(rel_id)
    if source is None or target is None or doc.get(source) is None or doc.get(target) is None:
        return
    (sx, sy), s_dir, (tx, ty), t_dir = _side_points(doc.bounds(source), doc.bounds(target))
    if sx == tx or sy == ty:
        points = [(sx, sy), (tx, ty)]
    elif s_dir in ("Left", "Right"):
        mid = (sx + tx) / 2
        points = [(sx, sy), (mid, sy), (mid, ty), (tx, ty)]
    else:
        mid = (sy + ty) / 2
        points = [(sx, sy), (sx, mid), (tx, mid), (tx, ty)]
    left, top = min(p[0] for p in points), min(p[1] for p in points)
    right, bottom = max(p[0] for p in points), max(p[1] for p in points)
    rel["bounds"] = {"x": left, "y": top, "width": max(right - left, 1.0),
                     "height": max(bottom - top, 1.0)}
    rel["path"] = [{"x": px - left, "y": py - top} for px, py in points]
    for side, direction in (("source", s_dir), ("target", t_dir)):
        end = rel.get(side)
        if isinstance(end, dict):
            end["direction"] = direction
    if "isManuallyLayouted" in rel:
        rel["isManuallyLayouted"] = False


def reverse_path(rel: JsonDict) -> None:
    """Swap a relationship's ends (each keeps its direction, multiplicity and role) and run
    its path the other way."""
    rel["source"], rel["target"] = rel.get("target"), rel.get("source")
    if isinstance(rel.get("path"), list):
        rel["path"] = list(reversed(rel["path"]))
