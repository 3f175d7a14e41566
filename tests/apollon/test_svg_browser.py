"""The SVG of a class diagram and of a BPMN case as Chromium draws them.

Uses the browser fixtures of the report tests (Debian's headless Chromium driven by
Playwright; skipped with the reason when either is missing).  In the real rendering,
with real fonts, every element's shapes and names lie inside its box, every caption and
label inside the picture, every relationship starts and ends on its elements, and the
highlights carry their feedback.  Screenshots go to the test's tmp_path, and also to
``$EUNOMIA_SCREENSHOT_DIR`` (as ``svg-class.png`` and ``svg-bpmn.png``) when it is set.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.apollon.test_svg import BPMN_LOAN, PROJECT, check
from tests.support.browser import Watched

from eunomia.apollon import parse_diagram, render_svg

# In the page: for each element group, the boxes (in CSS pixels) of its shapes and of its
# inside texts, next to its bounds mapped through the SVG's screen matrix; the same for
# captions and relationship labels against the whole picture; relationship ends against
# the shapes of their elements.
MEASURE = """([selector, bounds]) => {
  const svg = document.querySelector(selector);
  const m = svg.getScreenCTM();
  const map = (x, y) => new DOMPoint(x, y).matrixTransform(m);
  const rect = (r) => ({x: r.left, y: r.top, r: r.right, b: r.bottom});
  const out = {elements: {}, outside: [], ends: {}, picture: rect(svg.getBoundingClientRect())};
  for (const g of svg.querySelectorAll('g.el')) {
    const id = g.dataset.id, [x, y, w, h] = bounds[id];
    const a = map(x, y), b = map(x + w, y + h);
    const parts = [...g.children].filter(n => n.tagName !== 'title');
    out.elements[id] = {
      box: {x: a.x, y: a.y, r: b.x, b: b.y},
      inside: parts.filter(n => !n.classList.contains('caption'))
                   .map(n => ({tag: n.tagName, cls: n.getAttribute('class'),
                               ...rect(n.getBoundingClientRect())})),
    };
    for (const c of parts.filter(n => n.classList.contains('caption')))
      out.outside.push(rect(c.getBoundingClientRect()));
  }
  for (const t of svg.querySelectorAll('g.rel text, text.title'))
    out.outside.push(rect(t.getBoundingClientRect()));
  for (const g of svg.querySelectorAll('g.rel')) {
    const line = g.querySelector('polyline.line');
    if (!line) continue;
    const pts = [...line.points];
    const shape = (id) => {
      const s = svg.querySelector(`g.el[data-id="${CSS.escape(id)}"] .shape`);
      return s ? rect(s.getBoundingClientRect()) : null;
    };
    out.ends[g.dataset.id] = {
      first: map(pts[0].x, pts[0].y), last: map(pts.at(-1).x, pts.at(-1).y),
      source: shape(g.dataset.source), target: shape(g.dataset.target),
    };
  }
  return out;
}"""
TOLERANCE = 1.5  # px: half a stroke, and anti-aliasing


def _inside(inner: dict[str, float], outer: dict[str, float], slack: float = TOLERANCE) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["r"] <= outer["r"] + slack and inner["b"] <= outer["b"] + slack)


def _distance(p: dict[str, float], box: dict[str, float]) -> float:
    dx = max(box["x"] - p["x"], 0.0, p["x"] - box["r"])
    dy = max(box["y"] - p["y"], 0.0, p["y"] - box["b"])
    return float((dx * dx + dy * dy) ** 0.5)


def _case(data: dict[str, Any], names: list[str]) -> dict[str, list[str]]:
    """Feedback naming the elements called ``names`` (as Athena's elementIds would)."""
    by_name = {e["name"]: e["id"] for e in data["elements"].values()}
    return {by_name[n]: [f"Feedback on {n}", "<b>not markup</b>"] for n in names}


def _show(page: Watched, tmp_path: Path, name: str, data: dict[str, Any],
          highlight: dict[str, list[str]]) -> dict[str, Any]:
    svg = render_svg(parse_diagram(data), highlight=highlight, title=name, max_width=1200)
    check(data, svg)
    html = tmp_path / f"{name}.html"
    html.write_text(f"<!doctype html><meta charset=utf-8><title>{name}</title>"
                    f"<body style='margin:12px;background:#eee'>{svg}</body>", encoding="utf-8")
    page.goto(html.as_uri())
    shot = tmp_path / f"svg-{name}.png"
    page.page.locator("svg.apollon").screenshot(path=str(shot))
    assert shot.stat().st_size > 5000
    if target := os.environ.get("EUNOMIA_SCREENSHOT_DIR"):
        shutil.copyfile(shot, Path(target) / shot.name)
    bounds = {k: [e["bounds"][c] for c in ("x", "y", "width", "height")]
              for k, e in data["elements"].items()}
    measured: dict[str, Any] = page.page.evaluate(MEASURE, ["svg.apollon", bounds])
    assert set(measured["elements"]) == set(data["elements"])
    for key, found in measured["elements"].items():
        assert found["inside"], key
        for part in found["inside"]:
            assert _inside(part, found["box"]), (data["elements"][key]["name"], part, found)
    for box in measured["outside"]:
        assert _inside(box, measured["picture"], 0.5), box
    for key, end in measured["ends"].items():
        assert _distance(end["first"], end["source"]) <= TOLERANCE, key
        assert _distance(end["last"], end["target"]) <= TOLERANCE, key
    assert len(measured["ends"]) == len(data["relationships"])
    for key, labels in highlight.items():
        outline = page.page.locator(f'g.hl-mark[data-for="{key}"] title')
        assert outline.text_content() == "\n".join(f"[{list(highlight).index(key) + 1}] {t}"
                                                   for t in labels)
    assert page.page.locator("svg.apollon g.hl-mark").count() == len(highlight)
    assert page.page.locator("svg.apollon g.el.hl").count() == len(highlight)
    page.check_clean()
    return measured


def _rename(data: dict[str, Any], old: str, new: str) -> None:
    next(e for e in data["elements"].values() if e["name"] == old)["name"] = new


LONG = "with a name far too long for its box, which must be wrapped and cut to fit"


def test_class_diagram_in_chromium(page: Watched, tmp_path: Path) -> None:
    data = json.loads((PROJECT / "test_cases" / "composition_reversed.json").read_text("utf-8"))
    _rename(data, "TeamMember", "TeamMemberWithAnExtraordinarilyLongClassName")
    _rename(data, "+ email: String", f"+ email: String {LONG}")
    measured = _show(page, tmp_path, "class", data, _case(data, ["Project", "Task"]))
    assert len(measured["elements"]) == len(data["elements"]) >= 9


def test_bpmn_case_in_chromium(page: Watched, tmp_path: Path) -> None:
    path = BPMN_LOAN / "test_cases" / "missing_description_on_timed_event.json"
    if not path.is_file():
        pytest.skip(f"shared conformance data not found at {BPMN_LOAN}")
    data = json.loads(path.read_text("utf-8"))
    _rename(data, "Assess risk", f"Assess risk {LONG}")
    _rename(data, "Loan Assessor", f"Loan Assessor {LONG}")
    highlight = _case(data, ["Review request", "Standard terms applicable?", "Send quote"])
    measured = _show(page, tmp_path, "bpmn", data, highlight)
    assert len(measured["ends"]) >= 15
