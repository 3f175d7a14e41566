"""The report's and the viewer's layout in Chromium at 1400 px and in print (issue #30, 7):
no text crammed into or spilling out of a tile, no table wider than its card, the fitted
line of the latency chart inside its plot, and the worst cases' diagrams shown in print.

Skipped, with the reason, when Chromium or Playwright is missing (see
``tests/support/browser.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.judge_check.scripted_judge import ScriptedJudge
from tests.report.conftest import Runs
from tests.support.browser import Watched
from tests.support.cli import run_cli
from tests.support.served_thread import app_in_thread

from eunomia.report.html import write_report
from eunomia.store import CaseRow, RunStore, now
from eunomia.viewer import create_app, render_run

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "examples" / "tasks" / "ecommerce" / "summarization.yaml"
WIDE = {"width": 1400, "height": 900}

OVERFLOWS = """(selector) => [...document.querySelectorAll(selector)]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.className + ': ' + e.textContent.slice(0, 80))"""
"""The elements matching ``selector`` whose content is wider than they are."""


@pytest.fixture(scope="module")
def scenario_report(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = RunStore(runs.store)
    try:
        return write_report(render_run(store, "r1"),
                            tmp_path_factory.mktemp("layout") / "r1.html")
    finally:
        store.close()


@pytest.fixture(scope="module")
def weighted_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of an eval whose judge gives log-probabilities (a G-Eval score)."""
    where = tmp_path_factory.mktemp("geval")
    judge = ScriptedJudge()
    judge.parrot_says = "Free shipping on orders over 50 euros."
    with judge.in_thread():
        env = {"OPENAI_BASE_URL": judge.url, "OPENAI_API_KEY": ""}
        done = run_cli("eval", SUITE, "--model", "openai:parrot", "--judge", "openai:overlap",
                       "--results", where, "--run-name", "ev", cwd=where, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    done = run_cli("report", "ev", "--results", where, cwd=where)
    assert done.returncode == 0, done.stdout + done.stderr
    return where / "ev" / "report.html"


def _tiles(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate(
        """() => [...document.querySelectorAll('.card')].map(c => ({
             label: c.querySelector('.k').textContent, value: c.querySelector('.v').textContent,
             lines: Math.round(c.querySelector('.v').getBoundingClientRect().height
                               / parseFloat(getComputedStyle(c.querySelector('.v')).lineHeight)),
             spills: c.scrollWidth > c.clientWidth + 1
                     || c.querySelector('.v').scrollWidth > c.querySelector('.v').clientWidth + 1
           }))"""))


def _no_overflow(page: Any) -> None:
    for selector in ("section", ".scroll", ".card", ".card .v", "table"):
        assert page.evaluate(OVERFLOWS, selector) == [], selector


def test_scenario_report_says_the_verdict_in_its_tile_and_fits_at_1400(
        page: Watched, scenario_report: Path) -> None:
    page.page.set_viewport_size(WIDE)
    page.goto(scenario_report.as_uri())
    tiles = _tiles(page.page)
    assert tiles and not [t for t in tiles if t["spills"]]
    against = next(t for t in tiles if t["label"] == "Against baseline:default")
    assert against["value"] in ("significantly better", "not significantly better",
                                "significantly worse") or against["value"].endswith("points)")
    assert len(against["value"]) <= 45  # the verdict, not the 60-word sentence
    assert against["lines"] <= 3, against  # it was about 20 lines tall
    detail = page.page.locator(".card-details p", has_text="Against baseline:default:")
    assert detail.count() == 1 and "McNemar" in detail.inner_text()
    _no_overflow(page.page)
    page.check_clean()


def test_weighted_judge_score_tile_holds_the_figure(page: Watched,
                                                    weighted_report: Path) -> None:
    page.page.set_viewport_size(WIDE)
    page.goto(weighted_report.as_uri())
    tiles = _tiles(page.page)
    geval = next(t for t in tiles if t["label"] == "G-Eval judge score, whole run")
    # "0.64 [0.58, 0.70]", or "0.56 (too few cases to tell, n=5)" below 10 cases
    assert len(geval["value"]) <= 40 and geval["value"][0].isdigit(), geval
    assert geval["lines"] <= 2 and not any(t["spills"] for t in tiles)
    detail = page.page.locator(".card-details p", has_text="G-Eval judge score, whole run:")
    assert "sampled score of the same cases" in detail.inner_text()
    _no_overflow(page.page)
    page.check_clean()


def test_latency_fit_line_stays_inside_its_plot(page: Watched, scenario_report: Path) -> None:
    page.page.set_viewport_size(WIDE)
    page.goto(scenario_report.as_uri())
    boxes = page.page.evaluate(
        """() => [...document.querySelectorAll('svg.scatter')].map(s => {
             const box = e => { const r = e.getBoundingClientRect();
                                return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
             const fit = s.querySelector('.fit path'), area = s.querySelector('.plot-area path');
             return {fit: fit && box(fit), area: area && box(area),
                     dots: [...s.querySelectorAll('.points use')].map(box)};
           })""")
    assert boxes, "no latency chart"
    for chart in boxes:
        area, fit, dots = chart["area"], chart["fit"], chart["dots"]
        assert area is not None and fit is not None and dots, chart
        # drawn over the data only (it ran from 0 tokens to past the last dot) ...
        assert min(d["l"] for d in dots) - 1 <= fit["l"], chart
        assert fit["r"] <= max(d["r"] for d in dots) + 1, chart
        # ... and inside the plot: it ended at the plot's edge, cut off
        assert area["l"] < fit["l"] and fit["r"] < area["r"] - 2, chart
        assert area["t"] + 2 < fit["t"] and fit["b"] <= area["b"] + 1, chart


def test_worst_cases_show_their_diagrams_on_screen_and_in_print(
        page: Watched, scenario_report: Path) -> None:
    page.page.set_viewport_size(WIDE)
    page.goto(scenario_report.as_uri())
    shown = """() => [...document.querySelectorAll('details.case')].map(d => ({
                 open: d.open, worst: d.classList.contains('worst'),
                 drawn: [...d.querySelectorAll('figure.diagram svg')]
                     .map(s => s.checkVisibility() && s.getBoundingClientRect().height > 20)
               }))"""
    cases = page.page.evaluate(shown)
    worst = [c for c in cases if c["worst"]]
    assert len(worst) >= 2
    # a screenshot shows the first worst case, with its diagrams
    assert worst[0]["open"] and worst[0]["drawn"] and all(worst[0]["drawn"])
    assert not any(c["open"] for c in worst[1:])
    page.page.emulate_media(media="print")
    printed = page.page.evaluate(shown)
    assert all(c["drawn"] and all(c["drawn"]) for c in printed), printed
    assert page.page.pdf(format="A4").startswith(b"%PDF")
    page.check_clean()


# --- the viewer's list of runs ---------------------------------------------------------------
SUITES = ("common_sense_reasoning", "context_retention", "ethical_reasoning",
          "general_knowledge", "inference_speed", "instruction_following", "summarization")


def _many_runs(store_path: Path) -> None:
    """Runs named as the runs made without --run-name are, with long suite lists and target
    URLs, one interrupted, every one with a cost."""
    store = RunStore(store_path)
    try:
        for n, (kind, suites, targets, status) in enumerate((
                ("tasks", SUITES, ["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku-latest"],
                 "complete"),
                ("scenarios", ("project_management_with_a_long_scenario_name",),
                 ["example", "athena:http://127.0.0.1:5008/modules/modeling/"
                  "module_modeling_llm/feedback_suggestions?graded=false"], "interrupted"),
                ("judge_check", SUITES, ["openai:judge-model-with-a-long-name"],
                 "complete"))):
            run = store.create_run(f"run_20261127_11000{n}_856e6{n}", kind, targets,
                                   {"repeats": 1})
            for suite in suites:
                store.add_suite(run, suite, f"suites/{suite}.yaml", {"name": suite}, {})
                store.record_case(run, CaseRow(
                    suite=suite, target=targets[0], case_name="c1", repeat=0,
                    status="scored", error=None, attempts=1, latency_s=1.25, cached=False,
                    score=3.5, input_tokens=1200, output_tokens=300, cost=0.012345,
                    request=None, response=None, finished=now()))
            store.set_run_status(run, status)
    finally:
        store.close()


@pytest.fixture
def crowded_viewer(tmp_path: Path) -> Iterator[str]:
    store = tmp_path / "eunomia.db"
    _many_runs(store)
    with app_in_thread(create_app(store)) as url:
        yield url


def test_viewer_runs_table_fits_its_card_at_1400(page: Watched, crowded_viewer: str) -> None:
    page.page.set_viewport_size(WIDE)
    page.goto(crowded_viewer + "/")
    assert page.page.locator("a.run").count() == 3
    _no_overflow(page.page)
    # every column shown whole, the last (Duration) and Cost included
    edges = page.page.evaluate(
        """() => { const card = document.querySelector('table.runs').closest('.scroll')
                                   .getBoundingClientRect();
                   return [...document.querySelectorAll('table.runs th')].map(th => {
                     const r = th.getBoundingClientRect();
                     return {name: th.textContent, right: r.right, limit: card.right}; }); }""")
    assert [e["name"] for e in edges][-2:] == ["Cost", "Duration"]
    assert all(e["right"] <= e["limit"] + 1 for e in edges), edges
    cost = page.page.locator("table.runs td.n").filter(has_text="0.0").first
    assert cost.is_visible()
    page.check_clean()
