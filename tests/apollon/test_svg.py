"""Tests for the SVG rendering of Apollon diagrams (eunomia.apollon.render_svg).

The SVG is parsed back with xml.etree: every element has a group carrying its id whose
shapes lie inside its bounds, every relationship's line starts and ends at its elements,
highlights are numbered, all text is escaped and nothing executable is emitted.
"""

from __future__ import annotations

import json
import math
import random
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eunomia.apollon import parse_diagram, render_svg

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
BPMN_LOAN = SHARED / "conformance" / "eunomia_testbench" / "scenarios" / "bpmn_loan"
EXERCISE_6 = SHARED / "peers" / "athena" / "playground" / "data" / "example" / "exercise-6.json"
PROJECT = ROOT / "examples" / "scenarios" / "project_management"
NS = "{http://www.w3.org/2000/svg}"
XSS = "<script>alert(1)</script>"
Box = tuple[float, float, float, float]


# ---- diagram builders --------------------------------------------------------------------


def el(id_: str, type_: str, name: str, x: float, y: float, w: float, h: float,
       owner: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": id_, "name": name, "type": type_, "owner": owner,
            "bounds": {"x": x, "y": y, "width": w, "height": h}, **extra}


def rel(id_: str, type_: str, source: str, target: str, path: list[tuple[float, float]] | None,
        name: str = "", origin: tuple[float, float] = (0, 0), **extra: Any) -> dict[str, Any]:
    """A relationship; ``path`` is absolute here and stored relative to ``origin``."""
    data: dict[str, Any] = {
        "id": id_, "name": name, "type": type_, "owner": None,
        "bounds": {"x": origin[0], "y": origin[1], "width": 1, "height": 1},
        "source": {"element": source, "direction": "Right", **extra.pop("src", {})},
        "target": {"element": target, "direction": "Left", **extra.pop("tgt", {})},
        "isManuallyLayouted": False, **extra}
    if path is not None:
        data["path"] = [{"x": x - origin[0], "y": y - origin[1]} for x, y in path]
    return data


def v3(type_: str, elements: list[dict[str, Any]], rels: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": "3.0.0", "type": type_, "size": {"width": 1000, "height": 800},
            "interactive": {"elements": {}, "relationships": {}},
            "elements": {e["id"]: e for e in elements},
            "relationships": {r["id"]: r for r in rels}, "assessments": {}}


def as_v2(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "version": "2.0.0", "elements": list(data["elements"].values()),
            "relationships": list(data["relationships"].values()), "assessments": []}


def class_diagram(name: str = "Project") -> dict[str, Any]:
    elements = [
        el("pkg", "Package", "planning", 0, 0, 700, 220),
        el("project", "Class", name, 20, 40, 220, 130, "pkg", attributes=["a1", "a2"],
           methods=["m1"]),
        el("a1", "ClassAttribute", "+ name: String", 20, 80, 220, 30, "project"),
        el("a2", "ClassAttribute", "+ deadline: Date", 20, 110, 220, 30, "project"),
        el("m1", "ClassMethod", "+ start(): void", 20, 140, 220, 30, "project"),
        el("task", "Class", "Task", 440, 40, 200, 40, "pkg"),
        el("iface", "Interface", "Schedulable", 20, 300, 220, 80, methods=["m2"]),
        el("m2", "ClassMethod", "+ schedule(): void", 20, 350, 220, 30, "iface"),
        el("prio", "Enumeration", "Priority", 440, 300, 200, 110, attributes=["v1", "v2"]),
        el("v1", "ClassAttribute", "LOW", 440, 350, 200, 30, "prio"),
        el("v2", "ClassAttribute", "HIGH", 440, 380, 200, 30, "prio"),
        el("abs", "AbstractClass", "Base", 760, 40, 160, 50),
    ]
    rels = [
        rel("r1", "ClassComposition", "task", "project", [(440, 60), (240, 60)], "has",
            origin=(240, 60), src={"multiplicity": "0..*", "role": "tasks"},
            tgt={"multiplicity": "1"}),
        rel("r2", "ClassRealization", "project", "iface", [(130, 170), (130, 300)],
            origin=(130, 170)),
        rel("r3", "ClassInheritance", "task", "abs", [(640, 60), (760, 60)], origin=(640, 60)),
        rel("r4", "ClassDependency", "task", "prio", [(540, 80), (540, 300)], origin=(540, 80)),
        rel("r5", "ClassBidirectional", "iface", "prio", [(240, 340), (440, 340)],
            origin=(240, 340)),
        rel("r6", "ClassAggregation", "abs", "prio", [(840, 90), (840, 355), (640, 355)],
            origin=(640, 90)),
        rel("r7", "ClassUnidirectional", "abs", "iface", None),
    ]
    return v3("ClassDiagram", elements, rels)


