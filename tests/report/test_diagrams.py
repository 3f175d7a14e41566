"""The diagrams of the worst and failed cases in the report: the submission drawn with the
elements its feedback names outlined and numbered, beside the example solution, with the
criteria it missed; drawn from the stored request (Athena) or, when the request holds only
a text rendering (the LLM engine), from the case file while it is unchanged."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.report._html import Page, Tag, parse
from tests.report.conftest import (
    BOGUS,
    COMPOSITION,
    ELEMENT_XSS,
    ID_XSS,
    PROJECT,
    SCRIPT_XSS,
    TASK,
    TEAM,
    XSS_CASE,
    Runs,
)

from eunomia.api import CaseSelection, RunOptions, load_all, run_scenarios
from eunomia.apollon import render_diagram
from eunomia.kinds.scenarios._html import case_submission
from eunomia.models import ChatRequest, ChatResult
from eunomia.report.html import RunReport, WorstCase, mark_feedback, read_diagram
from eunomia.scenarios import discover, load_scenario, scenario_from_json, scenario_to_json
from eunomia.scheduler import CallError, RetryPolicy
from eunomia.store import RunStore
from eunomia.targets.llm import LLMTarget
from eunomia.viewer import render_run
from eunomia.viewer import run_report as build_run_report


@pytest.fixture(scope="module")
def r1(runs: Runs) -> Iterator[tuple[RunReport, str]]:
    store = RunStore(runs.store)
    try:
        yield build_run_report(store, store.require_run("r1")), render_run(store, "r1")
    finally:
        store.close()


def _worst(report: RunReport, case: str, repeat: int) -> WorstCase:
    return next(w for w in report.groups[0].worst if (w.case, w.repeat) == (case, repeat))


def _case_svgs(page: Page, case: str) -> list[int]:
    """Indexes of the diagrams (submission, then example) drawn in ``case``'s details."""
    start = next(k for k, t in enumerate(page.tags)
                 if t.name == "details" and t.attrs.get("data-case") == case)
    end = next((k for k, t in enumerate(page.tags[start + 1:], start + 1)
                if t.name == "details" and "case" in t.attrs.get("class", "")), len(page.tags))
    seen: list[int] = []
    for t in page.tags[start:end]:
        if t.name == "svg" and t.svg is not None and t.svg not in seen:
            seen.append(t.svg)
    return seen


def _highlighted(page: Page, svg: int) -> list[tuple[str, str]]:
    return [(t.attrs["data-id"], t.attrs["data-badge"]) for t in page.classed(svg, "hl")]


def test_the_elements_the_feedback_names_are_outlined_and_numbered(
        r1: tuple[RunReport, str]) -> None:
    report, html = r1
    worst = _worst(report, "composition_reversed", 1)
    assert worst.drawing is not None and worst.drawing.source == "the stored request"
    # numbered in the order the feedback first names them
    assert [k for k, _ in worst.drawing.highlight] == [PROJECT, TASK, COMPOSITION, TEAM]
    by_sgi = {f.title.rsplit(" ", 1)[-1]: f for f in worst.feedback}
    assert by_sgi["1"].marks == (1, 2) and by_sgi["3"].marks == (3,)
    assert by_sgi["6"].marks == (4,) and by_sgi["13"].marks == (1, 3)
    assert by_sgi["8"].marks == () and by_sgi["8"].unplaced == (BOGUS, ID_XSS)
    assert by_sgi["10"].element_ids == () and by_sgi["1"].instruction == "classes_correct"
    page = parse(html)
    sub, example = _case_svgs(page, "composition_reversed")[:2]
    assert page.svgs[sub].attrs["class"] == "apollon"
    assert _highlighted(page, sub) == [(PROJECT, "1"), (TASK, "2"), (TEAM, "4"),
                                       (COMPOSITION, "3")]  # elements drawn before edges
    assert len(page.classed(sub, "hl-mark")) == 4  # an outline and badge for each
    assert page.svgs[example].attrs["aria-label"] == "Example solution"
    assert _highlighted(page, example) == []


