"""The diagrams of the report as headless Chromium draws them, checked against the diagram
JSON, with screenshots: a class diagram (the example scenario) and a BPMN diagram
(``bpmn_loan`` from ``../shared/conformance``, skipped with the reason when absent).

In the real rendering: every element is drawn inside its bounds (captions of events and
gateways sit beside them), every relationship starts at its source and ends at its target,
the outlined elements are exactly those the feedback names (``elementIds``) with the
legend's numbers, the example solution is drawn beside, nothing logs an error, no script
runs and the page's Content-Security-Policy is the one it was written with.

Screenshots go to the test's ``tmp_path`` and, when ``EUNOMIA_SCREENSHOT_DIR`` is set,
there too.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.report.conftest import FAST, TASK, XSS_CASE, Runs
from tests.support.browser import Watched
from tests.support.scripted_server import Reply, ScriptedServer, case_names, usage

from eunomia.api import RunOptions, load_all, run_scenarios
from eunomia.report.html import CSP, write_report
from eunomia.scenarios import discover
from eunomia.store import RunStore
from eunomia.targets.athena import AthenaTarget
from eunomia.viewer import render_run

ROOT = Path(__file__).resolve().parents[2]
BPMN_LOAN = (ROOT.parent / "shared" / "conformance" / "eunomia_testbench" / "scenarios"
             / "bpmn_loan")
TOLERANCE = 3.0
"""Diagram units a shape may pass its bounds by (half a stroke, rounding)."""

_DRAWING = """(arg) => {
  const svg = document.querySelector(arg.selector);
  const ctm = svg.getScreenCTM();
  const at = (x, y) => { const p = svg.createSVGPoint(); p.x = x; p.y = y;
                         return p.matrixTransform(ctm); };
  const scale = ctm.a, tol = arg.tol * scale;
  const outside = [], drawn = [];
  for (const g of svg.querySelectorAll('g.el[data-id]')) {
    const id = g.dataset.id, b = arg.elements[id];
    drawn.push(id);
    if (!b) { outside.push([id, 'not in the diagram']); continue; }
    const p0 = at(b.x, b.y), p1 = at(b.x + b.width, b.y + b.height);
    const shapes = 'rect, path, circle, ellipse, polygon, polyline, line, text';
    for (const s of g.querySelectorAll(shapes)) {
      if (s.closest('.caption') || s.closest('g.el') !== g) continue;
      const r = s.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < p0.x - tol || r.top < p0.y - tol || r.right > p1.x + tol ||
          r.bottom > p1.y + tol)
        outside.push([id, s.tagName, s.getAttribute('class'), (s.textContent || '').slice(0, 30)]);
    }
  }
  const ends = {};
  for (const g of svg.querySelectorAll('g.rel[data-id]')) {
    const line = g.querySelector('.line');
    let pts = [];
    if (line && line.points) pts = [...line.points].map(p => [p.x, p.y]);
    else if (line) { const n = line.getTotalLength(); pts = [0, n].map(
      l => { const p = line.getPointAtLength(l); return [p.x, p.y]; }); }
    ends[g.dataset.id] = {first: pts[0], last: pts[pts.length - 1],
                          source: g.dataset.source, target: g.dataset.target};
  }
  const box = svg.getBoundingClientRect();
  return {outside, drawn, ends, width: box.width, height: box.height,
          highlighted: [...svg.querySelectorAll('g.hl')].map(g => [g.dataset.id, g.dataset.badge]),
          marks: svg.querySelectorAll('g.hl-mark').length};
}"""


def _gap(point: list[float], b: dict[str, float]) -> float:
    """How far ``point`` is from the box ``b`` (0 inside or on it)."""
    dx = max(b["x"] - point[0], 0.0, point[0] - (b["x"] + b["width"]))
    dy = max(b["y"] - point[1], 0.0, point[1] - (b["y"] + b["height"]))
    return float((dx * dx + dy * dy) ** 0.5)


def _save(page: Watched, tmp_path: Path, name: str, selector: str | None = None) -> Path:
    path = tmp_path / f"{name}.png"
    clip = None
    page.page.evaluate("() => scrollTo(0, 0)")
    if selector is not None:  # the element in the page, below the sticky contents bar
        clip = page.page.evaluate(
            "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
            " return {x: r.left + scrollX - 8, y: r.top + scrollY - 8,"
            " width: r.width + 16, height: r.height + 16}; }", selector)
    page.page.screenshot(path=str(path), full_page=True, clip=clip)
    extra = os.environ.get("EUNOMIA_SCREENSHOT_DIR")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)
    assert path.stat().st_size > 10_000  # a picture, not a blank
    return path


def _open(page: Watched, case: str) -> str:
    """Open the first drawing of ``case`` (a worst or failed case); its selector."""
    selector = f'details.case[data-case="{case}"]'
    page.page.evaluate("(s) => { const d = document.querySelector(s); d.open = true;"
                       " d.scrollIntoView(); }", selector)
    return selector


def _check_drawing(page: Watched, selector: str, diagram: dict[str, Any],
                   feedback_ids: list[str]) -> dict[str, Any]:
    """Every element in its bounds, every relationship joined to its ends, the highlights
    those of the feedback; returns what the page measured."""
    elements = {k: e["bounds"] for k, e in diagram["elements"].items()}
    got = page.page.evaluate(_DRAWING, {"selector": f"{selector} figure.submission svg",
                                        "elements": elements, "tol": TOLERANCE})
    assert got["width"] > 300 and got["height"] > 80, got
    assert sorted(got["drawn"]) == sorted(elements)
    assert got["outside"] == []
    assert sorted(got["ends"]) == sorted(diagram["relationships"])
    for rel, end in got["ends"].items():
        r = diagram["relationships"][rel]
        assert (end["source"], end["target"]) == (r["source"]["element"],
                                                  r["target"]["element"])
        assert _gap(end["first"], elements[end["source"]]) <= TOLERANCE, (rel, end)
        assert _gap(end["last"], elements[end["target"]]) <= TOLERANCE, (rel, end)
    known = [i for i in dict.fromkeys(feedback_ids)
             if i in diagram["elements"] or i in diagram["relationships"]]
    assert sorted(got["highlighted"]) == sorted(
        [i, str(n)] for n, i in enumerate(known, start=1))
    assert got["marks"] == len(known)
    example = page.page.locator(f"{selector} figure.example svg").first.bounding_box()
    assert example is not None and example["width"] > 300 and example["height"] > 80
    return got


def _check_page(page: Watched) -> None:
    page.check_clean()
    meta = page.page.locator('meta[http-equiv="Content-Security-Policy"]')
    assert meta.count() == 1 and meta.get_attribute("content") == CSP
    assert page.page.locator("script").count() == 0


def _feedback_ids(store_path: Path, run: str, case: str, repeat: int = 0) -> list[str]:
    store = RunStore(store_path)
    try:
        info = store.require_run(run)
        row = next(r for r in store.iter_cases(info) if (r.case_name, r.repeat) == (case, repeat))
        assert row.response is not None
        response = store.get_json(row.response)
    finally:
        store.close()
    return [i for item in response["feedback"] for i in item["elementIds"]]


# --- a class diagram --------------------------------------------------------------------
def test_class_diagram_case_in_chromium(page: Watched, runs: Runs, tmp_path: Path) -> None:
    store = RunStore(runs.store)
    try:
        html = write_report(render_run(store, "r1"), tmp_path / "r1.html")
    finally:
        store.close()
    page.goto(html.as_uri())
    diagram = json.loads((runs.scenarios / "project_management" / "test_cases"
                          / f"{XSS_CASE}.json").read_text(encoding="utf-8"))
    selector = _open(page, XSS_CASE)
    ids = _feedback_ids(runs.store, "r1", XSS_CASE)
    assert TASK in ids  # named by the feedback, not in this diagram: nothing outlined
    got = _check_drawing(page, selector, diagram, ids)
    assert got["highlighted"]
    legend = page.page.locator(f"{selector} ol.legend .mark")
    assert legend.count() >= 1 and legend.first.is_visible()
    _save(page, tmp_path, "report_class_case", selector)
    failed = _open(page, "extra_class")
    extra = json.loads((runs.scenarios / "project_management" / "test_cases"
                        / "extra_class.json").read_text(encoding="utf-8"))
    _check_drawing(page, failed, extra, [])
    _save(page, tmp_path, "report_class_failed_case", failed)
    _save(page, tmp_path, "report_class_page")
    _check_page(page)


# --- a BPMN diagram ---------------------------------------------------------------------
def _bpmn_answer(names: dict[int, str], folder: Path, expected: dict[str, tuple[int, ...]]
                 ) -> Any:
    """Feedback naming a gateway, a task with its pool, and a flow of the submission, and
    the expected instructions but the first (every case is a worst case)."""
    def answer(request: Any) -> Reply:
        model = json.loads(request.json["submission"]["model"])
        by_type: dict[str, list[str]] = {}
        for key, element in model["elements"].items():
            by_type.setdefault(element["type"], []).append(key)
        flows = sorted(model["relationships"])
        named = [by_type.get("BPMNGateway", [])[:1],
                 by_type.get("BPMNTask", [])[:1] + by_type.get("BPMNPool", [])[:1],
                 flows[:1], ["not-in-the-diagram"]]
        sgis = expected[names[request.submission_id]][1:]
        data = [{"title": f"Feedback {k}", "description": f"About <b>{k}</b>",
                 "credits": 0.5, "structuredGradingInstructionId": sgi,
                 "elementIds": named[k] if k < len(named) else []}
                for k, sgi in enumerate(sgis)]
        return Reply(200, {"data": data, "meta": {"llmRequests": [usage("gpt-4o", 900, 150)]}})

    return answer


@pytest.fixture(scope="module")
def bpmn(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A run of bpmn_loan (one case always failing); (report file, scenario folder)."""
    if not BPMN_LOAN.is_dir():
        pytest.skip(f"{BPMN_LOAN} is not there (the shared conformance data)")
    base = tmp_path_factory.mktemp("bpmn")
    folder = base / "scenarios" / "bpmn_loan"
    shutil.copytree(BPMN_LOAN, folder)
    shutil.copy(BPMN_LOAN.parent / "llm_cost.yml", base / "scenarios" / "llm_cost.yml")
    sources, _ = discover([folder])
    loaded, _ = load_all(sources)
    scenario = loaded[0].scenario
    names = case_names(scenario)
    expected = {c.name: c.expected for c in scenario.test_cases}
    server = ScriptedServer(default=_bpmn_answer(names, folder, expected), names=names)
    server.script("missing_start_event", [Reply(500, text="boom")])
    with server.in_thread(), ThreadPoolExecutor(1) as pool:
        # a thread of its own: Playwright's loop may already run in this one
        pool.submit(asyncio.run, run_scenarios(
            loaded, AthenaTarget(server.url), run_name="bpmn", results_dir=base / "results",
            options=RunOptions(2, FAST), use_cache=False)).result()
    store = RunStore(base / "results" / "eunomia.db")
    try:
        html = write_report(render_run(store, "bpmn"), base / "bpmn.html")
    finally:
        store.close()
    return html, folder


