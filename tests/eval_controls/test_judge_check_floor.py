"""``eunomia judge-check`` with the answers that look right and are wrong (issue 28), through
the command line against the scripted judges of the issue: the lenient judge, which the five
easy answers call a judge that "tells good from bad answers", is found lenient and not
trusted (and so in ``eval --judge-check``); the discriminating one is not."""

from __future__ import annotations

from pathlib import Path

from tests.eval_controls.conftest import EXAMPLE_SUITE, Server
from tests.judge_check.conftest import invoke, ten_case_suite
from tests.judge_check_eval.test_eval_judge_check import flat, read_json

from eunomia.kinds._task_suites import FLOOR_CONTROLS
from eunomia.store import RunStore

SUM = str(EXAMPLE_SUITE / "summarization.yaml")
"""Its cases twice in the tests (``ten_case_suite``): below 10 cases a verdict is "too few
cases to tell"."""


def test_the_lenient_judge_is_found_lenient_and_the_discriminating_one_not(
        server: Server, tmp_path: Path) -> None:
    results = tmp_path / "results"
    suite = str(ten_case_suite(tmp_path))
    code, out = invoke("judge-check", suite, "--judge", "openai:lenient", "--judge",
                       "openai:discriminating", "--results", str(results), "--run-name", "jc")
    assert code == 0, out
    text = flat(out)
    assert "Answers that look right and are wrong" in text
    assert "openai:lenient: lenient: it gives an answer that says nothing" in text
    assert "openai:discriminating: not lenient" in text
    assert ("this judge tells good from bad answers on this suite (AUC 1.00, 95% CI "
            "1.00-1.00); but lenient") in text
    lenient = read_json(results / "jc" / "openai_lenient" / "judge_check.json")
    suite = lenient["suites"][0]
    floor = suite["looks_right_is_wrong"]
    assert set(floor["kinds"]) == {"good", *FLOOR_CONTROLS}
    assert floor["kinds"]["content_free"]["mean"]["estimate"] >= 2
    assert next((v["finding"], v["holds"]) for v in floor["verdicts"]) == ("lenient", True)
    assert suite["verdict"]["trusted"] is False and suite["verdict"]["lenient"] is True
    sharp = read_json(results / "jc" / "openai_discriminating" / "judge_check.json")
    s = sharp["suites"][0]
    assert s["looks_right_is_wrong"]["kinds"]["content_free"]["mean"]["estimate"] < 1
    assert s["looks_right_is_wrong"]["verdicts"][0]["holds"] is False
    assert s["verdict"]["trusted"] is True
    assert s["looks_right_is_wrong"]["kinds"]["numbers"]["auc_against_reference"][
        "estimate"] > 0.8
    # every built answer is a stored row: <case>#<kind>
    db = RunStore(results / "eunomia.db")
    try:
        names = {r.case_name.split("#")[1] for r in db.iter_cases(db.require_run("jc"))}
    finally:
        db.close()
    assert {"content_free", "numbers", "negated", "dropped"} <= names
    code, out = invoke("report", "jc", "--results", str(results))
    assert code == 0, out
    page = (results / "jc" / "report.html").read_text(encoding="utf-8")
    assert "Finding: lenient" in page and "AUC vs an answer that says nothing" in page


def test_eval_judge_check_never_calls_a_lenient_judge_trustworthy(
        server: Server, tmp_path: Path) -> None:
    results = tmp_path / "results"
    suite = str(ten_case_suite(tmp_path))
    code, out = invoke("eval", suite, "--model", "openai:placeholder", "--judge",
                       "openai:lenient", "--judge-check", "--results", str(results),
                       "--run-name", "ev")
    assert code == 0, out
    data = read_json(results / "ev" / "tasks_results.json")
    assert data["judge_check"]["trusted"] is False
    assert any("but lenient" in w for w in data["warnings"])
    assert "warning: judge check of openai:lenient on summarization" in flat(out)
