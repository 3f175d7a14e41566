"""``eunomia eval --judge-check`` end to end through the command line, against scripted
judges: the check runs once for the judge and each suite before the eval, is stored as its
own run linked from the eval run, is cached like every call, and its verdict is shown beside
the scores in the terminal, the result files, the Markdown summary and the HTML report."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from tests.judge_check.conftest import EXAMPLE_SUITE, answers_of, invoke, ten_case_suite
from tests.judge_check.scripted_judge import ScriptedJudge, sections

from eunomia.kinds.judge_check import REFUSAL
from eunomia.store import RunStore

SUITE = str(EXAMPLE_SUITE / "summarization.yaml")
"""Replaced by a copy of it with its cases twice (:func:`ten_cases`)."""
CASES = 10
"""The example summarization suite's cases twice, all with a reference answer: the fewest
a verdict needs (below 10 the check says "too few cases to tell")."""
ANSWERS = 0
"""The check's answers of those cases (five easy ones each, and those that look right and
are wrong): set with the copy."""


@pytest.fixture(autouse=True, scope="module")
def ten_cases(tmp_path_factory: pytest.TempPathFactory) -> None:
    global SUITE, ANSWERS
    SUITE = str(ten_case_suite(tmp_path_factory.mktemp("suite")))
    ANSWERS = answers_of(Path(SUITE))
CANNOT_TELL = ("this judge cannot tell good from bad answers on this suite; its scores are "
               "not evidence")
TELLS = "this judge tells good from bad answers on this suite"


def flat(text: str) -> str:
    return " ".join(text.split())


def read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def eval_args(results: Path, run: str, judge: str, *more: str) -> list[str]:
    return ["eval", SUITE, "--model", "openai:parrot", "--judge", judge, "--judge-check",
            "--controls", "none", "--results", str(results), "--run-name", run, *more]


def refusals_judged(server: ScriptedJudge, since: int = 0) -> int:
    """Judge requests about the check's refusal answer (one per checked case)."""
    return sum(1 for b in server.bodies[since:] if b["model"] != "parrot"
               and sections(b["messages"][-1]["content"]).get("The candidate's answer")
               == REFUSAL)


