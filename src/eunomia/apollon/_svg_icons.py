"""Geometry primitives and the small BPMN icons and markers (events, tasks, gateways).

Every primitive writes absolute coordinates only (paths use ``M``, ``L``, ``C`` and
``Z`` with explicit pairs), so a drawing stays inside the convex hull of the numbers it
contains: the tests check bounds by reading those numbers back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from eunomia.apollon._svg_text import num

STROKE = "#222"
FILL = "#fff"
TEXT = "#1a1a1a"
MUTED = "#666"

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Box:
    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def inset(self, d: float) -> Box:
        return Box(self.x + d, self.y + d, max(0.0, self.w - 2 * d), max(0.0, self.h - 2 * d))

    def union(self, other: Box) -> Box:
        x, y = min(self.x, other.x), min(self.y, other.y)
        return Box(x, y, max(self.right, other.right) - x, max(self.bottom, other.bottom) - y)

    def overlaps(self, other: Box) -> bool:
        """Whether the interiors intersect (touching edges do not count)."""
        return (self.x < other.right and other.x < self.right
                and self.y < other.bottom and other.y < self.bottom)

    def distance(self, p: Point) -> float:
        """Distance from a point to this box (0 inside)."""
        dx = max(self.x - p[0], 0.0, p[0] - self.right)
        dy = max(self.y - p[1], 0.0, p[1] - self.bottom)
        return math.hypot(dx, dy)


def _paint(css: str, fill: str, stroke: str, width: float, dash: str | None) -> str:
    out = f'class="{css}" fill="{fill}" stroke="{stroke}" stroke-width="{num(width)}"'
    return out + (f' stroke-dasharray="{dash}"' if dash else "")


def rect(
    b: Box,
    rx: float = 0,
    css: str = "shape",
    fill: str = FILL,
    stroke: str = STROKE,
    width: float = 1.5,
    dash: str | None = None,
) -> str:
    corner = f' rx="{num(min(rx, b.w / 2, b.h / 2))}"' if rx else ""
    return (
        f'<rect x="{num(b.x)}" y="{num(b.y)}" width="{num(b.w)}" height="{num(b.h)}"{corner} '
        f"{_paint(css, fill, stroke, width, dash)}/>"
    )


def circle(
    cx: float,
    cy: float,
    r: float,
    css: str = "shape",
    fill: str = FILL,
    stroke: str = STROKE,
    width: float = 1.5,
) -> str:
    return (
        f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(max(r, 0.0))}" '
        f"{_paint(css, fill, stroke, width, None)}/>"
    )


def ellipse(b: Box, css: str = "shape", fill: str = FILL, width: float = 1.5) -> str:
    return (
        f'<ellipse cx="{num(b.cx)}" cy="{num(b.cy)}" rx="{num(b.w / 2)}" ry="{num(b.h / 2)}" '
        f"{_paint(css, fill, STROKE, width, None)}/>"
    )


def points(pts: Sequence[Point]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in pts)


def polygon(
    pts: Sequence[Point],
    css: str = "shape",
    fill: str = FILL,
    stroke: str = STROKE,
    width: float = 1.5,
    dash: str | None = None,
) -> str:
    return f'<polygon points="{points(pts)}" {_paint(css, fill, stroke, width, dash)}/>'


def polyline(
    pts: Sequence[Point],
    css: str = "line",
    stroke: str = STROKE,
    width: float = 1.5,
    dash: str | None = None,
) -> str:
    paint = _paint(css, "none", stroke, width, dash)
    return f'<polyline points="{points(pts)}" {paint} stroke-linejoin="round"/>'


def path(
    d: str,
    css: str = "shape",
    fill: str = FILL,
    stroke: str = STROKE,
    width: float = 1.5,
    dash: str | None = None,
) -> str:
    return f'<path d="{d}" {_paint(css, fill, stroke, width, dash)}/>'


def diamond(b: Box) -> list[Point]:
    return [(b.cx, b.y), (b.right, b.cy), (b.cx, b.bottom), (b.x, b.cy)]


# ---- icons in a unit square, scaled into a box ---------------------------------------

_Prim = tuple[str, tuple[float, ...]]
_ICONS: dict[str, list[_Prim]] = {
    "message": [("rect", (0, 0.2, 1, 0.6)), ("open", (0, 0.2, 0.5, 0.58, 1, 0.2))],
    "timer": [
        ("circle", (0.5, 0.5, 0.5)),
        ("open", (0.5, 0.15, 0.5, 0.5, 0.78, 0.5)),
    ],
    "signal": [("poly", (0.5, 0.05, 0.95, 0.85, 0.05, 0.85))],
    "conditional": [
        ("rect", (0.15, 0.05, 0.7, 0.9)),
        *[("open", (0.28, y, 0.72, y)) for y in (0.25, 0.42, 0.59, 0.76)],
    ],
    "escalation": [("poly", (0.5, 0.02, 0.88, 0.95, 0.5, 0.6, 0.12, 0.95))],
    "error": [("poly", (0.08, 0.95, 0.32, 0.22, 0.6, 0.6, 0.92, 0.05, 0.68, 0.78, 0.4, 0.42))],
    "compensation": [
        ("poly", (0.05, 0.5, 0.5, 0.18, 0.5, 0.82)),
        ("poly", (0.5, 0.5, 0.95, 0.18, 0.95, 0.82)),
    ],
    "link": [("poly", (0.05, 0.35, 0.55, 0.35, 0.55, 0.1, 0.95, 0.5, 0.55, 0.9, 0.55, 0.65,
                       0.05, 0.65))],
    "terminate": [("disc", (0.5, 0.5, 0.5))],
    "user": [("circle", (0.5, 0.3, 0.22)), ("poly", (0.1, 1, 0.2, 0.62, 0.8, 0.62, 0.9, 1))],
    "manual": [
        ("poly", (0.05, 0.4, 0.55, 0.4, 0.95, 0.52, 0.95, 0.8, 0.05, 0.8)),
        ("open", (0.5, 0.56, 0.95, 0.56)),
        ("open", (0.5, 0.68, 0.95, 0.68)),
    ],
    "business-rule": [
        ("rect", (0, 0.15, 1, 0.7)),
        ("open", (0, 0.35, 1, 0.35)),
        ("open", (0.3, 0.35, 0.3, 0.85)),
        ("open", (0, 0.6, 1, 0.6)),
    ],
    "script": [
        ("poly", (0.25, 0.05, 0.95, 0.05, 0.75, 0.95, 0.05, 0.95)),
        *[("open", (0.3, y, 0.7, y)) for y in (0.3, 0.5, 0.7)],
    ],
    "loop": [("circle", (0.5, 0.55, 0.4)), ("poly", (0.1, 0.3, 0.42, 0.3, 0.26, 0.6))],
    "parallel": [("open", (x, 0.05, x, 0.95)) for x in (0.2, 0.5, 0.8)],
    "sequential": [("open", (0.05, y, 0.95, y)) for y in (0.2, 0.5, 0.8)],
    "subprocess": [("rect", (0, 0, 1, 1)), ("open", (0.5, 0.2, 0.5, 0.8)),
                   ("open", (0.2, 0.5, 0.8, 0.5))],
}
# Icons that read as a line drawing: their closed shapes stay hollow even when "filled".
_LINE_ICONS = frozenset({"parallel", "sequential", "subprocess", "loop", "timer", "conditional"})


def icon(name: str, x: float, y: float, size: float, filled: bool = False) -> str:
    """The named icon scaled into the square (x, y, size); unknown names draw nothing."""
    parts: list[str] = []
    solid = filled and name not in _LINE_ICONS
    fill, ink = (STROKE, FILL) if solid else (FILL, STROKE)

    def at(values: tuple[float, ...]) -> list[Point]:
        return [(x + values[i] * size, y + values[i + 1] * size) for i in range(0, len(values), 2)]

    for kind, v in _ICONS.get(name, []):
        if kind == "rect":
            parts.append(rect(Box(x + v[0] * size, y + v[1] * size, v[2] * size, v[3] * size),
                              css="icon", fill=fill, width=1.2))
        elif kind in ("circle", "disc"):
            parts.append(circle(x + v[0] * size, y + v[1] * size, v[2] * size, css="icon",
                                fill=STROKE if kind == "disc" else fill, width=1.2))
        elif kind == "poly":
            parts.append(polygon(at(v), css="icon", fill=fill, width=1.2))
        else:
            parts.append(polyline(at(v), css="icon", stroke=ink, width=1.2))
    return "".join(parts)


def gateway_marker(kind: str, b: Box) -> str:
    """The marker inside a gateway diamond: X, +, O, asterisk or the event-based pentagon."""
    kind = kind.lower()
    m = b.inset(min(b.w, b.h) * 0.3)
    cross = [(m.x, m.y, m.right, m.bottom), (m.x, m.bottom, m.right, m.y)]
    plus = [(m.cx, m.y - m.h * 0.1, m.cx, m.bottom + m.h * 0.1),
            (m.x - m.w * 0.1, m.cy, m.right + m.w * 0.1, m.cy)]
    out: list[str] = []
    lines: list[tuple[float, float, float, float]] = []
    if "event" in kind:
        r = min(m.w, m.h) * 0.62
        out.append(circle(b.cx, b.cy, r, css="icon", width=1.2))
        if "parallel" in kind:
            lines = [(b.cx, b.cy - r * 0.6, b.cx, b.cy + r * 0.6),
                     (b.cx - r * 0.6, b.cy, b.cx + r * 0.6, b.cy)]
        else:
            out.append(circle(b.cx, b.cy, r * 0.8, css="icon", width=1.2))
            k = r * 0.5
            pent = [(b.cx + k * math.sin(a), b.cy - k * math.cos(a))
                    for a in (i * 2 * math.pi / 5 for i in range(5))]
            out.append(polygon(pent, css="icon", width=1.2))
    elif kind == "parallel":
        lines = plus
    elif kind == "inclusive":
        out.append(circle(b.cx, b.cy, min(m.w, m.h) * 0.5, css="icon", width=2.5))
    elif kind == "complex":
        lines = cross + plus
    else:  # exclusive, and any kind Eunomia does not know
        lines = cross
    width = 3.0 if kind in ("parallel", "complex", "exclusive") else 2.0
    for x1, y1, x2, y2 in lines:
        out.append(polyline([(x1, y1), (x2, y2)], css="icon", width=width))
    return "".join(out)
