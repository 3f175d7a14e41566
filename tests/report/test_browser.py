"""The report and the viewer in headless Chromium (Debian's package, driven by Playwright).

Pages load, charts render with a real size, nothing logs an error and the injected
scripts never run. Skipped, with the reason, when Chromium or Playwright is missing
(``scripts/install-chromium.sh`` installs the browser; Playwright is a dev dependency).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.report.conftest import SCRIPT_XSS, Runs
from tests.support.browser import Watched
from tests.support.served_thread import app_in_thread

from eunomia.report.html import write_report
from eunomia.store import RunStore
from eunomia.viewer import create_app, render_comparison, render_run


@pytest.fixture(scope="module")
def report_files(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("pages")
    store = RunStore(runs.store)
    try:
        return {
            "r1": write_report(render_run(store, "r1"), out / "r1.html"),
            "t1": write_report(render_run(store, "t1"), out / "t1.html"),
            "cmp": write_report(render_comparison(store, "r1", store, "r2"), out / "cmp.html"),
        }
    finally:
        store.close()


def _charts(page: Watched) -> list[dict[str, float]]:
    """Bounding boxes of every chart and of every bar (a ``<g class="bar">`` of the chart)."""
    return list(page.page.evaluate(
        """() => [...document.querySelectorAll('svg.chart, svg.chart .bar')]
             .map(e => { const r = e.getBoundingClientRect();
                         return {w: r.width, h: r.height}; })"""))


def _open_every_case(page: Any) -> int:
    return int(page.evaluate(
        "() => { const d = [...document.querySelectorAll('details')];"
        " d.forEach(x => x.open = true); return d.length; }"))


def test_report_file_renders_without_running_injections(
        page: Watched, report_files: dict[str, Path]) -> None:
    page.goto(report_files["r1"].as_uri())
    boxes = _charts(page)
    assert len(boxes) >= 3 + 7  # detection, latency and cost charts; 7 criteria bars
    assert all(b["w"] > 0 and b["h"] > 0 for b in boxes), boxes
    assert _open_every_case(page.page) >= 5  # the worst cases, with their feedback
    feedback = page.page.locator(".feedback .t").first
    assert feedback.is_visible() and SCRIPT_XSS in feedback.inner_text()
    diagram = page.page.locator("pre.diagram", has_text="[Class] <img src=x")
    assert diagram.count() >= 1 and diagram.first.is_visible()
    assert page.page.locator("table.heat").count() == 7
    page.check_clean()


def test_tasks_report_and_comparison_files(page: Watched,
                                           report_files: dict[str, Path]) -> None:
    page.goto(report_files["t1"].as_uri())
    assert page.page.get_by_text(SCRIPT_XSS, exact=True).first.is_visible()
    assert all(b["w"] > 0 and b["h"] > 0 for b in _charts(page))
    page.goto(report_files["cmp"].as_uri())
    boxes = _charts(page)
    assert len(boxes) >= 1 + 14 and all(b["w"] > 0 and b["h"] > 0 for b in boxes)
    assert page.page.locator("h1").inner_text() == "r1 → r2"
    page.check_clean()


@pytest.fixture(scope="module")
def viewer(runs: Runs) -> Iterator[str]:
    """The viewer on 127.0.0.1 (an ephemeral port), served from a background thread."""
    with app_in_thread(create_app(runs.store)) as url:
        assert url.startswith("http://127.0.0.1:")
        yield url


def test_viewer_runs_then_run_then_compare(page: Watched, viewer: str) -> None:
    page.goto(viewer + "/")
    assert page.page.locator("a.run").count() == 3
    page.page.locator("a.run", has_text="r1").click()
    page.page.wait_for_load_state("load")
    assert page.page.url == viewer + "/runs/r1"
    assert page.page.locator("h1").inner_text() == "Run r1"
    assert all(b["w"] > 0 and b["h"] > 0 for b in _charts(page))
    _open_every_case(page.page)
    page.page.locator("header nav a", has_text="All runs").click()
    page.page.wait_for_load_state("load")
    page.page.select_option("select[name=a]", "r1")
    page.page.select_option("select[name=b]", "r2")
    page.page.locator("form.compare button").click()
    page.page.wait_for_load_state("load")
    assert page.page.url.startswith(viewer + "/compare?a=r1&b=r2")
    assert page.page.locator("h1").inner_text() == "r1 → r2"
    boxes = _charts(page)
    assert len(boxes) >= 15 and all(b["w"] > 0 and b["h"] > 0 for b in boxes)
    page.check_clean()


def test_viewer_404_page(page: Watched, viewer: str) -> None:
    response = page.page.goto(viewer + "/runs/%3Cscript%3Ewindow.__pwned=1%3C%2Fscript%3E")
    assert response is not None and response.status == 404
    # a 404 is logged by Chromium as a failed resource; nothing else may be
    assert all("404" in e for e in page.errors), page.errors
    assert page.page.evaluate("typeof window.__pwned") == "undefined"
