"""Relationships: their points, line style, arrowheads and labels.

Apollon stores a relationship's ``path`` relative to the relationship's ``bounds``
(checked on the bpmn_loan scenario and the Athena playground submissions: a path
``[(0, 0), (0, 140)]`` with bounds at ``(210, 100)`` runs from the bottom of one task to
the top of an event).  When adding the bounds puts the ends further from the connected
elements than the raw points, the points are taken as absolute.  Without a path, the
line runs between the elements' centres, cut at their borders.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eunomia.apollon._model import Relationship
from eunomia.apollon._svg_icons import (
    FILL,
    STROKE,
    Box,
    Point,
    circle,
    points,
    polygon,
    polyline,
)
from eunomia.apollon._svg_text import attr, esc, fit, text_block, text_width

LABEL_SIZE = 11.5
DASHED = "6 4"
DOTTED = "2 3"


@dataclass(frozen=True, slots=True)
class Style:
    dash: str | None = None
    head: str | None = "open"
    tail: str | None = None
    stereotype: str | None = None


STYLES: dict[str, Style] = {
    "ClassBidirectional": Style(head=None),
    "ClassUnidirectional": Style(),
    "ClassInheritance": Style(head="triangle"),
    "ClassRealization": Style(DASHED, "triangle"),
    "ClassDependency": Style(DASHED),
    "ClassAggregation": Style(head="diamond"),
    "ClassComposition": Style(head="filled-diamond"),
    "ActivityControlFlow": Style(),
    "UseCaseAssociation": Style(head=None),
    "UseCaseGeneralization": Style(head="triangle"),
    "UseCaseInclude": Style(DASHED, stereotype="include"),
    "UseCaseExtend": Style(DASHED, stereotype="extend"),
}
FLOW_STYLES: dict[str, Style] = {
    "sequence": Style(head="filled"),
    "message": Style(DASHED, "triangle", "circle"),
    "association": Style(DOTTED, None),
    "data association": Style(DOTTED),
    "data-association": Style(DOTTED),
}


def style_of(rel: Relationship) -> Style:
    if rel.type == "BPMNFlow":
        return FLOW_STYLES.get(str(rel.extra("flowType") or "sequence"), Style(head="filled"))
    return STYLES.get(rel.type, Style())


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _path(rel: Relationship) -> list[Point]:
    raw = rel.extra("path")
    if not isinstance(raw, list):
        return []
    out: list[Point] = []
    for item in raw:
        if isinstance(item, dict):
            x, y = _finite(item.get("x")), _finite(item.get("y"))
            if x is not None and y is not None:
                out.append((x, y))
    return out


def _border(b: Box, towards: Point) -> Point:
    """Where the line from the centre of ``b`` towards a point leaves the box."""
    dx, dy = towards[0] - b.cx, towards[1] - b.cy
    if dx == 0 and dy == 0:
        return (b.cx, b.cy)
    t = min(b.w / 2 / abs(dx) if dx else math.inf, b.h / 2 / abs(dy) if dy else math.inf)
    return (b.cx + dx * t, b.cy + dy * t)


def edge_points(rel: Relationship, boxes: Mapping[str, Box]) -> list[Point]:
    """The polyline of a relationship in diagram coordinates ([] when it cannot be placed)."""
    pts = _path(rel)
    src, tgt = boxes.get(rel.source.element), boxes.get(rel.target.element)
    if len(pts) >= 2:
        bounds = rel.extra("bounds")
        bx = _finite(bounds.get("x")) if isinstance(bounds, dict) else None
        by = _finite(bounds.get("y")) if isinstance(bounds, dict) else None
        shifted = [(x + (bx or 0.0), y + (by or 0.0)) for x, y in pts]
        if src is not None and tgt is not None and (bx or by):

            def miss(ps: Sequence[Point]) -> float:
                assert src is not None and tgt is not None
                return src.distance(ps[0]) + tgt.distance(ps[-1])

            if miss(pts) < miss(shifted):
                return pts
        return shifted
    if src is None or tgt is None:
        return []
    if src == tgt or rel.source.element == rel.target.element:
        y0, y1, x1 = src.cy - src.h / 4, src.cy + src.h / 4, src.right + 20
        return [(src.right, y0), (x1, y0), (x1, y1), (src.right, y1)]
    return [_border(src, (tgt.cx, tgt.cy)), _border(tgt, (src.cx, src.cy))]


def _unit(a: Point, b: Point) -> Point:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    return (dx / length, dy / length) if length else (1.0, 0.0)


def _end_direction(pts: Sequence[Point], end: int) -> Point:
    """The direction of travel into the end point (``end`` = -1) or out of the start (0)."""
    tip = pts[end]
    others = pts[:-1][::-1] if end == -1 else pts[1:]
    for other in others:
        if other != tip:
            return _unit(other, tip) if end == -1 else _unit(tip, other)
    return (1.0, 0.0)


def head(kind: str, tip: Point, u: Point) -> str:
    """An arrowhead with its tip at ``tip``, pointing along ``u``."""
    n = (-u[1], u[0])

    def at(back: float, side: float) -> Point:
        return (tip[0] - u[0] * back + n[0] * side, tip[1] - u[1] * back + n[1] * side)

    if kind == "open":
        return polyline([at(11, 5.5), tip, at(11, -5.5)], css="head")
    if kind == "filled":
        return polygon([tip, at(10, 4.5), at(10, -4.5)], css="head", fill=STROKE, width=1)
    if kind == "triangle":
        return polygon([tip, at(14, 7), at(14, -7)], css="head", width=1.5)
    if kind in ("diamond", "filled-diamond"):
        fill = STROKE if kind == "filled-diamond" else FILL
        return polygon([tip, at(10, 6), at(20, 0), at(10, -6)], css="head", fill=fill, width=1.5)
    if kind == "circle":  # the start of a message flow: ``tip`` is the start point
        return circle(tip[0] + u[0] * 4, tip[1] + u[1] * 4, 4, css="head", width=1.2)
    return ""


def along(pts: Sequence[Point], fraction: float) -> tuple[Point, bool]:
    """The point at ``fraction`` of the polyline's length and whether its segment is
    horizontal."""
    segments = list(itertools.pairwise(pts))
    left = sum(math.dist(a, b) for a, b in segments) * fraction
    for a, b in segments:
        length = math.dist(a, b)
        if length >= left and length > 0:
            t = left / length
            point = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            return point, abs(b[0] - a[0]) >= abs(b[1] - a[1])
        left -= length
    return pts[0], True


@dataclass(slots=True)
class _Labels:
    svg: list[str]
    extent: Box

    def add(self, text: str, x: float, y: float, anchor: str) -> None:
        line = fit(text, 160, LABEL_SIZE)
        if not line:
            return
        self.svg.append(text_block([line], x, y, LABEL_SIZE, anchor=anchor, css="label",
                                   halo=True))
        w = text_width(line, LABEL_SIZE)
        left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
        self.extent = self.extent.union(Box(left, y - LABEL_SIZE, w, LABEL_SIZE + 4))


def _end_labels(labels: _Labels, tip: Point, u: Point, upper: str, lower: str) -> None:
    """Role and multiplicity beside the end of a line that arrives along ``u``."""
    x, y = tip
    if abs(u[0]) >= abs(u[1]):  # arrives horizontally
        anchor = "end" if u[0] > 0 else "start"
        x -= 8 * (1 if u[0] > 0 else -1)
        labels.add(upper, x, y - 5, anchor)
        labels.add(lower, x, y + LABEL_SIZE + 3, anchor)
    else:
        y += -10 if u[1] > 0 else LABEL_SIZE + 8
        labels.add(upper, x - 5, y, "end")
        labels.add(lower, x + 5, y, "start")


def draw_edge(
    rel: Relationship, pts: Sequence[Point], title: str, badge: int | None, colour: str
) -> tuple[str, Box | None]:
    """The relationship's group and the extent of what it drew (None when nothing).

    A highlighted relationship (``badge`` set) gets a wide ``colour`` stroke under its line.
    """
    style = style_of(rel)
    data = (f'data-id="{attr(rel.id)}" data-type="{attr(rel.type)}" '
            f'data-source="{attr(rel.source.element)}" data-target="{attr(rel.target.element)}"')
    if badge is not None:
        data = f'class="rel hl" {data} data-badge="{badge}"'
    else:
        data = f'class="rel" {data}'
    parts = [f"<g {data}><title>{esc(title)}</title>"]
    if len(pts) < 2:
        return "".join(parts) + "</g>", None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    labels = _Labels([], Box(min(xs) - 10, min(ys) - 10, max(xs) - min(xs) + 20,
                            max(ys) - min(ys) + 20))
    # A wide invisible stroke under the line, so that hovering near it shows the title.
    parts.append(f'<polyline class="hit" points="{points(pts)}" fill="none" stroke="#fff" '
                 'stroke-opacity="0" stroke-width="8"/>')
    if badge is not None:
        parts.append(f'<polyline class="outline" points="{points(pts)}" fill="none" '
                     f'stroke="{colour}" stroke-opacity="0.5" stroke-width="7" '
                     'stroke-linejoin="round"/>')
    parts.append(polyline(pts, dash=style.dash))
    if style.head:
        parts.append(head(style.head, pts[-1], _end_direction(pts, -1)))
    if style.tail:
        parts.append(head(style.tail, pts[0], _end_direction(pts, 0)))
    name = " ".join(rel.name.split())
    if style.stereotype:
        name = f"«{style.stereotype}» {name}".strip()
    if name:
        (mx, my), horizontal = along(pts, 0.5)
        if horizontal:
            labels.add(name, mx, my - 6, "middle")
        else:
            labels.add(name, mx + 6, my + LABEL_SIZE * 0.35, "start")
    for endpoint, index in ((rel.source, 0), (rel.target, -1)):
        upper, lower = (endpoint.role or "").strip(), (endpoint.multiplicity or "").strip()
        if upper or lower:
            u = _end_direction(pts, index)
            if index == 0:
                u = (-u[0], -u[1])
            _end_labels(labels, pts[index], u, upper, lower)
    parts.extend(labels.svg)
    parts.append("</g>")
    return "".join(parts), labels.extent
