"""The HTML report of a matrix run shows the terminal's leaderboard (both kinds of run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from tests.report._html import parse
from tests.report.conftest import Runs
from tests.support.scripted_server import ScriptedServer, feedback_reply, usage
from tests.tasks.fake_llm import FakeLLM

from eunomia.api import RunOptions, load_all, run_scenarios, run_tasks
from eunomia.kinds.scenarios import leaderboard
from eunomia.models import resolve_spec
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.store import RunStore
from eunomia.targets.athena import AthenaTarget
from eunomia.targets.example import ExampleServerTarget
from eunomia.tasks import load_suites
from eunomia.viewer import render_run
from eunomia.viewer import run_report as build_run_report

FAST = RunOptions(4, RetryPolicy(retries=0, timeout_s=10, backoff_initial_s=0.001,
                                 backoff_max_s=0.01))
SUITE = """\
- {case_id: a, category: general knowledge, instruction: QUESTION-A}
- {case_id: b, category: general knowledge, instruction: QUESTION-B}
"""


def _leaderboard_rows(html: str) -> list[str]:
    """The text of each row of the leaderboard table (the header first)."""
    table = html[html.index('<table class="leaderboard">'):]
    table = table[:table.index("</table>")]
    return [parse(row).all_text for row in table.split("<tr")[1:]]


def test_single_target_run_has_no_leaderboard(runs: Runs) -> None:
    db = RunStore(runs.store)
    try:
        assert build_run_report(db, db.require_run("r1")).leaderboard == []
        assert 'id="leaderboard"' not in render_run(db, "r1")
    finally:
        db.close()


async def test_scenario_matrix_run_report_has_the_leaderboard(
        examples_copy: Path, tmp_path: Path) -> None:
    sources, _ = discover([examples_copy])
    loaded, _ = load_all(sources)
    silent = ScriptedServer(default=feedback_reply([], llm_requests=[usage("gpt-4o", 9, 9)]))
    await silent.start()
    try:
        targets = [AthenaTarget(silent.url), ExampleServerTarget(max_connections=4)]
        report = await run_scenarios(loaded, targets, run_name="mx", results_dir=tmp_path,
                                     options=FAST)
    finally:
        await silent.close()
    terminal = leaderboard([(t.name, [e.summary for e in report.exported
                                      if e.target == t.name], []) for t in targets])
    db = RunStore(tmp_path / "eunomia.db")
    try:
        html_report = build_run_report(db, db.require_run("mx"))
        html = render_run(db, "mx")
    finally:
        db.close()
    rows = html_report.leaderboard
    assert [(r.target, r.pareto) for r in rows] == [(r.target, r.pareto) for r in terminal]
    assert rows[0].target == "example" and rows[0].pareto
    assert rows[0].score is not None and terminal[0].score is not None
    assert rows[0].score.estimate == pytest.approx(terminal[0].score.estimate)
    assert rows[1].detection_rate == terminal[1].detection_rate
    assert 'href="#leaderboard"' in html and "Score % (95% CI)" in html
    lines = _leaderboard_rows(html)
    assert "★" in lines[1] and "example" in lines[1]  # lines[0]: the header


async def test_task_matrix_run_report_has_the_leaderboard(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout applies
    (tmp_path / "models.yml").write_text(
        "models:\n  openai:fake-a: {price: {input_cost_per_million: 9, "
        "output_cost_per_million: 9}}\n  openai:fake-b: {price: {input_cost_per_million: 1, "
        "output_cost_per_million: 1}}\n", encoding="utf-8")
    fake = FakeLLM(model_answers={"fake-a": "ANSWER-A", "fake-b": "ANSWER-B"})
    fake.judge("ANSWER-A", json.dumps({"score": 5, "feedback": "ok"}))
    fake.judge("ANSWER-B", json.dumps({"score": 1, "feedback": "poor"}))
    await fake.start()
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = tmp_path / "gk.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    suites, _ = load_suites([suite])
    from eunomia.models import load_config

    config = load_config()
    try:
        report = await run_tasks(
            suites, candidate=[resolve_spec("openai:fake-a", config),
                               resolve_spec("openai:fake-b", config)],
            judge=resolve_spec("openai:fake-judge"), run_name="tx", results_dir=tmp_path,
            options=FAST, console=Console(quiet=True))
    finally:
        await fake.close()
    db = RunStore(tmp_path / "eunomia.db")
    try:
        html_report = build_run_report(db, db.require_run("tx"))
        html = render_run(db, "tx")
    finally:
        db.close()
    assert html_report.leaderboard == report.leaderboard  # the terminal's rows, exactly
    assert [(r.target, r.pareto) for r in report.leaderboard] == [
        ("openai:fake-a", True), ("openai:fake-b", True)]  # better vs cheaper
    assert "Judge score 0-5 (95% CI)" in html and "Candidate cost" in html
    lines = _leaderboard_rows(html)
    assert "openai:fake-a" in lines[1] and "5.00 (too few cases to tell, n=2)" in lines[1]
    assert "openai:fake-b" in lines[2] and "1.00" in lines[2]
    # the cost/quality front: one point per model, both on the front
    page = parse(html)
    (front,) = page.svg_labelled("Cost and quality of each")
    points = page.classed(front, "point")
    assert len(points) == 2 and all("front" in p.attrs["class"].split() for p in points)
    tips = [t for t in page.text if t.startswith("openai:fake-")]
    assert any(t.startswith("openai:fake-a: 5 [5, 5], cost 0.") for t in tips), tips
    assert any(t.startswith("openai:fake-b: 1 [1, 1], cost 0.") for t in tips), tips