def bpmn_diagram() -> dict[str, Any]:
    e = [
        el("pool", "BPMNPool", "Bank", 0, 0, 1100, 300),
        el("lane", "BPMNSwimlane", "Clerk", 40, 0, 1060, 300, "pool"),
        el("start", "BPMNStartEvent", "Form in", 80, 50, 40, 40, "lane", eventType="message"),
        el("t1", "BPMNTask", "Check the application form carefully", 160, 40, 140, 60, "lane",
           taskType="user", marker="loop"),
        el("gx", "BPMNGateway", "Ok?", 340, 45, 50, 50, "lane", gatewayType="exclusive"),
        el("gp", "BPMNGateway", "", 430, 45, 50, 50, "lane", gatewayType="parallel"),
        el("gi", "BPMNGateway", "", 520, 45, 50, 50, "lane", gatewayType="inclusive"),
        el("ge", "BPMNGateway", "", 610, 45, 50, 50, "lane", gatewayType="event-based"),
        el("gc", "BPMNGateway", "", 700, 45, 50, 50, "lane", gatewayType="complex"),
        el("mid", "BPMNIntermediateEvent", "Wait", 790, 50, 40, 40, "lane",
           eventType="timer-catch"),
        el("end", "BPMNEndEvent", "Done", 870, 50, 40, 40, "lane", eventType="default"),
        el("sub", "BPMNSubprocess", "Sub", 160, 160, 120, 70, "lane"),
        el("tx", "BPMNTransaction", "Pay", 320, 160, 120, 70, "lane"),
        el("call", "BPMNCallActivity", "Call", 480, 160, 120, 70, "lane"),
        el("doc", "BPMNDataObject", "Form", 640, 170, 40, 50, "lane"),
        el("db", "BPMNDataStore", "Archive", 720, 170, 50, 50, "lane"),
        el("conv", "BPMNConversation", "Talk", 820, 175, 50, 40, "lane"),
        el("note", "BPMNAnnotation", "Line one\nline two", 0, 340, 160, 60),
        el("grp", "BPMNGroup", "Group", 200, 330, 300, 100),
        el("odd", "BPMNMysteryThing", "Odd", 560, 340, 170, 60),
    ]
    r = [
        rel("f1", "BPMNFlow", "start", "t1", [(120, 70), (160, 70)], origin=(120, 70),
            flowType="sequence"),
        rel("f2", "BPMNFlow", "t1", "gx", [(300, 70), (340, 70)], "go", origin=(300, 70),
            flowType="sequence"),
        rel("f3", "BPMNFlow", "gx", "sub", [(365, 95), (365, 130), (220, 130), (220, 160)],
            "no", origin=(220, 95), flowType="sequence"),
        rel("f4", "BPMNFlow", "note", "t1", [(80, 340), (230, 100)], origin=(80, 100),
            flowType="association"),
        rel("f5", "BPMNFlow", "tx", "db", [(440, 195), (745, 195), (745, 170)],
            origin=(440, 170), flowType="data association"),
        rel("f6", "BPMNFlow", "call", "end", [(540, 230), (540, 260), (890, 260), (890, 90)],
            origin=(540, 90), flowType="message"),
    ]
    return v3("BPMN", e, r)


def activity_diagram() -> dict[str, Any]:
    e = [
        el("act", "Activity", "Handle order", 0, 0, 400, 420),
        el("init", "ActivityInitialNode", "", 180, 30, 40, 40, "act"),
        el("recv", "ActivityActionNode", "Receive order", 140, 90, 120, 50, "act"),
        el("ok", "ActivityMergeNode", "valid?", 160, 160, 80, 60, "act"),
        el("fork", "ActivityForkNodeHorizontal", "", 100, 240, 200, 10, "act"),
        el("bar", "ActivityForkNode", "", 20, 240, 10, 60, "act"),
        el("inv", "ActivityObjectNode", "Invoice", 140, 270, 120, 50, "act"),
        el("end", "ActivityFinalNode", "", 180, 350, 40, 40, "act"),
    ]
    r = [rel(f"c{i}", "ActivityControlFlow", s, t, None)
         for i, (s, t) in enumerate([("init", "recv"), ("recv", "ok"), ("ok", "fork"),
                                     ("fork", "inv"), ("inv", "end")])]
    return v3("ActivityDiagram", e, r)