def test_a_judge_that_can_judge_is_said_to_beside_the_scores(
        server: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke(*eval_args(results, "ev", "openai:overlap"))
    assert code == 0, out
    text = flat(out)
    assert "Judge check of openai:overlap before the eval (run ev-judge-check)" in text
    # the check's own table, then the eval's summary with the verdict after it
    assert text.index("Judge check: openai:overlap") < text.index("Tasks: openai:parrot")
    assert f"judge check of openai:overlap on summarization: {TELLS}" in text
    assert text.rindex(TELLS) > text.index("Tasks: openai:parrot")
    assert "warning: judge check" not in text
    # the check: its controlled answers per case; the eval: a candidate and a judge call each
    assert refusals_judged(server) == CASES
    assert sum(b["model"] == "parrot" for b in server.bodies) == CASES
    db = RunStore(results / "eunomia.db")
    try:
        check = db.require_run("ev-judge-check")
        assert check.kind == "judge_check" and check.targets == ["openai:overlap"]
        assert db.run_totals(check).cases == ANSWERS
        link = db.require_run("ev").settings["judge_check"]
        assert link["run"] == "ev-judge-check" and link["judge"] == "openai:overlap"
        assert [v["level"] for v in link["verdicts"]] == ["good"]
    finally:
        db.close()
    data = read_json(results / "ev" / "tasks_results.json")
    assert data["judge_check"]["trusted"] is True
    assert data["judge_check"]["verdicts"][0]["auc"] == 1.0
    assert not any("judge check" in w for w in data["warnings"])
    with (results / "ev" / "tables" / "judge_check_verdicts.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["suite"], r["level"], r["trusted"]) for r in rows] == \
        [("summarization", "good", "True")]
    assert rows[0]["verdict"].startswith(TELLS)


def test_a_judge_that_scores_everything_5_gets_the_verdict_everywhere(
        server: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    md = tmp_path / "summary.md"
    code, out = invoke(*eval_args(results, "ev", "openai:constant", "--summary-md", str(md)))
    assert code == 0, out
    text = flat(out)
    line = f"judge check of openai:constant on summarization: {CANNOT_TELL}"
    # after the eval's summary, as a warning
    assert f"warning: {line}" in text
    assert text.index(f"warning: {line}") > text.index("Tasks: openai:parrot")
    data = read_json(results / "ev" / "tasks_results.json")
    assert data["judge_check"]["trusted"] is False
    assert data["judge_check"]["verdicts"][0]["level"] == "cannot_tell"
    assert any(w.startswith(line) for w in data["warnings"])
    markdown = md.read_text(encoding="utf-8")
    assert CANNOT_TELL in markdown and "ev-judge-check" in markdown
    # the HTML report: the verdict card beside the mean score and the warning
    code, out = invoke("report", "ev", "--results", str(results))
    assert code == 0, out
    html = (results / "ev" / "report.html").read_text(encoding="utf-8")
    assert CANNOT_TELL in html
    assert "cannot tell good from bad: its scores are not evidence (AUC 0.50" in html
    card = ('<div class="k">Mean score</div><div class="v">5.00</div></div><div class="card wide">'
            '<div class="k">Judge check</div><div class="v">cannot tell good from bad')
    assert card in html  # the card right after the mean score it qualifies
    assert "eunomia report ev-judge-check" in html


def test_a_second_eval_asks_the_judge_nothing_for_the_check(
        server: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke(*eval_args(results, "first", "openai:overlap"))
    assert code == 0, out
    asked = server.calls
    assert refusals_judged(server) == CASES
    code, out = invoke(*eval_args(results, "second", "openai:overlap"))
    assert code == 0, out
    assert server.calls == asked  # the check's and the eval's calls all came from the cache
    assert f"{ANSWERS} request(s) answered from the cache" in flat(out)
    assert f"judge check of openai:overlap on summarization: {TELLS}" in flat(out)
    first = read_json(results / "first" / "tasks_results.json")["judge_check"]
    second = read_json(results / "second" / "tasks_results.json")["judge_check"]
    assert second["run"] == "second-judge-check"
    assert second["verdicts"] == first["verdicts"]
    # --no-cache asks again
    code, out = invoke(*eval_args(results, "third", "openai:overlap", "--no-cache"))
    assert code == 0, out
    assert refusals_judged(server, asked) == CASES


def test_resume_finds_the_check_and_asks_nothing_again(
        server: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke(*eval_args(results, "ev", "openai:constant"))
    assert code == 0, out
    asked = server.calls
    code, out = invoke("eval", "--resume", "ev", "--results", str(results))
    assert code == 0, out
    assert server.calls == asked
    text = flat(out)
    assert "Judge check of openai:constant before the eval (run ev-judge-check)" in text
    assert f"warning: judge check of openai:constant on summarization: {CANNOT_TELL}" in text
    db = RunStore(results / "eunomia.db")
    try:
        assert sorted(r.name for r in db.list_runs()) == ["ev", "ev-judge-check"]
        assert db.run_totals(db.require_run("ev-judge-check")).cases == ANSWERS
    finally:
        db.close()
    # a run started without the check cannot take it on resume
    code, out = invoke("eval", SUITE, "--model", "openai:parrot", "--judge", "openai:constant",
                       "--results", str(results), "--run-name", "plain")
    assert code == 0, out
    assert "judge check" not in flat(out).lower()
    with pytest.raises(Exception, match="started without --judge-check"):
        invoke("eval", "--resume", "plain", "--judge-check", "--results", str(results))


def test_a_matrix_run_checks_the_judge_once_not_per_candidate(
        server: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke("eval", SUITE, "--model", "openai:parrot", "--model", "baseline:empty",
                       "--judge", "openai:overlap", "--judge-check", "--results", str(results),
                       "--run-name", "matrix")
    assert code == 0, out
    assert flat(out).count("before the eval") == 1
    assert refusals_judged(server) == CASES  # once per case, not once per candidate
    line = f"judge check of openai:overlap on summarization: {TELLS}"
    assert flat(out).count(line) == 2  # beside each candidate's summary
    found = [p for p in (results / "matrix").iterdir() if (p / "tasks_results.json").is_file()]
    assert len(found) == 2, found  # one folder per candidate
    for folder in found:
        assert read_json(folder / "tasks_results.json")["judge_check"]["run"] == \
            "matrix-judge-check"


def test_usage_errors(server: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    with pytest.raises(Exception, match="--judge none has no judge"):
        invoke(*eval_args(results, "none", "none"))
    with pytest.raises(Exception, match="no checkable case"):
        invoke("eval", str(EXAMPLE_SUITE / "context_retention.yaml"), "--model",
               "openai:parrot", "--judge", "openai:overlap", "--judge-check", "--results",
               str(results), "--run-name", "chat")
    with pytest.raises(Exception, match="with --pairwise, check the judge"):
        invoke("eval", SUITE, "--model", "openai:parrot", "--model", "baseline:empty",
               "--pairwise", "--judge-check", "--results", str(results))
    assert server.calls == 0  # refused before anything was asked
    code, out = invoke(*eval_args(results, "taken", "openai:overlap"))
    assert code == 0, out
    asked = server.calls
    with pytest.raises(Exception, match="a run named 'taken' already exists"):
        invoke(*eval_args(results, "taken", "openai:overlap"))
    assert server.calls == asked


def test_an_eval_stopped_after_its_check_does_not_check_again(
        server: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    # what an eval interrupted right after its check leaves in the store: the check's run
    code, out = invoke("judge-check", SUITE, "--judge", "openai:constant", "--no-weighted",
                       "--results", str(results), "--run-name", "ev-judge-check")
    assert code == 0, out
    code, out = invoke("judge-check", SUITE, "--judge", "openai:constant", "--no-weighted",
                       "--results", str(results), "--run-name", "ev-judge-judge-check")
    assert code == 0, out
    asked = server.calls
    assert asked == ANSWERS  # the second check's calls came from the cache
    code, out = invoke(*eval_args(results, "ev", "openai:constant"))
    assert code == 0, out
    assert refusals_judged(server, asked) == 0  # the stored check was resumed, not redone
    assert server.calls == asked + 2 * CASES  # the eval's candidate and judge calls only
    assert f"warning: judge check of openai:constant on summarization: {CANNOT_TELL}" \
        in flat(out)
    # the stored check of another judge is not taken for this one's
    with pytest.raises(Exception, match="not the judge check of openai:overlap"):
        invoke("eval", SUITE, "--model", "openai:parrot", "--judge", "openai:overlap",
               "--judge-check", "--results", str(results), "--run-name", "ev-judge")
