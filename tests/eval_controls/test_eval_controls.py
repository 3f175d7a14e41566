"""``eunomia eval`` sets every candidate beside a content-free control (issue 28), end to end
through the command line against scripted judges on 127.0.0.1: the lenient judge of the
issue (5 for the reference, 0 for a refusal, 2-4 for anything else) and one that
discriminates; the placeholder candidate of the issue and one that answers with the
references. The control is scored once per judge and suite, cached, its cost apart, and the
comparison is in every output."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import xmlschema
from tests.eval_controls.conftest import EXAMPLE_SUITE, Server
from tests.judge_check.conftest import invoke
from tests.judge_check_eval.test_eval_judge_check import flat, read_json

from eunomia.api._controls import local_seconds
from eunomia.errors import EunomiaError
from eunomia.models import resolve_spec
from eunomia.store import RunStore

SUM = str(EXAMPLE_SUITE / "summarization.yaml")
GK = str(EXAMPLE_SUITE / "general_knowledge.yaml")
CASES = 5
"""Cases of each of the two suites."""


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_placeholder_judged_by_a_lenient_judge_is_no_better_than_a_content_free_answer(
        server: Server, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke("eval", SUM, GK, "--model", "openai:placeholder", "--judge",
                       "openai:lenient", "--results", str(results), "--run-name", "ev",
                       "--junit", str(tmp_path / "j.xml"),
                       "--summary-md", str(tmp_path / "s.md"))
    assert code == 0, out
    text = flat(out)
    assert "Controls: the judge scores a content-free answer for 10 case(s)" in text
    assert text.index("Controls:") < text.index("Tasks: openai:placeholder")
    assert "openai:placeholder is no better than a content-free answer" in text
    assert "lenient: it gives an answer that says nothing" in text
    # the control run: one content-free answer per case, stored apart
    db = RunStore(results / "eunomia.db")
    try:
        controls = db.require_run("ev-controls")
        assert controls.targets == ["baseline:content-free"]
        assert db.run_totals(controls).cases == 2 * CASES
        link = db.require_run("ev").settings["controls"]
        assert link["run"] == "ev-controls" and link["controls"] == ["content-free"]
    finally:
        db.close()
    data = read_json(results / "ev" / "tasks_results.json")["controls"]
    overall = data["comparisons"][0]
    assert overall["suite"] is None and overall["cases"] == 2 * CASES
    assert overall["no_better"] is True and overall["ci_low"] <= 0
    assert data["floor"]["lenient"] is True
    assert any("no better than a content-free answer" in w for w in
               read_json(results / "ev" / "tasks_results.json")["warnings"])
    table = rows(results / "ev" / "tables" / "floor.csv")
    assert [r["suite"] for r in table] == ["(all suites)", "summarization",
                                           "general_knowledge"]
    assert table[0]["no_better"] == "True" and table[0]["controls_run"] == "ev-controls"
    schema = xmlschema.XMLSchema(Path(__file__).parents[1] / "ci" / "junit-10.xsd")
    schema.validate(str(tmp_path / "j.xml"))  # the properties keep the file valid
    junit = (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert 'name="floor.content-free.all_suites.no_better" value="true"' in junit
    assert 'name="floor.content-free.control_mean"' in junit
    summary = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert "is no better than a content-free answer" in summary
    code, out = invoke("report", "ev", "--results", str(results))
    assert code == 0, out
    page = (results / "ev" / "report.html").read_text(encoding="utf-8")
    assert "Beside a content-free answer" in page
    assert "no better than a content-free answer" in page


def test_a_discriminating_judge_sets_a_real_answer_above_the_floor_once_for_all_candidates(
        server: Server, tmp_path: Path) -> None:
    results = tmp_path / "results"
    args = ["eval", SUM, GK, "--model", "openai:oracle", "--model", "openai:placeholder",
            "--judge", "openai:discriminating", "--results", str(results)]
    code, out = invoke(*args, "--run-name", "m1",
                       "--controls", "content-free,other-reference")
    assert code == 0, out
    # 2 candidates x 10 cases + 2 controls x 10 cases, each judged once
    assert server.calls == 2 * 2 * CASES + 2 * 2 * CASES
    board = rows(results / "m1" / "leaderboard.csv")
    by = {r["target"]: r for r in board}
    assert by["openai:oracle"]["no_better_than_floor"] == "no"
    assert float(by["openai:oracle"]["floor_difference"]) > 3
    assert by["openai:placeholder"]["no_better_than_floor"] == "yes"
    text = flat(out)
    assert "Beside content-free: Δ [95% CI]" in text
    assert "not lenient: it gives an answer that says nothing" in text
    data = read_json(results / "m1" / "openai_oracle" / "tasks_results.json")["controls"]
    assert {c["control"] for c in data["comparisons"]} == {"content-free", "other-reference"}
    # again: the controls' judge calls come from the cache (a new run, nothing asked)
    before = server.calls
    code, out = invoke(*args, "--run-name", "m2", "--controls",
                       "content-free,other-reference")
    assert code == 0, out
    assert server.calls == before + 2 * 2 * CASES - 2 * 2 * CASES  # candidates cached too
    db = RunStore(results / "eunomia.db")
    try:
        again = db.require_run("m2-controls")
        assert db.run_totals(again).cases == 2 * 2 * CASES
    finally:
        db.close()


def test_controls_none_a_smaller_sample_and_bad_input(server: Server, tmp_path: Path) -> None:
    results = tmp_path / "results"
    base = ["eval", SUM, "--model", "openai:placeholder", "--judge", "openai:lenient",
            "--results", str(results)]
    code, out = invoke(*base, "--run-name", "none", "--controls", "none")
    assert code == 0, out
    assert "Controls:" not in out
    assert read_json(results / "none" / "tasks_results.json")["controls"] is None
    assert not (results / "none" / "tables" / "floor.csv").exists()
    code, out = invoke(*base, "--run-name", "two", "--control-cases", "2")
    assert code == 0, out
    db = RunStore(results / "eunomia.db")
    try:
        assert db.get_run("none-controls") is None
        assert db.run_totals(db.require_run("two-controls")).cases == 2
    finally:
        db.close()
    overall = read_json(results / "two" / "tasks_results.json")["controls"]["comparisons"][0]
    assert overall["cases"] == 2
    with pytest.raises(EunomiaError, match="--controls 'everything': choose none"):
        invoke(*base, "--controls", "everything")
    with pytest.raises(EunomiaError, match="--control-cases 0: give at least 1"):
        invoke(*base, "--control-cases", "0")
    with pytest.raises(EunomiaError, match="--judge none has no judge"):
        invoke("eval", SUM, "--model", "openai:placeholder", "--judge", "none",
               "--controls", "content-free", "--results", str(results))


def test_a_local_judge_says_how_long_its_controls_take() -> None:
    assert local_seconds(resolve_spec("local:qwen2.5-coder-1.5b")) == 19.0
    assert local_seconds(resolve_spec("likelihood:local:qwen2.5-coder-1.5b")) == 5.0
    assert local_seconds(resolve_spec("openai:gpt-4o-mini")) is None