def other_diagram() -> dict[str, Any]:
    e = [el("actor", "UseCaseActor", "Student", 0, 0, 90, 140),
         el("uc", "UseCase", "Borrow book", 200, 40, 160, 60),
         el("place", "PetriNetPlace", "p1", 0, 200, 60, 60, amountOfTokens=2),
         el("sys", "UseCaseSystem", "Library", 180, 0, 220, 160)]
    r = [rel("u1", "UseCaseAssociation", "actor", "uc", None),
         rel("u2", "UseCaseInclude", "uc", "place", None),
         rel("u3", "WeirdLink", "gone", "uc", None)]
    return v3("UseCaseDiagram", e, r)


# ---- reading the SVG back ------------------------------------------------------------------


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", text)]


def geometry(node: ET.Element) -> list[tuple[float, float]]:
    """The points that bound a drawn shape (control points included for curves)."""
    tag, a = node.tag.removeprefix(NS), node.attrib
    if tag == "rect":
        x, y, w, h = (float(a[k]) for k in ("x", "y", "width", "height"))
        return [(x, y), (x + w, y + h)]
    if tag in ("circle", "ellipse"):
        cx, cy = float(a["cx"]), float(a["cy"])
        rx, ry = float(a.get("rx", a.get("r", 0))), float(a.get("ry", a.get("r", 0)))
        return [(cx - rx, cy - ry), (cx + rx, cy + ry)]
    if tag in ("polyline", "polygon"):
        v = numbers(a["points"])
        return list(zip(v[::2], v[1::2], strict=True))
    if tag == "path":
        assert not re.search(r"[a-ln-y]", a["d"]), a["d"]  # absolute M/L/C/Z only
        v = numbers(a["d"])
        return list(zip(v[::2], v[1::2], strict=True))
    return []


def groups(root: ET.Element, css: str) -> dict[str, ET.Element]:
    found = [g for g in root.iter(NS + "g") if g.get("class", "").split()[:1] == [css]]
    return {g.attrib.get("data-id", g.attrib.get("data-for", "")): g for g in found}


def shapes(group: ET.Element) -> Iterator[ET.Element]:
    for node in group.iter():
        if node is not group and node.tag.removeprefix(NS) not in ("text", "tspan", "title", "g"):
            yield node


def near(box: Box, point: tuple[float, float]) -> float:
    x, y, w, h = box
    px, py = point
    return math.hypot(max(x - px, 0, px - x - w), max(y - py, 0, py - y - h))


def check(data: dict[str, Any], svg: str, slack: float = 0.01) -> ET.Element:
    """Every element drawn inside its bounds, every relationship connected; returns the root."""
    root = parse(svg)
    drawn, lines = groups(root, "el"), groups(root, "rel")
    elements = data["elements"]
    elements = elements if isinstance(elements, dict) else {e["id"]: e for e in elements}
    rels = data["relationships"]
    rels = rels if isinstance(rels, dict) else {r["id"]: r for r in rels}
    assert set(drawn) == set(elements) and set(lines) == set(rels)
    boxes = {k: tuple(float(v["bounds"][c]) for c in ("x", "y", "width", "height"))
             for k, v in elements.items()}
    vx, vy, vw, vh = numbers(root.attrib["viewBox"])
    for key, group in drawn.items():
        assert group.get("data-type") == elements[key]["type"]
        x, y, w, h = boxes[key]
        assert vx <= x and vy <= y and x + w <= vx + vw and y + h <= vy + vh
        parts = list(shapes(group))
        assert any("shape" in p.get("class", "") for p in parts), key
        for px, py in (pt for p in parts for pt in geometry(p)):
            assert x - slack <= px <= x + w + slack and y - slack <= py <= y + h + slack, key
    for key, group in lines.items():
        line = [n for n in group if n.get("class") == "line"]
        r = rels[key]
        src, tgt = boxes.get(r["source"]["element"]), boxes.get(r["target"]["element"])
        if src is None or tgt is None:
            continue
        pts = geometry(line[0])
        assert near(src, pts[0]) <= 0.5 and near(tgt, pts[-1]) <= 0.5, key
    assert_inert(root)
    return root