def test_the_legend_numbers_match_the_badges(r1: tuple[RunReport, str]) -> None:
    _, html = r1
    page = parse(html)
    start = next(k for k, t in enumerate(page.tags) if t.attrs.get("data-case")
                 == "composition_reversed" and t.attrs.get("data-repeat") == "1")
    legend = next(k for k, t in enumerate(page.tags[start:], start)
                  if t.name == "ol" and t.attrs.get("class") == "legend")
    items: list[list[Tag]] = []
    for t in page.tags[legend + 1:]:
        if t.name == "ol":
            break
        if t.name == "li":
            items.append([])
        elif items:
            items[-1].append(t)
    assert len(items) == 7
    chips = [[t for t in item if t.attrs.get("class") == "mark"] for item in items]
    assert [len(c) for c in chips] == [2, 1, 1, 0, 0, 2, 0]
    assert 'class="feedback placed"' in html and "names 2 ids not in the diagram" in html


def test_element_ids_and_names_are_escaped(r1: tuple[RunReport, str]) -> None:
    report, html = r1
    assert ID_XSS not in html and ELEMENT_XSS not in html and SCRIPT_XSS not in html
    page = parse(html)
    assert not page.find("script") and not page.find("img")
    assert "no-such-element, \"><script>window.__pwned=1</script>" in page.all_text
    # the XSS case has no Task class: its first item outlines the XSS-named class only
    worst = _worst(report, XSS_CASE, 0)
    first = worst.feedback[0]
    assert first.element_ids == (TEAM, TASK)
    assert first.marks == (1,) and first.unplaced == (TASK,)
    sub = _case_svgs(page, XSS_CASE)[0]
    assert _highlighted(page, sub) == [(TEAM, "1")]
    # its name (and the feedback title on hover) is text in the drawing
    assert (f"{ELEMENT_XSS} [Class]\n[1] {SCRIPT_XSS} item 2 (1 pts, classes_missing)"
            in page.all_text)


def test_the_criteria_missed_are_listed(r1: tuple[RunReport, str]) -> None:
    report, html = r1
    worst = _worst(report, "composition_reversed", 1)
    assert [(c.criterion, c.missed, c.extra) for c in worst.criteria] == [
        ("relationship_type", ("relationship_reversed",), ("relationship_correct",)),
        ("naming_format", ("naming_format_correct",), ("naming_format_incorrect",)),
    ]
    assert worst.criteria[0].title == "Project-Task Relationship Type"
    assert "Criteria missed or extra" in html


def test_example_solution_drawn_once_shown_beside_each_case(
        r1: tuple[RunReport, str]) -> None:
    report, html = r1
    group = report.groups[0]
    assert group.example is not None and group.example.type == "ClassDiagram"
    page = parse(html)
    defs = [t for t in page.find("g") if t.attrs.get("id", "").startswith("eu-example-")]
    assert len(defs) == 1
    uses = [t for t in page.find("use") if t.attrs.get("href") == f"#{defs[0].attrs['id']}"]
    drawn = len(group.worst) + sum(f.drawing is not None for f in group.failures)
    assert len(uses) == drawn == 6 + 1


def test_failed_case_is_drawn_once_with_its_expectations(r1: tuple[RunReport, str]) -> None:
    report, html = r1
    failures = report.groups[0].failures
    assert [(f.case, f.repeat) for f in failures] == [("extra_class", 0), ("extra_class", 1)]
    first, second = failures
    assert first.drawing is not None and first.drawing.diagram is not None
    assert first.drawing.source == "the stored request" and first.drawing.highlight == ()
    assert second.drawing is None  # the same submission: drawn once
    assert "classes_correct" in first.expected and "extras_present" in first.expected
    assert first.diagram is not None and first.diagram.startswith("Diagram type: ClassDiagram")
    page = parse(html)
    sub, example = _case_svgs(page, "extra_class")[:2]
    assert page.svgs[sub].attrs["data-diagram-type"] == "ClassDiagram"
    assert page.svgs[example].attrs["aria-label"] == "Example solution"
    assert page.classed(sub, "el") and not page.classed(sub, "hl")


