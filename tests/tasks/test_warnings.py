"""A task run says when its figures carry no information: a judge that gives every answer
the same score, a candidate whose answers are all the same or all empty (in the terminal
summary's warnings, tasks_results.json and the HTML report)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from tests.tasks.fake_llm import FakeLLM
from tests.tasks.test_run import OPTIONS, example

from eunomia.api import TaskSelection, run_tasks
from eunomia.models import resolve_spec
from eunomia.store import RunStore
from eunomia.viewer import render_run

PLACEHOLDER = "Answer to the case: this is the candidate's reply."


def _results(results: Path, run: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((results / run / "tasks_results.json").read_text())
    return data


# single-turn kinds only (the fake streams its own words to inference-speed cases)
SINGLE_TURN = TaskSelection(("general_knowledge/*", "summarization/*", "ethical_reasoning/*"))


async def _run(fake_llm: FakeLLM, results: Path, name: str) -> list[str]:
    report = await run_tasks(
        example(), candidate=resolve_spec("openai:fake-candidate"),
        judge=resolve_spec("openai:fake-judge"), run_name=name, results_dir=results,
        options=OPTIONS, console=Console(quiet=True), selection=SINGLE_TURN)
    assert report.exported[0].summary.total == 15
    return [w for e in report.exported for w in e.warnings]


async def test_a_constant_judge_and_identical_answers_are_said(fake_llm: FakeLLM,
                                                             tmp_path: Path) -> None:
    fake_llm.default_answer = PLACEHOLDER
    fake_llm.default_verdict = json.dumps({"score": 5, "feedback": "Perfect."})
    warnings = await _run(fake_llm, tmp_path, "flat")
    judge = [w for w in warnings if "gave 5 to every answer it scored" in w]
    same = [w for w in warnings if "gave the same answer to every case" in w]
    assert len(judge) == 1 and "carry no information" in judge[0] and len(same) == 1
    assert _results(tmp_path, "flat")["warnings"] == warnings
    store = RunStore(tmp_path / "eunomia.db")
    try:
        html = render_run(store, "flat")
    finally:
        store.close()
    assert "gave 5 to every answer it scored" in html and 'class="warnings"' in html


async def test_empty_answers_are_said(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.default_answer = ""
    warnings = await _run(fake_llm, tmp_path, "empty")
    assert any(w.startswith("every answer of openai:fake-candidate is empty") for w in warnings)


async def test_a_varied_run_has_no_warning(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.candidate("", "One mug and a teapot.", "A plain answer.", "Another answer.")
    fake_llm.judge("", json.dumps({"score": 2, "feedback": "Half of it."}),
                   json.dumps({"score": 4, "feedback": "Good."}))
    warnings = await _run(fake_llm, tmp_path, "varied")
    assert warnings == [] and _results(tmp_path, "varied")["warnings"] == []