def assert_inert(root: ET.Element) -> None:
    for node in root.iter():
        assert node.tag.removeprefix(NS) not in ("script", "foreignObject", "style", "a",
                                                 "image", "use")
        for name, value in node.attrib.items():
            assert not name.lower().startswith("on") and "href" not in name.lower()
            assert "url(" not in value and "javascript:" not in value.lower()


def texts(group: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in group.iter(NS + "text")]


def render(data: dict[str, Any], **kwargs: Any) -> tuple[str, ET.Element]:
    svg = render_svg(parse_diagram(data), **kwargs)
    return svg, check(data, svg)


# ---- synthetic diagrams --------------------------------------------------------------------


def test_class_diagram_compartments_and_members() -> None:
    _, root = render(class_diagram())
    drawn = groups(root, "el")
    assert "planning" in texts(drawn["pkg"])[0]
    project = drawn["project"]
    assert texts(project) == ["Project"]
    dividers = [geometry(n) for n in project if n.get("class") == "divider"]
    assert sorted(pts[0][1] for pts in dividers) == [80, 140]  # header | attributes | methods
    assert texts(drawn["a1"]) == ["+ name: String"] and texts(drawn["m1"]) == ["+ start(): void"]
    assert texts(drawn["iface"]) == ["«interface»", "Schedulable"]
    assert texts(drawn["prio"]) == ["«enumeration»", "Priority"]
    assert texts(drawn["abs"]) == ["«abstract»", "Base"]
    assert [t.get("font-style") for t in drawn["abs"].iter(NS + "text")] == [None, "italic"]


def _heads(group: ET.Element) -> list[ET.Element]:
    return [n for n in group if n.get("class") == "head"]


def test_class_relationship_markers() -> None:
    _, root = render(class_diagram())
    lines = groups(root, "rel")
    tip = {k: geometry(next(n for n in g if n.get("class") == "line"))[-1]
           for k, g in lines.items()}
    (comp,) = _heads(lines["r1"])
    assert comp.tag == NS + "polygon" and comp.get("fill") == "#222"
    assert len(geometry(comp)) == 4 and geometry(comp)[0] == tip["r1"] == (240, 60)
    (agg,) = _heads(lines["r6"])
    assert len(geometry(agg)) == 4 and agg.get("fill") == "#fff"
    for key in ("r2", "r3"):  # realization and inheritance: hollow triangles
        (head,) = _heads(lines[key])
        assert len(geometry(head)) == 3 and head.get("fill") == "#fff"
        assert geometry(head)[0] == tip[key]
    for key in ("r4", "r7"):  # dependency and unidirectional: open arrows
        (head,) = _heads(lines[key])
        assert head.tag == NS + "polyline" and geometry(head)[1] == tip[key]
    assert _heads(lines["r5"]) == []
    dashed = {k for k, g in lines.items()
              if any(n.get("stroke-dasharray") for n in g if n.get("class") == "line")}
    assert dashed == {"r2", "r4"}
    labels = texts(lines["r1"])
    assert labels == ["has", "tasks", "0..*", "1"]


def test_relative_and_absolute_paths_and_fallback() -> None:
    data = class_diagram()
    # Stored relative to its bounds (like Apollon): (200, 0) + (240, 60) is (440, 60).
    _, root = render(data)
    line = next(n for n in groups(root, "rel")["r1"] if n.get("class") == "line")
    assert geometry(line) == [(440, 60), (240, 60)]
    # Absolute points with non-zero bounds: adding the bounds would miss both classes.
    data["relationships"]["r1"]["path"] = [{"x": 440, "y": 60}, {"x": 240, "y": 60}]
    _, root = render(data)
    line = next(n for n in groups(root, "rel")["r1"] if n.get("class") == "line")
    assert geometry(line) == [(440, 60), (240, 60)]
    # No path: a straight line between the centres, cut at the borders of abs and iface.
    r7 = next(n for n in groups(root, "rel")["r7"] if n.get("class") == "line")
    (x1, y1), (x2, y2) = geometry(r7)
    assert (x1, y1) != (x2, y2) and y1 == 90 and y2 == 300  # bottom of abs, top of iface