def test_mark_feedback_counts_relationships_and_skips_unknown_ids() -> None:
    path = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / \
        "project_management" / "test_cases" / "composition_reversed.json"
    diagram, why = read_diagram(path.read_text(encoding="utf-8"))
    assert diagram is not None and why == ""
    marked = mark_feedback(diagram, [("a", [COMPOSITION, COMPOSITION]), ("b", []),
                                     ("c", ["x", PROJECT]), ("d", [COMPOSITION])])
    assert marked.highlight == ((COMPOSITION, ("a", "d")), (PROJECT, ("c",)))
    assert marked.marks == ((1,), (), (2,), (1,))
    assert marked.unplaced == ((), (), ("x",), ())
    assert mark_feedback(None, [("a", [PROJECT])]).unplaced == ((PROJECT,),)
    # the current Athena names "<Type>:<id>" in elementIds: the same element
    typed = mark_feedback(diagram, [("a", [f"Class:{PROJECT}"]), ("b", ["Class:x"])])
    assert typed.highlight == ((PROJECT, ("a",)),) and typed.unplaced == ((), ("Class:x",))
    assert read_diagram("{")[0] is None and "not JSON" in read_diagram("{")[1]
    assert "not an Apollon diagram" in read_diagram("[1]")[1]


# --- the LLM engine's requests hold only a text rendering ---------------------------------
class DownModel:
    """A hosted model that is down: every chat call fails for good."""

    name = "openai:down"

    async def chat(self, request: ChatRequest) -> ChatResult:
        raise CallError("the model is down", retryable=False)

    async def close(self) -> None:
        return None


@pytest.fixture
def llm_run(examples_copy: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A run of two cases on the LLM engine, both failed; (store, scenario folder)."""
    sources, _ = discover([examples_copy])
    loaded, _ = load_all(sources)
    asyncio.run(run_scenarios(
        loaded, LLMTarget(DownModel()), run_name="llm", results_dir=tmp_path / "results",
        options=RunOptions(1, RetryPolicy(retries=0, timeout_s=5.0)),
        selection=CaseSelection(("composition_reversed", "extra_class")), use_cache=False))
    return tmp_path / "results" / "eunomia.db", examples_copy / "project_management"


def test_llm_run_draws_the_case_file_while_it_is_unchanged(llm_run: tuple[Path, Path]) -> None:
    db, folder = llm_run
    store = RunStore(db)
    try:
        report = build_run_report(store, store.require_run("llm"))
        failures = {f.case: f for f in report.groups[0].failures}
        assert set(failures) == {"composition_reversed", "extra_class"}
        drawing = failures["extra_class"].drawing
        assert drawing is not None and drawing.diagram is not None
        assert drawing.source.endswith("extra_class.json, unchanged since the run")
        text = failures["extra_class"].diagram
        assert text is not None and text.startswith("Diagram type: ClassDiagram")
        # the file is edited after the run: its drawing would not be what was sent
        path = folder / "test_cases" / "extra_class.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        next(iter(data["elements"].values()))["name"] = "Renamed"
        path.write_text(json.dumps(data), encoding="utf-8")
        report = build_run_report(store, store.require_run("llm"))
        changed = next(f for f in report.groups[0].failures if f.case == "extra_class")
        assert changed.drawing is not None and changed.drawing.diagram is None
        assert "has changed since the run" in changed.drawing.note
        assert changed.diagram == text  # the text as sent is still shown
        html = render_run(store, "llm")
        assert "Not drawn: the case file" in html and "has changed since the run" in html
    finally:
        store.close()


def test_case_submission_prefers_the_stored_scenario(examples_copy: Path,
                                                     tmp_path: Path) -> None:
    scenario, _ = load_scenario(examples_copy / "project_management")
    assert scenario is not None
    case = scenario.case_named("extra_class")
    assert case is not None
    store = RunStore(tmp_path / "s.db")
    try:
        diagram, _ = read_diagram(case.submission)
        assert diagram is not None
        chat = store.put_json({"messages": [
            {"role": "system", "content": "grade"},
            {"role": "user", "content": "Student's diagram:\n" + render_diagram(diagram)}]})
        # a snapshot that keeps the submission texts draws them whatever the files say
        drawing, text = case_submission(store, scenario, "extra_class", chat)
        assert drawing.source == "the stored scenario" and drawing.diagram == diagram
        assert text == render_diagram(diagram).strip("\n")
        # today's snapshot has none: the case file, checked against the request's text
        stored = scenario_from_json(scenario_to_json(scenario))
        drawing, _ = case_submission(store, stored, "extra_class", chat)
        assert drawing.diagram == diagram and "unchanged since the run" in drawing.source
        case.path.unlink()
        drawing, text = case_submission(store, stored, "extra_class", chat)
        assert drawing.diagram is None and "cannot be read" in drawing.note and text
        drawing, text = case_submission(store, stored, "no_such_case", None)
        assert drawing.diagram is None and text is None
        assert "no such case" in drawing.note
    finally:
        store.close()