def test_bpmn_case_in_chromium(page: Watched, bpmn: tuple[Path, Path], tmp_path: Path) -> None:
    html, folder = bpmn
    page.goto(html.as_uri())
    worst = page.page.locator("details.case.worst")
    assert worst.count() == 10  # the report's limit: every case misses one instruction
    case = str(worst.first.get_attribute("data-case"))
    diagram = json.loads((folder / "test_cases" / f"{case}.json").read_text(encoding="utf-8"))
    selector = _open(page, case)
    ids = _feedback_ids(html.parent / "results" / "eunomia.db", "bpmn", case)
    got = _check_drawing(page, selector, diagram, ids)
    assert len(got["highlighted"]) == 4  # a gateway, a task, a pool and a flow
    types = {diagram["elements"].get(i, {}).get("type") for i, _ in got["highlighted"]}
    assert {"BPMNGateway", "BPMNTask", "BPMNPool"} <= types
    assert page.page.locator(f"{selector} .feedback .i", has_text="not in the diagram"
                             ).count() >= 1
    _save(page, tmp_path, "report_bpmn_case", selector)
    failed = _open(page, "missing_start_event")
    start = json.loads((folder / "test_cases" / "missing_start_event.json"
                        ).read_text(encoding="utf-8"))
    _check_drawing(page, failed, start, [])
    _save(page, tmp_path, "report_bpmn_failed_case", failed)
    _save(page, tmp_path, "report_bpmn_page")
    _check_page(page)