def test_bpmn_shapes() -> None:
    _, root = render(bpmn_diagram())
    drawn = groups(root, "el")
    kinds = {k: g.get("class", "").split()[1] for k, g in drawn.items()}
    assert kinds["t1"] == "task" and kinds["odd"] == "generic" and kinds["pool"] == "pool"
    circles = {k: [n for n in drawn[k] if n.tag == NS + "circle" and "shape" in n.get("class", "")]
               for k in ("start", "mid", "end")}
    assert [len(v) for v in circles.values()] == [1, 2, 1]  # the intermediate one is double
    assert float(circles["end"][0].get("stroke-width", 0)) > float(
        circles["start"][0].get("stroke-width", 0))
    rect = next(n for n in drawn["t1"] if n.tag == NS + "rect")
    assert float(rect.get("rx", 0)) == 10
    assert texts(drawn["t1"])[0].startswith("Check the")  # wrapped into lines
    assert len(list(drawn["t1"].iter(NS + "tspan"))) >= 2
    icons = {k: [n.tag.removeprefix(NS) for n in drawn[k] if n.get("class") == "icon"]
             for k in ("gx", "gp", "gi", "ge", "gc")}
    assert icons["gx"] == ["polyline"] * 2 and icons["gp"] == ["polyline"] * 2
    assert icons["gi"] == ["circle"] and "polygon" in icons["ge"]
    assert icons["gc"] == ["polyline"] * 4
    for key in ("pool", "lane"):
        (label,) = drawn[key].iter(NS + "text")
        assert label.get("transform", "").startswith("rotate(-90")
    assert texts(drawn["gx"]) == ["Ok?"] and texts(drawn["doc"]) == ["Form"]
    assert texts(drawn["note"]) == ["Line oneline two"]  # two tspans
    assert any(n.get("stroke-dasharray") for n in drawn["grp"])
    assert "«BPMNMysteryThing»" in texts(drawn["odd"]) and "Odd" in texts(drawn["odd"])
    flows = groups(root, "rel")
    seq, msg = _heads(flows["f1"]), _heads(flows["f6"])
    assert [n.tag.removeprefix(NS) for n in seq] == ["polygon"] and seq[0].get("fill") == "#222"
    assert sorted(n.tag.removeprefix(NS) for n in msg) == ["circle", "polygon"]
    assert _heads(flows["f4"]) == [] and len(_heads(flows["f5"])) == 1
    assert "no" in texts(flows["f3"])


def test_caption_moves_off_a_flow_line() -> None:
    data = bpmn_diagram()
    _, root = render(data)
    caption = next(groups(root, "el")["gx"].iter(NS + "text"))
    assert float(caption.get("y", 0)) < 45  # the "no" flow leaves downwards: caption above
    caption = next(groups(root, "el")["end"].iter(NS + "text"))
    assert float(caption.get("y", 0)) < 50  # the message flow arrives from below


def test_activity_and_other_types() -> None:
    _, root = render(activity_diagram())
    drawn = groups(root, "el")
    assert drawn["init"][1].get("fill") == "#222"  # a filled dot
    assert [n.tag.removeprefix(NS) for n in drawn["ok"] if n.get("class") == "shape"] == [
        "polygon"]
    assert drawn["fork"][1].get("fill") == "#222" and drawn["bar"][1].get("fill") == "#222"
    for group in groups(root, "rel").values():
        assert len(_heads(group)) == 1
    _, root = render(other_diagram())
    drawn = groups(root, "el")
    assert drawn["uc"][1].tag == NS + "ellipse" and texts(drawn["actor"]) == ["Student"]
    kind, name = texts(drawn["place"])  # a generic box: its type (cut to fit) and name
    assert kind.startswith("«Petri") and kind.endswith("…") and name == "p1"
    assert "«include»" in texts(groups(root, "rel")["u2"])
    assert [n.tag for n in groups(root, "rel")["u3"]] == [NS + "title"]  # nothing to connect


