"""``eunomia judge-check`` end to end, as a user runs it, against scripted judges."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from tests.judge_check.conftest import EXAMPLE_SUITE, answers_of, invoke, ten_case_suite
from tests.judge_check.scripted_judge import ScriptedJudge

CANNOT_TELL = ("this judge cannot tell good from bad answers on this suite; its scores are "
               "not evidence")
CHECKABLE = 25
"""The example suites' 35 cases but the 5 conversations and the 5 inference-speed cases,
which have no reference answer."""
ANSWERS = answers_of(EXAMPLE_SUITE)
"""Their answers: five easy ones each, and those that look right and are wrong."""
SUMMARIZATION = answers_of(EXAMPLE_SUITE / "summarization.yaml")
GENERAL_KNOWLEDGE = answers_of(EXAMPLE_SUITE / "general_knowledge.yaml")


def read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_a_good_judge_is_trusted_and_its_scores_order_the_answers(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke("judge-check", str(EXAMPLE_SUITE), "--judge", "openai:overlap",
                       "--results", str(results), "--run-name", "good")
    assert code == 0, out
    assert "Judge check: openai:overlap" in out
    assert ("openai:overlap on all suites: this judge tells good from bad answers on all "
            "these suites (AUC 1.00, 95% CI 1.00-1.00)") in " ".join(out.split())
    # 35 cases: 5 conversations and 5 inference-speed cases without a reference are left out
    assert "10 selected case(s) have no reference answer or are conversations" in out
    data = read_json(results / "good" / "judge_check.json")
    overall = data["overall"]
    assert overall["cases"] == CHECKABLE == sum(s["cases"] for s in data["suites"])
    assert overall["answers"] == overall["scored"] == ANSWERS > 5 * CHECKABLE
    assert overall["auc"]["estimate"] == 1.0 and overall["verdict"]["level"] == "good"
    means = {k: v["estimate"] for k, v in overall["mean_score"].items()}
    assert means["good"] == 5.0 and means["refusal"] == 0.0
    assert means["good"] > means["padded"] > means["other"]
    assert means["good"] > means["truncated"] > means["refusal"]
    assert overall["verbosity_bias"]["high"] < 0  # padding is penalised, not rewarded
    assert overall["weighted_auc"]["estimate"] == 1.0  # the server gave log-probabilities
    with (results / "good" / "tables" / "judge_check.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == CHECKABLE
    assert {r["good"] for r in rows} == {"5.0"} and {r["refusal"] for r in rows} == {"0.0"}
    assert all(float(r["good_weighted"]) > float(r["refusal_weighted"]) for r in rows)
    run = read_json(results / "good" / "run.json")
    assert run["kind"] == "judge_check" and run["targets"] == ["openai:overlap"]
    assert judges.calls == ANSWERS


def test_a_constant_judge_gets_the_verdict_cannot_tell(judges: ScriptedJudge,
                                                       tmp_path: Path) -> None:
    code, out = invoke("judge-check", str(EXAMPLE_SUITE / "summarization.yaml"),
                       str(EXAMPLE_SUITE / "general_knowledge.yaml"), "--judge",
                       "openai:constant", "--results", str(tmp_path), "--run-name", "const")
    assert code == 0, out
    text = " ".join(out.split())
    # 5 cases a suite: too few for an interval, so no verdict either way (before: "AUC 0.50,
    # 95% CI 0.50-0.50" as if certain); the 10 cases of both suites are enough for one
    assert ("openai:constant on summarization: too few cases to tell whether this judge can "
            "judge on this suite (AUC 0.50 over 5 case(s); at least 10 are needed)") in text
    assert "cannot tell good from bad answers on all these suites" in text
    data = read_json(tmp_path / "const" / "judge_check.json")
    assert [v["level"] for v in data["verdicts"]] == ["unknown", "unknown", "cannot_tell"]
    assert data["verdicts"][0]["auc"]["too_few"] is True
    assert data["verdicts"][0]["auc"]["low"] is None
    assert data["verdicts"][2]["auc"]["too_few"] is False
    assert not any(v["trusted"] for v in data["verdicts"])
    code, out = invoke("report", "const", "--results", str(tmp_path), "--output",
                       str(tmp_path / "const.html"))
    assert code == 0, out
    page = " ".join((tmp_path / "const.html").read_text(encoding="utf-8").split())
    assert "too few cases to tell (5 cases; at least 10 are needed)" in page  # AUC 95% CI
    assert "too few cases to tell whether this judge can judge on this suite" in page
    big = [str(ten_case_suite(tmp_path, n)) for n in ("summarization", "general_knowledge")]
    code, out = invoke("judge-check", *big, "--judge", "openai:constant", "--results",
                       str(tmp_path), "--run-name", "const10")
    assert code == 0, out
    text = " ".join(out.split())
    assert f"openai:constant on summarization: {CANNOT_TELL} (AUC 0.50, 95% CI 0.50-0.50)" \
        in text
    data = read_json(tmp_path / "const10" / "judge_check.json")
    assert [v["level"] for v in data["verdicts"]] == ["cannot_tell"] * 3


def test_several_judges_ranked_by_auc_then_cached_resumed_reported_compared(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    results = tmp_path / "results"
    suite = str(ten_case_suite(tmp_path))  # 10 cases: enough for a verdict
    specs = ["--judge", "openai:constant", "--judge", "openai:lengthy", "--judge",
             "openai:overlap"]
    code, out = invoke("judge-check", suite, *specs, "--results", str(results),
                       "--run-name", "three")
    assert code == 0, out
    text = " ".join(out.split())
    assert "openai:lengthy on summarization: this judge tells good from bad answers only " \
           "weakly on this suite" in text
    assert "it rewards padding: irrelevant text added to the reference raises its score by " \
           "+2.80" in text
    with (results / "three" / "leaderboard.csv").open(encoding="utf-8") as f:
        board = list(csv.DictReader(f))
    assert [r["target"] for r in board] == ["openai:overlap", "openai:lengthy",
                                            "openai:constant"]
    assert float(board[0]["score"]) == 1.0 and float(board[2]["score"]) == 0.5
    assert (results / "three" / "openai_lengthy" / "judge_check.json").is_file()
    asked = judges.calls
    assert asked == 3 * answers_of(Path(suite))
    # the same check again: every answer from the cache
    code, out = invoke("judge-check", suite, *specs, "--results", str(results),
                       "--run-name", "again")
    assert code == 0 and judges.calls == asked
    assert f"{asked} request(s) answered from the cache" in out
    code, out = invoke("judge-check", "--resume", "three", "--results", str(results))
    assert code == 0 and judges.calls == asked
    code, out = invoke("report", "three", "--results", str(results), "--output",
                       str(tmp_path / "three.html"))
    assert code == 0, out
    page = (tmp_path / "three.html").read_text(encoding="utf-8")
    assert "openai:constant on summarization: " + CANNOT_TELL in " ".join(page.split())
    assert "AUC good vs bad" in page and "Verdict" in page
    code, out = invoke("compare", "three", "again", "--results", str(results))
    assert code == 0, out
    assert "NO SIGNIFICANT CHANGE" in out
    code, out = invoke("export", "three", "--results", str(results), "--output",
                       str(tmp_path / "export"))
    assert code == 0, out
    assert (tmp_path / "export" / "three" / "openai_overlap" / "tables"
            / "judge_check.csv").is_file()


def test_self_agreement_and_unusable_judges(judges: ScriptedJudge, tmp_path: Path) -> None:
    suite = str(EXAMPLE_SUITE / "general_knowledge.yaml")
    code, out = invoke("judge-check", suite, "--judge", "openai:overlap", "--judge-repeats",
                       "2", "--results", str(tmp_path), "--run-name", "twice")
    assert code == 0, out
    assert "Self-agreement over 2 scorings: Krippendorff alpha 1.000" in out
    assert judges.calls == 2 * GENERAL_KNOWLEDGE
    code, out = invoke("judge-check", suite, "--judge", "openai:mute", "--retries", "0",
                       "--results", str(tmp_path), "--run-name", "mute")
    assert code == 0, out  # answered, but never usably: unscored, not failed
    text = " ".join(out.split())
    assert f"{GENERAL_KNOWLEDGE} of {GENERAL_KNOWLEDGE} answer(s) not scored" in text
    assert "too few scored answers to tell whether this judge can judge on this suite" in text
    data = read_json(tmp_path / "mute" / "judge_check.json")
    assert data["suites"][0]["unscored"] == GENERAL_KNOWLEDGE
    assert data["suites"][0]["auc"] is None


def test_a_judge_that_cannot_be_reached_fails_the_answers(
        judges: ScriptedJudge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    code, out = invoke("judge-check", str(EXAMPLE_SUITE / "summarization.yaml"), "--judge",
                       "openai:overlap", "--retries", "0", "--results", str(tmp_path),
                       "--run-name", "down")
    assert code == 1
    assert f"{SUMMARIZATION} answer(s) could not be judged" in out
    data = read_json(tmp_path / "down" / "judge_check.json")
    assert data["suites"][0]["failed"] == SUMMARIZATION
    assert "connection" in data["failures"][0]["reason"]


def test_usage_errors(judges: ScriptedJudge, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no checkable case"):
        invoke("judge-check", str(EXAMPLE_SUITE / "context_retention.yaml"), "--judge",
               "openai:overlap", "--results", str(tmp_path))
    with pytest.raises(Exception, match="no checkable case matches nothing-here"):
        invoke("judge-check", str(EXAMPLE_SUITE), "--case", "nothing-here",
               "--results", str(tmp_path))
    code, _ = invoke("judge-check", str(EXAMPLE_SUITE / "summarization.yaml"), "--judge",
                     "openai:overlap", "--max-cases", "1", "--results", str(tmp_path),
                     "--run-name", "one")
    assert code == 0
    with pytest.raises(Exception, match="run 'one' is a judge_check run"):
        invoke("eval", "--resume", "one", "--results", str(tmp_path))


def test_max_cases_selects_as_eval_and_says_what_it_left_out(judges: ScriptedJudge,
                                                             tmp_path: Path) -> None:
    """--max-cases 2 takes the first two cases of each suite, as eval does: of the 14, the
    two conversations and the two inference-speed cases have no reference (issue #30: it
    said "10 selected case(s) have no reference", counting every suite's whole file)."""
    code, out = invoke("judge-check", str(EXAMPLE_SUITE), "--judge", "openai:overlap",
                       "--max-cases", "2", "--results", str(tmp_path), "--run-name", "two")
    assert code == 0, out
    assert "4 selected case(s) have no reference answer or are conversations" in out
    data = read_json(tmp_path / "two" / "judge_check.json")
    assert data["overall"]["cases"] == 10
    # five easy answers a case and those that look right and are wrong
    assert judges.calls == sum(g["answers"] for g in data["suites"]) > 5 * 10
    assert data["cases_not_checkable"] == 4
