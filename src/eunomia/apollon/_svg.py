"""Render an Apollon diagram as one static, standalone SVG element.

* Pure and deterministic: the same diagram gives the same bytes whatever the order of
  its JSON keys; nothing is measured with a real font or read from disk.
* Safe to inline in HTML: every text is escaped, no ``<script>``, no event attributes,
  no ``<style>`` (its rules would leak into the page), no ids (two diagrams on one page
  must not collide), no external references (the only URL is the SVG namespace).
* Complete: every element is drawn inside its bounds in a ``<g class="el ..."
  data-id="...">`` group and every relationship in a ``<g class="rel" data-id="...">``
  group; element types without a dedicated shape are drawn generically.
* Feedback: ``highlight`` maps element or relationship ids to the feedback labels that
  name them.  Each such group gets the class ``hl`` and a ``data-badge`` number, and a
  ``<g class="hl-mark" data-for="...">`` drawn on top adds the outline and the numbered
  badge; the numbers follow the order of the mapping, counting only ids found in the
  diagram, and the labels show on hover (SVG ``<title>``).  Other ids are ignored.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

from eunomia.apollon._model import ApollonDiagram, Element, Relationship
from eunomia.apollon._svg_edges import along, draw_edge, edge_points
from eunomia.apollon._svg_icons import Box, Point, circle, rect
from eunomia.apollon._svg_shapes import CONTAINERS, MEMBERS, SIDES, caption, draw_element
from eunomia.apollon._svg_text import (
    FONT_FAMILY,
    attr,
    esc,
    fit,
    num,
    one_line,
    text_block,
    text_width,
)

MARGIN = 16.0
TITLE_SIZE = 15.0
HL = "#d9480f"
"""Outline and badge colour of highlighted shapes."""

SVG_NS = "http://www.w3.org/2000/svg"


def render_svg(
    diagram: ApollonDiagram,
    *,
    highlight: Mapping[str, Sequence[str]] | None = None,
    title: str | None = None,
    max_width: int | None = None,
) -> str:
    """The diagram as an ``<svg>`` element (a string), at most ``max_width`` pixels wide."""
    return _Svg(diagram, highlight or {}, title, max_width).render()


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def _box(element: Element) -> Box:
    b = element.bounds
    return Box(_finite(b.x), _finite(b.y), max(0.0, _finite(b.width)),
               max(0.0, _finite(b.height)))


class _Grid:
    """Boxes bucketed by area, to ask quickly whether a caption would cover something."""

    CELL = 64.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[Box]] = {}

    def _keys(self, b: Box) -> list[tuple[int, int]]:
        x0, x1 = int(b.x // self.CELL), int(b.right // self.CELL)
        y0, y1 = int(b.y // self.CELL), int(b.bottom // self.CELL)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 4096:  # absurdly large: one bucket is enough
            return [(x0, y0)]
        return [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]

    def add(self, b: Box) -> None:
        for key in self._keys(b):
            self.cells.setdefault(key, []).append(b)

    def hits(self, b: Box) -> int:
        found = {id(o): o for key in self._keys(b) for o in self.cells.get(key, ())}
        return sum(o.overlaps(b) for o in found.values())


class _Svg:
    def __init__(
        self,
        diagram: ApollonDiagram,
        highlight: Mapping[str, Sequence[str]],
        title: str | None,
        max_width: int | None,
    ) -> None:
        self.diagram = diagram
        self.title = title
        self.max_width = max_width
        self.boxes = {eid: _box(e) for eid, e in diagram.elements.items()}
        known = [key for key in highlight if key in diagram.elements
                 or key in diagram.relationships]
        self.badges = {key: n for n, key in enumerate(known, start=1)}
        self.feedback: dict[str, list[str]] = {}
        for key in known:
            labels = highlight[key]
            labels = [labels] if isinstance(labels, str) else labels  # one label, not letters
            self.feedback[key] = [one_line(str(label)) for label in labels]
        self.extent: Box | None = None
        self.grid = _Grid()
        self.captions = _Grid()

    # ---- helpers ---------------------------------------------------------------------

    def _grow(self, box: Box | None) -> None:
        if box is not None:
            self.extent = box if self.extent is None else self.extent.union(box)

    def _depth(self, element: Element) -> int:
        depth, seen, owner = 0, {element.id}, element.owner
        while owner is not None and owner in self.diagram.elements and owner not in seen:
            seen.add(owner)
            depth += 1
            owner = self.diagram.elements[owner].owner
        return depth

    def _title(self, key: str, text: str) -> str:
        lines = [text]
        if key in self.badges:
            lines += [f"[{self.badges[key]}] {label}" for label in self.feedback[key]]
        return "\n".join(lines)

    def _label(self, element_id: str) -> str:
        element = self.diagram.elements.get(element_id)
        if element is None:
            return "(missing)"
        return one_line(element.name) or f"({element.type})"

    # ---- parts -----------------------------------------------------------------------

    def _elements(self) -> list[str]:
        elements = self.diagram.elements
        children: dict[str, list[Element]] = {}
        for element in elements.values():
            if element.owner and element.owner != element.id:
                children.setdefault(element.owner, []).append(element)

        def key(e: Element) -> tuple[bool, int, float, float, str]:
            # Containers (packages, pools, lanes...) first, so they never hide a shape.
            b = self.boxes[e.id]
            return (e.type not in CONTAINERS, self._depth(e), b.y, b.x, e.id)

        ordered = sorted(elements.values(), key=key)
        for element in ordered:
            if element.type not in CONTAINERS and element.type not in MEMBERS:
                self.grid.add(self.boxes[element.id])
        out = []
        for element in ordered:
            box = self.boxes[element.id]
            drawn = draw_element(element, box, children.get(element.id, []))
            self._grow(drawn.extent)
            label = self._caption(drawn.caption, box) if drawn.caption.strip() else ""
            css = f"el {drawn.kind}" + (" hl" if element.id in self.badges else "")
            badge = (f' data-badge="{self.badges[element.id]}"'
                     if element.id in self.badges else "")
            name = one_line(element.name) or "(unnamed)"
            out.append(
                f'<g class="{css}" data-id="{attr(element.id)}" data-type="{attr(element.type)}"'
                f"{badge}><title>{esc(self._title(element.id, f'{name} [{element.type}]'))}"
                f"</title>{drawn.body}{label}</g>"
            )
        return out

    def _caption(self, text: str, box: Box) -> str:
        """The caption on the first side (below, above, right, left) that covers nothing."""
        best: tuple[int, str, Box] | None = None
        for side in SIDES:
            svg, taken = caption(text, box, side)
            hits = self.grid.hits(Box(taken.x, taken.y, taken.w, taken.h - 2).inset(1))
            if best is None or hits < best[0]:
                best = (hits, svg, taken)
            if hits == 0:
                break
        assert best is not None
        self.grid.add(best[2])
        self.captions.add(best[2])
        self._grow(best[2])
        return best[1]

    def _paths(self) -> dict[str, list[Point]]:
        """Every relationship's points; their segments go into the grid."""
        paths = {}
        for rel in sorted(self.diagram.relationships.values(), key=lambda r: r.id):
            pts = paths[rel.id] = edge_points(rel, self.boxes)
            for (x1, y1), (x2, y2) in itertools.pairwise(pts):
                self.grid.add(Box(min(x1, x2) - 2, min(y1, y2) - 2, abs(x2 - x1) + 4,
                                  abs(y2 - y1) + 4))
        return paths

    def _relationships(self, paths: Mapping[str, list[Point]]) -> list[str]:
        out = []
        for rel in sorted(self.diagram.relationships.values(), key=lambda r: r.id):
            pts = paths[rel.id]
            svg, extent = draw_edge(rel, pts, self._title(rel.id, self._describe(rel)),
                                    self.badges.get(rel.id), HL)
            self._grow(extent)
            out.append(svg)
        return out

    def _describe(self, rel: Relationship) -> str:
        kind = rel.type
        flow = rel.extra("flowType")
        if isinstance(flow, str) and flow:
            kind = f"{kind} ({flow})"
        name = one_line(rel.name)
        text = f"{self._label(rel.source.element)} → {self._label(rel.target.element)} [{kind}]"
        return f"{name}: {text}" if name else text

    def _badge(self, key: str, x: float, y: float) -> str:
        n = str(self.badges[key])
        r = 9.0 if len(n) < 2 else 11.0
        self._grow(Box(x - r, y - r, 2 * r, 2 * r))
        return (circle(x, y, r, css="badge", fill=HL, stroke="#fff", width=1.5)
                + text_block([n], x, y + 4, 11, bold=True, css="badge-n", fill="#fff"))

    def _highlights(self, paths: Mapping[str, list[Point]]) -> list[str]:
        out = []
        for key in self.badges:
            body = ""
            if key in self.boxes:
                b = self.boxes[key]
                outline = Box(b.x - 3, b.y - 3, b.w + 6, b.h + 6)
                self._grow(outline)
                corners = [(b.right + 1, b.y - 1), (b.x - 1, b.y - 1),
                           (b.right + 1, b.bottom + 1), (b.x - 1, b.bottom + 1)]
                x, y = next((c for c in corners  # the first corner not on a caption
                             if not self.captions.hits(Box(c[0] - 9, c[1] - 9, 18, 18))),
                            corners[0])
                body = (rect(outline, rx=4, css="outline", fill="none", stroke=HL, width=3)
                        + self._badge(key, x, y))
            elif len(pts := paths.get(key, [])) >= 2:  # outlined in its own group
                (x, y), _ = along(pts, 0.3)
                body = self._badge(key, x, y)
            label = "\n".join(f"[{self.badges[key]}] {t}" for t in self.feedback[key])
            out.append(f'<g class="hl-mark" data-for="{attr(key)}" data-badge="{self.badges[key]}">'
                       f"<title>{esc(label or f'[{self.badges[key]}]')}</title>{body}</g>")
        return out

    # ---- whole -----------------------------------------------------------------------

    def render(self) -> str:
        paths = self._paths()
        body = self._elements()
        body += self._relationships(paths)
        body += self._highlights(paths)
        if self.extent is None:
            message = "empty diagram" if not body else "nothing to draw"
            self.extent = Box(0, 0, 220, 60)
            body.append(text_block([message], 110, 35, 13, css="empty", fill="#666"))
        ext = self.extent
        x0, y0 = ext.x - MARGIN, ext.y - MARGIN
        width, height = ext.w + 2 * MARGIN, ext.h + 2 * MARGIN
        head = ""
        if self.title is not None and self.title.strip():
            line = fit(self.title, max(width - 2 * MARGIN, 480.0), TITLE_SIZE, True)
            width = max(width, text_width(line, TITLE_SIZE, True) + 2 * MARGIN)
            y0 -= TITLE_SIZE + 12
            height += TITLE_SIZE + 12
            head = text_block([line], x0 + MARGIN, y0 + MARGIN + TITLE_SIZE, TITLE_SIZE,
                              anchor="start", bold=True, css="title")
        scale = 1.0
        if self.max_width is not None and 0 < self.max_width < width:
            scale = self.max_width / width
        label = one_line(self.title or "") or f"{self.diagram.type} diagram"
        return (
            f'<svg xmlns="{SVG_NS}" class="apollon" viewBox="{num(x0)} {num(y0)} {num(width)} '
            f'{num(height)}" width="{num(width * scale)}" height="{num(height * scale)}" '
            f'role="img" aria-label="{attr(label)}" font-family="{attr(FONT_FAMILY)}" '
            f'data-diagram-type="{attr(self.diagram.type)}">'
            f"<title>{esc(label)}</title>"
            f'<rect class="bg" x="{num(x0)}" y="{num(y0)}" width="{num(width)}" '
            f'height="{num(height)}" fill="#fff"/>'
            f"{head}{''.join(body)}</svg>"
        )
