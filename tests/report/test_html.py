"""The HTML report: escaping, charts, sections, failed cases and judged-task runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.report._html import Page, parse
from tests.report.conftest import ELEMENT_XSS, IMG_XSS, SCRIPT_XSS, XSS_CASE, Runs
from typer.testing import CliRunner

from eunomia.cli import app
from eunomia.errors import EunomiaError
from eunomia.report.html import CSP, NONE_LABEL, RunReport, write_report
from eunomia.report.html._charts import Bar, hbar_chart, heat_table, histogram, histogram_bins
from eunomia.store import RunStore
from eunomia.viewer import render_comparison, render_run
from eunomia.viewer import run_report as build_run_report


@pytest.fixture
def store(runs: Runs) -> Iterator[RunStore]:
    db = RunStore(runs.store)
    yield db
    db.close()


@pytest.fixture
def r1_html(store: RunStore) -> str:
    return render_run(store, "r1")


@pytest.fixture
def r1(store: RunStore) -> RunReport:
    return build_run_report(store, store.require_run("r1"))


def _no_active_markup(page: Page) -> None:
    """Nothing that could run: no script, no img, no event handler, no external resource."""
    assert not page.find("script")
    assert not page.find("img")
    assert not page.find("iframe")
    for tag in page.tags:
        assert not [a for a in tag.attrs if a.startswith("on")], tag
        for attr in ("src", "href", "action"):
            value = tag.attrs.get(attr, "")
            assert not value.startswith(("http:", "https:", "//", "javascript:")), tag


# --- escaping -------------------------------------------------------------------------------
def test_feedback_injection_shows_as_text(r1_html: str) -> None:
    page = parse(r1_html)
    _no_active_markup(page)
    assert SCRIPT_XSS not in r1_html and IMG_XSS not in r1_html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in r1_html
    # the parsed text (what a reader sees) carries the injection verbatim
    assert f"{SCRIPT_XSS} item 5" in page.all_text
    assert f"{IMG_XSS} fb 5" in page.all_text


def test_diagram_element_name_shows_as_text(r1: RunReport, r1_html: str) -> None:
    worst = [w for w in r1.groups[0].worst if w.case == XSS_CASE]
    assert worst and worst[0].diagram is not None
    assert f"[Class] {ELEMENT_XSS}" in worst[0].diagram  # rendered from the stored request
    assert ELEMENT_XSS not in r1_html
    assert "&lt;img src=x onerror=window.__pwned=1&gt;" in r1_html
    assert f"[Class] {ELEMENT_XSS}" in parse(r1_html).all_text


def test_every_page_forbids_scripts(r1_html: str, store: RunStore) -> None:
    for html in (r1_html, render_run(store, "t1"), render_comparison(store, "r1", store, "r2")):
        metas = [t for t in parse(html).find("meta")
                 if t.attrs.get("http-equiv") == "Content-Security-Policy"]
        assert [m.attrs["content"] for m in metas] == [CSP]
        assert "script-src" not in CSP and "default-src 'none'" in CSP


def test_chart_labels_are_escaped() -> None:
    svg = str(hbar_chart([Bar("<img src=x onerror=alert(1)>", 0.5), Bar("b&c", None)],
                         title="<b>t</b>"))
    assert "<img" not in svg and "<b>" not in svg
    assert "&lt;img src=x onerror=alert(1)&gt;" in svg and "&lt;b&gt;t&lt;/b&gt;" in svg
    page = parse(svg)
    assert len(page.bars_of(0)) == 1  # the n/a row draws no bar
    assert "n/a" in page.all_text


# --- charts -----------------------------------------------------------------------------------
def test_detection_chart_has_one_bar_per_criterion(r1: RunReport, r1_html: str) -> None:
    page = parse(r1_html)
    (idx,) = page.svg_labelled("Detection rate per criterion")
    bars = page.bars_of(idx)
    assert len(bars) == len(r1.groups[0].criteria) == 7
    widths = [x1 - x0 for x0, _, x1, _ in map(page.extent, bars)]
    # relationship_type (3 misses in 26) is the shortest bar, the full criteria the longest
    rates = [c.detection_rate for c in r1.groups[0].criteria]
    assert widths.index(min(widths)) == rates.index(min(r for r in rates if r is not None))
    assert {"good", "warn"} <= {c for b in bars for c in b.attrs["class"].split()}


def test_latency_histogram_and_cost_chart(r1: RunReport, r1_html: str) -> None:
    page = parse(r1_html)
    _, counts = histogram_bins(r1.latency.values)
    (idx,) = page.svg_labelled("Latency of every request")
    assert len(page.bars_of(idx)) == sum(1 for c in counts if c) >= 1
    assert r1.latency.count == 26  # 28 cases less the 2 failed ones (no latency)
    (cost,) = page.svg_labelled("Cost per model")
    assert len(page.bars_of(cost)) == 2  # gpt-4o and gpt-4o-mini
    (speed,) = page.svg_labelled("Latency vs output length")
    assert len(page.classed(speed, "points")) == 1  # one target
    assert f"{r1.targets[0]}: 26 points" in page.all_text  # 24 answers of 200 tokens, 2 of 500
    assert len(page.classed(speed, "fit")) == 1
    models = {m.model: m for m in r1.model_costs}
    assert models["gpt-4o-mini"].calls == 2 and models["gpt-4o"].calls == 24
    assert models["gpt-4o"].cost == pytest.approx(24 * 0.0045)


def test_histogram_bins() -> None:
    edges, counts = histogram_bins([0.1, 0.2, 0.2, 1.0], bins=4)
    assert edges == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])
    assert counts == [3, 0, 0, 1]
    assert len(parse(str(histogram([0.1, 0.2, 0.2, 1.0], title="t", bins=4))).bars_of(0)) == 2
    assert histogram_bins([]) == ([], [])


def test_heat_table_shades_and_drops_an_empty_none_row() -> None:
    html = str(heat_table(("a", "b", NONE_LABEL), ((3, 1, 0), (0, 2, 1), (0, 0, 0)), title="c"))
    page = parse(html)
    assert [t.attrs["class"] for t in page.find("td")] == [
        "diag", "off", "zero", "zero", "diag", "off"]
    assert [t.attrs["class"] for t in page.find("th")][-2:] == ["row", "row"]  # no (none) row
    assert "rgba(22, 163, 74, 0.90)" in html  # the biggest count, on the diagonal


def test_confusion_matrix_counts(r1: RunReport) -> None:
    rel = next(m for m in r1.groups[0].confusion if m.criterion == "relationship_type")
    assert rel.labels == ("relationship_correct", "relationship_reversed",
                          "relationship_not_composition", NONE_LABEL)
    row = dict(zip(rel.labels, rel.counts, strict=True))
    # association_instead_of_composition (2 repeats) said "correct" instead of "not composition"
    assert row["relationship_not_composition"][0] == 2
    # composition_reversed: right in repeat 0, "correct" in repeat 1
    assert row["relationship_reversed"][:2] == (1, 1)
    assert rel.total == 26 and rel.correct == 26 - 3


# --- sections ---------------------------------------------------------------------------------
def test_worst_cases_lowest_score_first(r1: RunReport) -> None:
    worst = r1.groups[0].worst
    scores = [w.score_percent for w in worst]
    assert scores == sorted(scores) and scores[0] == pytest.approx(62.5)
    first = worst[0]
    assert (first.case, first.repeat) == ("composition_reversed", 1)
    assert first.missing == ("relationship_reversed", "naming_format_correct")
    assert first.diagram and first.diagram.startswith("Diagram type: ClassDiagram")
    assert [f.instruction for f in first.feedback][:2] == ["classes_correct",
                                                          "relationship_correct"]
    assert first.feedback[0].title == f"{SCRIPT_XSS} item 1" and first.feedback[0].credits == 1


def test_failed_cases_are_reported(r1: RunReport, r1_html: str) -> None:
    assert r1.failed == 2 and r1.groups[0].failed == 2
    assert [(f.case, f.repeat, f.status) for f in r1.groups[0].failures] == [
        ("extra_class", 0, "failed"), ("extra_class", 1, "failed")]
    assert "Failed cases (2)" in r1_html
    assert "HTTP 500" in r1.groups[0].failures[0].error


def test_consistency_only_with_repeats(store: RunStore, r1: RunReport) -> None:
    c = r1.groups[0].consistency
    assert c is not None and c.repeats == 2
    unstable = [k for k in c.cases if not k.consistent]
    assert [k.case for k in unstable] == ["composition_reversed"]
    assert {i.instruction for i in unstable[0].unstable} == {"relationship_reversed",
                                                           "relationship_correct"}
    assert c.consistent_cases == len(c.cases) - 1
    r2_html = render_run(store, "r2")
    assert "Consistency across repeats" not in r2_html
    assert build_run_report(store, store.require_run("r2")).groups[0].consistency is None


def test_tasks_run_gets_the_generic_report(store: RunStore) -> None:
    report = build_run_report(store, store.require_run("t1"))
    assert report.kind == "tasks" and not report.structured
    assert [(c.case, c.score) for c in report.cases] == [
        (SCRIPT_XSS, None), ("capital", 4.5), ("sum", 2.0)]
    assert report.groups[0].mean_score == pytest.approx(3.25)
    html = render_run(store, "t1")
    page = parse(html)
    _no_active_markup(page)
    assert "Judge score (0-5)" in html and "3.25" in html and "4.50" in html
    assert SCRIPT_XSS in page.all_text and IMG_XSS in page.all_text  # as text only
    assert "Worst cases" not in html and "Expected vs returned" not in html
    assert page.svg_labelled("Cost per model") and page.svg_labelled("Latency of every")


def test_comparison_side_by_side(store: RunStore) -> None:
    html = render_comparison(store, "r1", store, "r2")
    page = parse(html)
    _no_active_markup(page)
    (idx,) = page.svg_labelled("Detection rate per criterion")
    assert len(page.bars_of(idx)) == 2 * 7  # A and B for each criterion
    assert "association_instead_of_composition" in page.all_text  # fixed in r2: a change
    assert "Δ (B − A)" in html and "Side by side" in html
    assert len(page.svg_labelled("Latency of every request")) == 2


def test_comparison_with_a_tasks_run_does_not_fail(store: RunStore) -> None:
    html = render_comparison(store, "r1", store, "t1")
    assert "<h1>r1 → t1</h1>" in html


def test_write_report_is_atomic(tmp_path: Path) -> None:
    target = write_report("<p>x</p>", tmp_path / "a" / "report.html")
    assert target.read_text(encoding="utf-8") == "<p>x</p>"
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


# --- the command ----------------------------------------------------------------------------
def test_report_command_default_output(runs: Runs) -> None:
    result = CliRunner().invoke(app, ["report", "r1", "--results", str(runs.results)])
    assert result.exit_code == 0, result.output
    written = runs.results / "r1" / "report.html"
    assert "report.html" in result.output
    html = written.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "&lt;script&gt;" in html


def test_report_command_compare_and_output(runs: Runs, tmp_path: Path) -> None:
    out = tmp_path / "cmp.html"
    result = CliRunner().invoke(app, ["report", "r1", "--compare", "r2", "--store",
                                      str(runs.store), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "<h1>r1 → r2</h1>" in out.read_text(encoding="utf-8")


def test_report_command_unknown_run(runs: Runs) -> None:
    result = CliRunner().invoke(app, ["report", "nope", "--results", str(runs.results)])
    assert isinstance(result.exception, EunomiaError)
    assert "no run named 'nope'" in str(result.exception)


def test_empty_run_and_unreadable_snapshot(tmp_path: Path) -> None:
    from eunomia.store import CaseRow, now

    db = RunStore(tmp_path / "eunomia.db")
    try:
        empty = db.create_run("empty", "scenarios", ["t"], {})
        html = render_run(db, empty)
        assert "This run has no case yet." in html and "<h1>Run empty</h1>" in html
        odd = db.create_run("odd", "scenarios", ["t"], {})
        db.add_suite(odd, "s", "x", {"not": "a scenario"}, {})
        db.record_case(odd, CaseRow("s", "t", "c1", 0, "scored", None, 1, 0.5, False, 80.0,
                                    1, 1, None, None, None, now()))
        report = build_run_report(db, odd)
        assert report.notes and "cannot be read" in report.notes[0]
        assert [g.kind for g in report.groups] == ["generic"] and not report.groups[0].criteria
        assert report.groups[0].mean_score == 80.0
        html = render_run(db, odd)
        assert "cannot be read" in html and "Worst cases" not in html
    finally:
        db.close()