def test_highlights_outline_number_and_explain() -> None:
    highlight = {"missing-id": ["ignored"], "task": ["Task is not a whole", XSS],
                 "r1": ["Wrong kind of association"], "a2": []}
    _, root = render(class_diagram(), highlight=highlight)
    overlays = groups(root, "hl-mark")
    assert list(overlays) == ["task", "r1", "a2"]
    assert [o.get("data-badge") for o in overlays.values()] == ["1", "2", "3"]
    title = overlays["task"].find(NS + "title")
    assert title is not None and title.text == f"[1] Task is not a whole\n[1] {XSS}"
    drawn = groups(root, "el")
    assert "hl" in drawn["task"].get("class", "").split() and drawn["task"].get("data-badge") == "1"
    own = drawn["task"].find(NS + "title")
    assert own is not None and own.text is not None and "Task is not a whole" in own.text
    assert "hl" not in drawn["project"].get("class", "").split()
    outline = next(n for n in overlays["task"] if n.get("class") == "outline")
    (x0, y0), (x1, y1) = geometry(outline)
    assert (x0, y0, x1, y1) == (437, 37, 643, 83) and outline.get("stroke") == "#d9480f"
    assert texts(overlays["r1"]) == ["2"]
    r1 = groups(root, "rel")["r1"]
    assert r1.get("class") == "rel hl" and r1.get("data-badge") == "2"
    halo = next(n for n in r1 if n.get("class") == "outline")  # under the line, same points
    assert geometry(halo) == [(440, 60), (240, 60)] and list(r1).index(halo) < len(r1) - 3
    assert "ignored" not in render_svg(parse_diagram(class_diagram()), highlight=highlight)


def test_hostile_text_is_escaped_and_inert() -> None:
    data = class_diagram(XSS)
    data["elements"]["task"]["name"] = '" onload="alert(1)'
    data["elements"]["a1"]["name"] = "bad\x00char\x1b & <b>"
    data["relationships"]["r1"]["name"] = "<img src=x onerror=alert(1)>"
    svg, root = render(data, title=XSS, highlight={"project": [XSS, "]]> <!--"]})
    assert "<script" not in svg and "<img" not in svg and "\x00" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    drawn = groups(root, "el")
    assert texts(drawn["project"]) == [XSS]
    assert texts(drawn["a1"]) == ["bad\ufffdchar\ufffd & <b>"]
    heading = root.find(NS + "title")
    assert heading is not None and heading.text == XSS


def test_hostile_ids_and_types() -> None:
    evil = '"><script>alert(1)</script>'
    data = v3("X", [el(evil, evil, evil, 0, 0, 100, 50)], [rel("r", evil, evil, evil, None)])
    _, root = render(data)
    assert list(groups(root, "el")) == [evil]


def test_huge_names_stay_cheap() -> None:
    huge = "x" * 200_000 + " word" * 50_000
    data = v3("BPMN", [el("t", "BPMNTask", huge, 0, 0, 140, 60),
                       el("n", "BPMNAnnotation", huge, 0, 100, 1400, 600),
                       el("g", "BPMNGateway", huge, 300, 0, 40, 40)], [])
    start = time.perf_counter()
    svg, _ = render(data, highlight={"t": [huge]})
    assert time.perf_counter() - start < 1.0 and len(svg) < 50_000


def test_versions_order_and_determinism() -> None:
    for build in (class_diagram, bpmn_diagram, activity_diagram, other_diagram):
        data = build()
        expected = render_svg(parse_diagram(data))
        assert render_svg(parse_diagram(as_v2(data))) == expected
        check(as_v2(data), expected)
        rng = random.Random(7)
        for _ in range(3):
            shuffled = dict(data)
            for key in ("elements", "relationships"):
                items = list(data[key].items())
                rng.shuffle(items)
                shuffled[key] = dict(items)
            assert render_svg(parse_diagram(shuffled)) == expected


def test_empty_and_degenerate_diagrams() -> None:
    svg = render_svg(parse_diagram({"version": "3.0.0", "type": "ClassDiagram"}))
    root = parse(svg)
    assert [t for g in [root] for t in texts(g)] == ["empty diagram"]
    assert float(root.get("width", 0)) < 400 and float(root.get("height", 0)) < 200
    weird = v3("ClassDiagram", [
        el("nan", "Class", "NaN", math.nan, math.inf, -5, math.nan),
        el("a", "Package", "A", 0, 0, 50, 50, owner="b"),
        el("b", "Package", "B", 0, 0, 50, 50, owner="a"),
        el("orphan", "ClassAttribute", "x: int", 0, 60, 100, 30, owner="gone"),
    ], [rel("r", "ClassInheritance", "a", "b", None)])
    weird["relationships"]["r"]["path"] = [{"x": "1"}, None, 3]
    root = parse(render_svg(parse_diagram(weird)))
    assert set(groups(root, "el")) == {"nan", "a", "b", "orphan"} and "NaN" not in root.attrib[
        "viewBox"]
    assert_inert(root)


