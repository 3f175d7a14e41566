"""A case's diagrams in the report: the submission with the elements its feedback names
outlined and numbered (``apollon.render_svg``), beside the example solution.

The example solution is the same for every case of a group, so it is drawn once per page
(:func:`example_figure`: a hidden definition) and shown beside each case by reference
(``<use>`` of it), which keeps a report of many cases small.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape
from pydantic import ValidationError

from eunomia.apollon import ApollonDiagram, parse_diagram, render_svg
from eunomia.report.html._model import CaseDiagram

_ROOT = re.compile(r"<svg\b[^>]*>")
_ATTR = re.compile(r'\s([a-zA-Z-]+)="([^"]*)"')


def read_diagram(text: str | None) -> tuple[ApollonDiagram | None, str]:
    """An Apollon diagram from its JSON text, or ``None`` and why not."""
    if text is None or not text.strip():
        return None, "no diagram"
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        return None, f"not JSON: {exc}"
    try:
        return parse_diagram(data), ""
    except ValidationError as exc:
        return None, f"not an Apollon diagram: {str(exc).splitlines()[0]}"


@dataclass(frozen=True, slots=True)
class Marked:
    """Where each feedback item shows on the drawn submission."""

    highlight: tuple[tuple[str, tuple[str, ...]], ...]
    """Id → labels, in the order :func:`render_svg` numbers its badges (from 1)."""
    marks: tuple[tuple[int, ...], ...]
    """Per feedback item: the badge numbers of the elements it names."""
    unplaced: tuple[tuple[str, ...], ...]
    """Per feedback item: the ids it names that the diagram does not have."""


def _element_id(diagram: ApollonDiagram | None, named: str) -> str | None:
    """The diagram's id an item names: the id itself, or (Athena 2.7 and later name
    ``"<Type>:<id>"`` in ``elementIds``) the id after the type; None when it has neither."""
    if diagram is None:
        return None
    for candidate in (named, named.partition(":")[2]):
        if candidate in diagram.elements or candidate in diagram.relationships:
            return candidate
    return None


def mark_feedback(diagram: ApollonDiagram | None,
                  items: Sequence[tuple[str, Sequence[str]]]) -> Marked:
    """Badges for ``items`` (a label and the element ids of each feedback item).

    Elements are numbered in the order the feedback first names them, so with one element
    per item the badges read 1, 2, 3 down the feedback list; an element named by several
    items carries one badge and every item's label.
    """
    labels: dict[str, list[str]] = {}
    marks: list[tuple[int, ...]] = []
    unplaced: list[tuple[str, ...]] = []
    for label, ids in items:
        mine: list[int] = []
        missing: list[str] = []
        for named in dict.fromkeys(ids):  # each id once, in order
            element = _element_id(diagram, named)
            if element is None:
                missing.append(named)
                continue
            if element not in labels:
                labels[element] = []
            labels[element].append(label)
            mine.append(list(labels).index(element) + 1)
        marks.append(tuple(sorted(mine)))
        unplaced.append(tuple(missing))
    return Marked(tuple((k, tuple(v)) for k, v in labels.items()), tuple(marks),
                  tuple(unplaced))


@dataclass(frozen=True, slots=True)
class ExampleFigure:
    """The example solution drawn once (``defs``, hidden) and shown by reference (``use``)."""

    defs: Markup
    use: Markup
    width: float
    """Its natural width in pixels."""


def example_figure(diagram: ApollonDiagram, ident: str) -> ExampleFigure:
    """``ident``: an id unique in the page (letters, digits, dashes)."""
    svg = render_svg(diagram)  # its caption says what it is
    root = _ROOT.match(svg)
    assert root is not None, "render_svg returns one <svg> element"
    attrs = dict(_ATTR.findall(root.group(0)))
    inner = svg[root.end():svg.rindex("</svg>")]
    font = attrs.get("font-family", "sans-serif")
    defs = Markup(
        '<svg class="defs" xmlns="http://www.w3.org/2000/svg" width="0" height="0" '
        f'aria-hidden="true" focusable="false"><defs><g id="{ident}" font-family="{font}">'
        f"{inner}</g></defs></svg>")
    use = Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="apollon example" '
        f'viewBox="{attrs.get("viewBox", "0 0 100 100")}" width="{attrs.get("width", "100")}" '
        f'height="{attrs.get("height", "100")}" role="img" aria-label="Example solution" '
        f'data-diagram-type="{attrs.get("data-diagram-type", "")}">'
        f'<use href="#{escape(ident)}"/></svg>')
    return ExampleFigure(defs, use, _width(attrs))


def _width(attrs: dict[str, str]) -> float:
    try:
        return float(attrs.get("width", "0"))
    except ValueError:
        return 0.0


def figures(drawing: CaseDiagram | None, example: ExampleFigure | None) -> Markup:
    """The submission (its highlights drawn) beside the example solution.

    Side by side when both fit at three quarters of their natural size or more, else one
    above the other (a CSS grid: the page needs no script to decide).
    """
    if drawing is None or drawing.diagram is None:
        why = drawing.note if drawing is not None and drawing.note else "no diagram"
        submission = Markup('<p class="empty">{}</p>').format(f"Not drawn: {why}.")
        width = 0.0
    else:
        svg = render_svg(drawing.diagram, highlight=dict(drawing.highlight))
        root = _ROOT.match(svg)
        width = _width(dict(_ATTR.findall(root.group(0)))) if root else 0.0
        submission = Markup(svg)
    source = (Markup(' <span class="src">from {}</span>').format(drawing.source)
              if drawing is not None and drawing.source else Markup(""))
    shown = (example.use if example is not None
             else Markup('<p class="empty">The scenario has no example solution.</p>'))
    column = max(320.0, 0.75 * max(width, example.width if example else 0.0))
    return Markup(
        '<div class="figures" style="--col: {}px">'
        '<figure class="diagram submission"><figcaption><b>Submission</b>{}</figcaption>{}'
        '</figure><figure class="diagram example"><figcaption><b>Example solution</b>'
        "</figcaption>{}</figure></div>").format(f"{column:.0f}", source, submission, shown)
