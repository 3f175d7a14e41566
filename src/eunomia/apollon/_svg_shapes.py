"""The shape of each Apollon element type, drawn inside the element's bounds.

A drawer gets the element, its bounds and the elements it owns (a classifier's
``ClassAttribute`` and ``ClassMethod`` rows, the contents of a package or pool) and
returns the SVG inside the element's group.  Every shape stays inside the bounds.  The
names of BPMN events, gateways and data objects are returned as a caption instead: as
in Apollon they sit beside the shape (below it when there is room; the caller picks the
side that covers the fewest lines and shapes).  Types without a drawer are drawn
generically (their bounds, name and type), never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eunomia.apollon._model import Element
from eunomia.apollon._svg_icons import (
    MUTED,
    STROKE,
    Box,
    circle,
    diamond,
    ellipse,
    gateway_marker,
    icon,
    path,
    polygon,
    polyline,
    rect,
)
from eunomia.apollon._svg_text import (
    centred_lines,
    fit,
    num,
    text_block,
    text_width,
    wrap,
)

NAME_SIZE = 13.0
SMALL = 11.0
POOL_HEADER = 40.0
STEREOTYPES = {"Interface": "interface", "Enumeration": "enumeration", "AbstractClass": "abstract"}
CLASSIFIERS = frozenset({"Class", "AbstractClass", "Interface", "Enumeration", "ObjectName"})
MEMBERS = frozenset({"ClassAttribute", "ClassMethod", "ObjectAttribute", "ObjectMethod"})


@dataclass(frozen=True, slots=True)
class Drawn:
    kind: str
    """A short class name for the group: ``task``, ``event``, ``classifier``, ``generic``..."""
    body: str
    extent: Box
    caption: str = ""
    """Text to place beside the shape (see :func:`caption`), as Apollon does for events."""


Drawer = Callable[[Element, Box, Sequence[Element]], Drawn]


# ---- text placement --------------------------------------------------------------------


def centred(text: str, b: Box, size: float = NAME_SIZE, bold: bool = False, pad: float = 6) -> str:
    """The name wrapped and centred in the box (cut with an ellipsis when it does not fit)."""
    if b.h < size:
        return ""
    lines, dy = centred_lines(text, b.w - 2 * pad, b.h - 2, size, bold)
    return text_block(lines, b.cx, b.cy + dy, size, bold=bold)


def top_label(text: str, b: Box, size: float = NAME_SIZE, bold: bool = True, dy: float = 0) -> str:
    line = fit(text, b.w - 12, size, bold)
    if not line or b.h < size:
        return ""
    return text_block([line], b.cx, b.y + dy + size + 4, size, bold=bold)


CAPTION_SIZE = 12.0
SIDES = ("below", "above", "right", "left")


def caption(text: str, b: Box, side: str) -> tuple[str, Box]:
    """A caption beside the shape (up to three lines), and the box it takes."""
    width = max(b.w * 2, 120.0) if side in ("below", "above") else 120.0
    lines = wrap(text, width, CAPTION_SIZE, 3)
    if not lines:
        return "", Box(b.cx, b.cy, 0, 0)
    step = round(CAPTION_SIZE * 1.2, 2)
    w = max(text_width(line, CAPTION_SIZE) for line in lines)
    h = step * len(lines)
    top = {"below": b.bottom + 4, "above": b.y - 4 - h}.get(side, b.cy - h / 2)
    x, left, anchor = {
        "right": (b.right + 6, b.right + 6, "start"),
        "left": (b.x - 6, b.x - 6 - w, "end"),
    }.get(side, (b.cx, b.cx - w / 2, "middle"))
    svg = text_block(lines, x, top + CAPTION_SIZE * 0.9, CAPTION_SIZE, anchor=anchor,
                     css="caption", halo=True)
    return svg, Box(left, top, w, h + 2)


def rotated(text: str, x: float, b: Box, size: float, bold: bool) -> str:
    """A label read bottom to top, centred at ``x`` along the height of the box."""
    line = fit(text, b.h - 12, size, bold)
    if not line:
        return ""
    y = b.cy + size * 0.35
    return text_block([line], x, y, size, bold=bold,
                      transform=f"rotate(-90 {num(x)} {num(b.cy)})")


def _flag(element: Element, key: str) -> bool:
    return element.extra(key) is True


# ---- class diagrams ----------------------------------------------------------------------


def classifier(el: Element, b: Box, children: Sequence[Element]) -> Drawn:
    members = [c for c in children if c.type in MEMBERS]
    stereo = STEREOTYPES.get(el.type) or el.extra("stereotype")
    stereo = stereo if isinstance(stereo, str) and stereo.strip() else None
    header = min(b.y + (50 if stereo else 40), b.bottom)
    tops = [m.bounds.y for m in members if b.y < m.bounds.y < b.bottom]
    if tops:
        header = min(tops)
    methods = [m.bounds.y for m in members if m.type.endswith("Method")]
    attributes = [m for m in members if m.type.endswith("Attribute")]
    divider = min(methods) if methods and attributes else None
    parts = [rect(b)]
    head = Box(b.x, b.y, b.w, header - b.y)
    italic = el.type == "AbstractClass" or _flag(el, "italic")
    underline = el.type == "ObjectName" or _flag(el, "underline")
    name = fit(el.name, b.w - 12, NAME_SIZE, True)
    if stereo and head.h >= 2 * NAME_SIZE:
        label = fit(f"«{stereo}»", b.w - 12, SMALL)
        parts.append(text_block([label], b.cx, head.cy - 3, SMALL, css="stereotype"))
        parts.append(text_block([name], b.cx, head.cy + NAME_SIZE, NAME_SIZE, bold=True,
                                italic=italic, underline=underline))
    elif name and head.h >= NAME_SIZE:
        parts.append(text_block([name], b.cx, head.cy + NAME_SIZE * 0.35, NAME_SIZE,
                                bold=True, italic=italic, underline=underline))
    for y in sorted({header, divider or header}):
        if b.y < y < b.bottom - 0.5:
            parts.append(polyline([(b.x, y), (b.right, y)], css="divider"))
    return Drawn("classifier", "".join(parts), b)


def member(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    line = fit(el.name, b.w - 20, 12.5)
    body = rect(b, css="shape row", fill="none", stroke="none", width=0)
    if line and b.h >= 10:
        body += text_block([line], b.x + 10, b.cy + 12.5 * 0.35, 12.5, anchor="start")
    return Drawn("member", body, b)


def package(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    tab_h = min(10.0, b.h)
    tab_w = min(60.0, b.w)
    body = Box(b.x, b.y + tab_h, b.w, b.h - tab_h)
    parts = [
        path(f"M {num(b.x)} {num(body.y)} L {num(b.x)} {num(b.y)} L {num(b.x + tab_w)} "
             f"{num(b.y)} L {num(b.x + tab_w)} {num(body.y)}", fill="#f7f7f7"),
        rect(body, fill="#fcfcfc"),
        top_label(el.name, body),
    ]
    return Drawn("package", "".join(parts), b)


# ---- BPMN --------------------------------------------------------------------------------


def pool(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    band = min(POOL_HEADER, b.w)
    parts = [rect(b), rect(Box(b.x, b.y, band, b.h), css="header", fill="#f4f4f4")]
    parts.append(rotated(el.name, b.x + band / 2, b, 14, True))
    return Drawn("pool", "".join(parts), b)


def lane(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    band = min(POOL_HEADER, b.w)
    parts = [rect(b, fill="none", width=1), rotated(el.name, b.x + band / 2, b, 13, False)]
    return Drawn("lane", "".join(parts), b)


def task(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    width = {"BPMNCallActivity": 3.5}.get(el.type, 1.5)
    parts = [rect(b, rx=10, width=width)]
    if el.type == "BPMNTransaction":
        parts.append(rect(b.inset(4), rx=7, css="icon", fill="none", width=1.2))
    task_type = str(el.extra("taskType") or "default")
    side = 6.0
    if task_type != "default" and min(b.w, b.h) >= 30:
        parts.append(icon("message" if task_type in ("send", "receive") else task_type,
                          b.x + 7, b.y + 7, 15, filled=task_type == "send"))
        side = 24.0
    marker = str(el.extra("marker") or "none")
    markers = {"loop": "loop", "parallel multi instance": "parallel",
               "sequential multi instance": "sequential"}
    names = [markers[m] for m in (marker,) if m in markers]
    if el.type == "BPMNSubprocess":
        names.append("subprocess")
    bottom = 0.0
    if names and b.h >= 36:
        size = 12.0
        x = b.cx - (len(names) * (size + 4) - 4) / 2
        for i, name in enumerate(names):
            parts.append(icon(name, x + i * (size + 4), b.bottom - size - 4, size))
        bottom = size + 4
    inner = Box(b.x + side, b.y + 3, b.w - 2 * side, b.h - 6 - bottom)
    parts.append(centred(el.name, inner, pad=0))
    return Drawn("task", "".join(parts), b)


_EVENT_ICONS = ("message", "timer", "signal", "conditional", "escalation", "error",
                "compensation", "link", "terminate")


def event(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    end = el.type == "BPMNEndEvent"
    width = 3.5 if end else 1.5
    r = min(b.w, b.h) / 2
    parts = [circle(b.cx, b.cy, r - width / 2, width=width)]
    if el.type == "BPMNIntermediateEvent" and r > 6:
        parts.append(circle(b.cx, b.cy, r - 4.5, css="shape inner", fill="none", width=1.2))
    kind = str(el.extra("eventType") or "default").lower()
    name = next((n for n in _EVENT_ICONS if kind.startswith(n)), None)
    if name is not None and r >= 8:
        size = r * (1.1 if name in ("terminate",) else 0.95)
        parts.append(icon(name, b.cx - size / 2, b.cy - size / 2, size,
                          filled=end or kind.endswith("throw")))
    return Drawn("event", "".join(parts), b, el.name)


def gateway(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    parts = [polygon(diamond(b)), gateway_marker(str(el.extra("gatewayType") or ""), b)]
    return Drawn("gateway", "".join(parts), b, el.name)


def data_object(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    f = min(b.w, b.h) * 0.3
    x, y, r, bt = num(b.x), num(b.y), num(b.right), num(b.bottom)
    parts = [
        path(f"M {x} {y} L {num(b.right - f)} {y} L {r} {num(b.y + f)} L {r} {bt} L {x} {bt} Z"),
        polyline([(b.right - f, b.y), (b.right - f, b.y + f), (b.right, b.y + f)], css="icon"),
    ]
    return Drawn("data", "".join(parts), b, el.name)


def data_store(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    ry = min(b.h * 0.15, 10.0)
    x, r, top, low = num(b.x), num(b.right), num(b.y + ry), num(b.bottom - ry)
    y, bt, mid = num(b.y), num(b.bottom), num(b.y + 2 * ry)
    parts = [
        path(f"M {x} {top} L {x} {low} C {x} {bt} {r} {bt} {r} {low} L {r} {top} "
             f"C {r} {y} {x} {y} {x} {top} Z"),
        path(f"M {x} {top} C {x} {mid} {r} {mid} {r} {top}", css="icon", fill="none", width=1.2),
    ]
    return Drawn("data", "".join(parts), b, el.name)


def annotation(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    arm = min(15.0, b.w)
    bracket = [(b.x + arm, b.y), (b.x, b.y), (b.x, b.bottom), (b.x + arm, b.bottom)]
    parts = [rect(b, css="shape area", fill="none", stroke="none", width=0),
             polyline(bracket, css="shape")]
    step = round(NAME_SIZE * 1.2, 2)
    lines = wrap(el.name, b.w - 12, NAME_SIZE, max(1, int((b.h - 4) // step)))
    top = b.cy - (len(lines) - 1) * step / 2 + NAME_SIZE * 0.35
    parts.append(text_block(lines, b.x + 8, top, NAME_SIZE, anchor="start"))
    return Drawn("annotation", "".join(parts), b)


def group(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    parts = [rect(b, rx=10, fill="none", width=1.5, dash="8 4 2 4"), top_label(el.name, b)]
    return Drawn("group", "".join(parts), b)


def conversation(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    q = b.w / 4
    hexagon = [(b.x + q, b.y), (b.right - q, b.y), (b.right, b.cy), (b.right - q, b.bottom),
               (b.x + q, b.bottom), (b.x, b.cy)]
    return Drawn("conversation", polygon(hexagon), b, el.name)


# ---- activity and use-case diagrams --------------------------------------------------------


def activity(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    return Drawn("activity", rect(b, rx=10, fill="#fcfcfc") + top_label(el.name, b), b)


def action(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    rx = 10 if el.type == "ActivityActionNode" else 0
    return Drawn("action", rect(b, rx=rx) + centred(el.name, b), b)


def initial(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    return Drawn("initial", circle(b.cx, b.cy, min(b.w, b.h) / 2, fill=STROKE, width=0), b)


def final(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    r = min(b.w, b.h) / 2
    body = circle(b.cx, b.cy, r - 1, width=2) + circle(b.cx, b.cy, r * 0.6, css="icon",
                                                        fill=STROKE, width=0)
    return Drawn("final", body, b)


def decision(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    inner = b.inset(min(b.w, b.h) * 0.15)
    return Drawn("decision", polygon(diamond(b)) + centred(el.name, inner, 11, pad=0), b)


def bar(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    return Drawn("bar", rect(b, fill=STROKE, width=0), b)


def use_case(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    return Drawn("usecase", ellipse(b) + centred(el.name, b.inset(b.h * 0.12)), b)


def actor(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    name_h = 20.0 if b.h > 60 else 0.0
    fig = Box(b.x, b.y, b.w, b.h - name_h).inset(4)
    s = min(fig.w / 0.6, fig.h)
    cx, top = b.cx, fig.y
    head = s * 0.14
    hip, feet = top + s * 0.62, top + s
    parts = [
        rect(b, css="shape area", fill="none", stroke="none", width=0),
        circle(cx, top + head, head, css="icon"),
        polyline([(cx, top + 2 * head), (cx, hip)], css="icon"),
        polyline([(cx - s * 0.28, top + s * 0.4), (cx + s * 0.28, top + s * 0.4)], css="icon"),
        polyline([(cx - s * 0.25, feet), (cx, hip), (cx + s * 0.25, feet)], css="icon"),
    ]
    if name_h:
        line = fit(el.name, b.w, 12)
        parts.append(text_block([line], cx, b.bottom - 5, 12) if line else "")
    return Drawn("actor", "".join(parts), b)


def system(el: Element, b: Box, _: Sequence[Element]) -> Drawn:
    return Drawn("system", rect(b, fill="#fcfcfc") + top_label(el.name, b), b)


def generic(el: Element, b: Box, children: Sequence[Element]) -> Drawn:
    """Any other type: its bounds, its type in small print and its name.

    The name is centred, or at the top when the element owns others (they would hide it).
    """
    parts = [rect(b, fill="#f8f8f8", stroke=MUTED, width=1.2)]
    body = b
    kind = fit(f"«{el.type}»", b.w - 8, 10)
    if kind and b.h >= 34:
        parts.append(text_block([kind], b.cx, b.y + 13, 10, css="type", fill=MUTED))
        body = Box(b.x, b.y + 14, b.w, b.h - 14)
    if children:
        parts.append(top_label(el.name, body, 12, bold=False, dy=-2))
    else:
        parts.append(centred(el.name, body, 12))
    return Drawn("generic", "".join(parts), b)


DRAWERS: dict[str, Drawer] = {
    **dict.fromkeys(CLASSIFIERS, classifier),
    **dict.fromkeys(MEMBERS, member),
    "Package": package,
    "BPMNPool": pool,
    "BPMNSwimlane": lane,
    **dict.fromkeys(("BPMNTask", "BPMNSubprocess", "BPMNTransaction", "BPMNCallActivity"), task),
    **dict.fromkeys(("BPMNStartEvent", "BPMNIntermediateEvent", "BPMNEndEvent"), event),
    "BPMNGateway": gateway,
    "BPMNDataObject": data_object,
    "BPMNDataStore": data_store,
    "BPMNAnnotation": annotation,
    "BPMNGroup": group,
    "BPMNConversation": conversation,
    "Activity": activity,
    "ActivityActionNode": action,
    "ActivityObjectNode": action,
    "ActivityInitialNode": initial,
    "ActivityFinalNode": final,
    "ActivityMergeNode": decision,
    "ActivityDecisionNode": decision,
    "ActivityForkNode": bar,
    "ActivityForkNodeHorizontal": bar,
    "UseCase": use_case,
    "UseCaseActor": actor,
    "UseCaseSystem": system,
}
CONTAINERS = frozenset({"Package", "BPMNPool", "BPMNSwimlane", "BPMNGroup", "Activity",
                        "UseCaseSystem"})


def draw_element(element: Element, box: Box, children: Sequence[Element]) -> Drawn:
    return DRAWERS.get(element.type, generic)(element, box, children)


__all__ = ["CONTAINERS", "MEMBERS", "SIDES", "Box", "Drawn", "caption", "draw_element"]