def test_long_names_are_cut_to_fit() -> None:
    data = class_diagram("A" + "VeryLongClassName" * 6)
    data["elements"]["a1"]["name"] = "+ " + "x" * 200
    _, root = render(data)
    drawn = groups(root, "el")
    (name,) = texts(drawn["project"])
    assert name.endswith("…") and 10 < len(name) < 40
    (attr,) = texts(drawn["a1"])
    assert attr.endswith("…") and len(attr) < 40


def test_title_and_max_width() -> None:
    _, root = render(bpmn_diagram(), title="Submission 7", max_width=500)
    *_, vw, vh = numbers(root.attrib["viewBox"])
    assert float(root.attrib["width"]) == 500
    assert math.isclose(float(root.attrib["height"]), vh * 500 / vw, abs_tol=0.01)
    assert texts(root)[0] == "Submission 7" and root.attrib["aria-label"] == "Submission 7"
    wide = parse(render_svg(parse_diagram(bpmn_diagram()), max_width=5000))
    assert float(wide.attrib["width"]) == numbers(wide.attrib["viewBox"])[2]


def test_two_hundred_elements_render_fast() -> None:
    elements = [el(f"t{i}", "BPMNTask", f"Task number {i}", 160 * (i % 20), 100 * (i // 20),
                   120, 60) for i in range(100)]
    elements += [el(f"g{i}", "BPMNGateway", f"Gate {i}?", 160 * (i % 20) + 130,
                    100 * (i // 20) + 5, 30, 30, gatewayType="exclusive") for i in range(100)]
    rels = [rel(f"f{i}", "BPMNFlow", f"t{i}", f"g{i}", None, flowType="sequence")
            for i in range(100)]
    diagram = parse_diagram(v3("BPMN", elements, rels))
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        render_svg(diagram)
        timings.append(time.perf_counter() - start)
    assert min(timings) < 0.05, timings
    check(v3("BPMN", elements, rels), render_svg(diagram))


# ---- real diagrams ---------------------------------------------------------------------------


def _real() -> list[tuple[str, dict[str, Any]]]:
    cases = [(f"project_management/{p.stem}", json.loads(p.read_text(encoding="utf-8")))
             for p in [PROJECT / "example_solution.json",
                       *sorted((PROJECT / "test_cases").glob("*.json"))]]
    if BPMN_LOAN.is_dir():
        cases += [(f"bpmn_loan/{p.stem}", json.loads(p.read_text(encoding="utf-8")))
                  for p in [BPMN_LOAN / "example_solution.json",
                            *sorted((BPMN_LOAN / "test_cases").glob("*.json"))]]
    if EXERCISE_6.is_file():
        exercise = json.loads(EXERCISE_6.read_text(encoding="utf-8"))
        cases += [(f"exercise-6/{s['id']}", json.loads(s["model"]))
                  for s in exercise["submissions"]]
    return cases


def test_real_data_present() -> None:
    names = [name for name, _ in _real()]
    assert sum(n.startswith("project_management/") for n in names) >= 10
    if not BPMN_LOAN.is_dir() or not EXERCISE_6.is_file():
        pytest.skip(f"shared data not found under {SHARED}")
    assert sum(n.startswith("bpmn_loan/") for n in names) == 38
    assert sum(n.startswith("exercise-6/") for n in names) == 39


@pytest.mark.parametrize(("name", "data"), _real(), ids=[n for n, _ in _real()])
def test_real_diagram_every_element_drawn(name: str, data: dict[str, Any]) -> None:
    first = next(iter(data["elements"]), None)
    svg, root = render(data, highlight={first: ["checked"]} if first else None, title=name)
    assert len(groups(root, "el")) == len(data["elements"]) > 0
    assert len(groups(root, "hl-mark")) == 1
    assert svg == render_svg(parse_diagram(data), highlight={first: ["checked"]}, title=name)
