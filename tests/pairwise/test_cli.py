"""``eunomia eval --model A --model B --pairwise`` end to end, as a user runs it, against
scripted candidates and judges on 127.0.0.1."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from tests.pairwise.conftest import EXAMPLE_SUITE, invoke
from tests.pairwise.scripted import Scripted, sections
from tests.support.cli import run_cli

from eunomia.errors import EunomiaError

SUMMARIZATION = EXAMPLE_SUITE / "summarization.yaml"
KNOWLEDGE = EXAMPLE_SUITE / "general_knowledge.yaml"
CONVERSATIONS = EXAMPLE_SUITE / "context_retention.yaml"
PAIR = ("--model", "openai:parrot", "--model", "openai:oracle")


def read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def text(out: str) -> str:
    return " ".join(out.split())


def judge_prompts(server: Scripted, judge: str) -> list[dict[str, str]]:
    return [sections(b["messages"][-1]["content"]) for b in server.bodies
            if b["model"] == judge]


def test_the_better_candidate_wins_in_both_orders(scripted: Scripted, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke("eval", SUMMARIZATION, KNOWLEDGE, *PAIR, "--pairwise", "--judge",
                       "openai:overlap", "--results", results, "--run-name", "pw")
    assert code == 0, out
    assert ("openai:oracle is preferred over openai:parrot: openai:oracle wins 100%, ties "
            "0% and loses 0% of 10 cases") in text(out)
    data = read_json(results / "pw" / "pairwise.json")
    overall = data["overall"]
    assert (overall["cases"], overall["wins"], overall["ties"], overall["losses"]) == \
        (10, 10, 0, 0)
    assert overall["win_rate"]["estimate"] == 1.0 and overall["win_rate"]["low"] < 0.75
    assert overall["preference"]["low"] > 0.5 and data["verdict"]["level"] == "second_better"
    assert {(g["grouping"], g["value"]) for g in data["groups"]} >= {
        ("kind", "Summarization"), ("kind", "General Knowledge"), ("suite", "summarization")}
    position = data["position_bias"]
    # the oracle wins as Response 2 (A shown first) and as Response 1 (B shown first)
    assert position["first_shown_rate"]["estimate"] == 0.5 and not position["biased"]
    assert position["flipped_pairs"] == 0 and position["decisive_verdicts"] == 20
    # each pair shown in both orders: the same two answers, swapped
    prompts = judge_prompts(scripted, "overlap")
    assert len(prompts) == 20 == scripted.counts["overlap"]
    shown = {(p["Response 1"], p["Response 2"]) for p in prompts}
    assert all((two, one) in shown for one, two in shown)
    rows = read_csv(results / "pw" / "tables" / "pairwise.csv")
    assert len(rows) == 10 and {r["outcome"] for r in rows} == {"win"}
    assert {(r["verdict_first_shown_first"], r["verdict_second_shown_first"]) for r in rows} \
        == {("B", "B")}
    board = read_csv(results / "pw" / "leaderboard.csv")
    assert [r["target"] for r in board] == ["openai:oracle", "openai:parrot"]
    assert float(board[0]["score"]) == 1.0 and float(board[1]["score"]) == 0.0
    run = read_json(results / "pw" / "run.json")
    assert run["kind"] == "pairwise" and run["targets"] == ["openai:oracle vs openai:parrot"]


def test_after_eval_the_candidates_are_asked_nothing_then_resumed_reported_exported(
        scripted: Scripted, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke("eval", SUMMARIZATION, CONVERSATIONS, *PAIR, "--judge",
                       "openai:overlap", "--results", results, "--run-name", "ev")
    assert code == 0, out
    asked = (scripted.counts["parrot"], scripted.counts["oracle"])
    assert asked[0] > 10  # 5 single answers and every turn of 5 conversations
    code, out = invoke("eval", SUMMARIZATION, CONVERSATIONS, *PAIR, "--pairwise", "--judge",
                       "openai:overlap", "--results", results, "--run-name", "pw")
    assert code == 0, out
    assert (scripted.counts["parrot"], scripted.counts["oracle"]) == asked
    assert f"{sum(asked)} request(s) answered from the cache" in out
    judged = scripted.counts["overlap"]
    code, out = invoke("eval", "--pairwise", "--resume", "pw", "--results", results)
    assert code == 0, out
    assert scripted.counts["overlap"] == judged and "openai:oracle is preferred" in text(out)
    with pytest.raises(EunomiaError, match="resume it with 'eunomia eval --pairwise "
                                           "--resume pw'"):
        invoke("eval", "--resume", "pw", "--results", results)
    code, out = invoke("report", "pw", "--results", results, "--output", tmp_path / "pw.html")
    assert code == 0, out
    page = text((tmp_path / "pw.html").read_text(encoding="utf-8"))
    assert "openai:oracle is preferred over openai:parrot" in page
    assert "Position bias: the judge preferred the answer shown first" in page
    assert "Context Retention: openai:oracle wins" in page
    code, out = invoke("export", "pw", "--results", results, "--output", tmp_path / "again")
    assert code == 0, out
    assert read_json(tmp_path / "again" / "pw" / "pairwise.json")["overall"] == \
        read_json(results / "pw" / "pairwise.json")["overall"]


def test_conversations_are_compared_whole(scripted: Scripted, tmp_path: Path) -> None:
    code, out = invoke("eval", CONVERSATIONS, *PAIR, "--pairwise", "--judge",
                       "openai:overlap", "--results", tmp_path, "--run-name", "talk")
    assert code == 0, out
    prompts = judge_prompts(scripted, "overlap")
    assert len(prompts) == 10
    for p in prompts:
        assert p["Instruction given to the assistants"].startswith("A conversation")
        assert "Turn 1: " in p["Instruction given to the assistants"]
        assert "- turn " in p["Reference answer"]  # the evaluation points
        for answer in (p["Response 1"], p["Response 2"]):
            assert answer.startswith("User: ") and "\n\nAssistant: " in answer
    assert read_json(tmp_path / "talk" / "pairwise.json")["overall"]["cases"] == 5


def test_a_judge_that_only_looks_at_the_position_gives_ties(scripted: Scripted,
                                                            tmp_path: Path) -> None:
    code, out = invoke("eval", SUMMARIZATION, KNOWLEDGE, *PAIR, "--pairwise", "--judge",
                       "openai:first", "--results", tmp_path, "--run-name", "first")
    assert code == 0, out
    data = read_json(tmp_path / "first" / "pairwise.json")
    assert data["overall"]["ties"] == 10 and data["verdict"]["level"] == "no_difference"
    position = data["position_bias"]
    assert position["first_shown_rate"]["estimate"] == 1.0 and position["biased"]
    assert position["flipped_pairs"] == 10 and position["consistent_pairs"] == 0
    assert any("prefers the answer shown first" in w for w in data["warnings"])
    assert "warning: the judge (openai:first) prefers the answer shown first" in text(out)


def test_loose_answers_are_read_unusable_ones_are_unscored_failures_are_failures(
        scripted: Scripted, tmp_path: Path) -> None:
    code, out = invoke("eval", SUMMARIZATION, *PAIR, "--pairwise", "--judge", "openai:sloppy",
                       "--results", tmp_path, "--run-name", "sloppy")
    assert code == 0, out
    assert read_json(tmp_path / "sloppy" / "pairwise.json")["overall"]["wins"] == 5
    # refused by the provider's schema check, read here at once: no retry asked for it
    assert scripted.counts["sloppy"] == 10
    code, out = invoke("eval", SUMMARIZATION, *PAIR, "--pairwise", "--judge", "openai:mute",
                       "--retries", "0", "--results", tmp_path, "--run-name", "mute")
    assert code == 0, out  # answered, never usably: unscored, not failed, never a tie
    data = read_json(tmp_path / "mute" / "pairwise.json")
    assert data["unscored"] == 5 and data["scored"] == 0
    assert data["overall"]["cases"] == 0 and data["overall"]["not_scored"] == 5
    assert data["overall"]["ties"] == 0 and data["overall"]["win_rate"] is None
    assert "unusable answer" in data["failures"][0]["reason"]
    assert data["verdict"]["level"] == "unknown"
    (tmp_path / "models.yml").write_text(
        "providers:\n  down: {type: openai, base_url: 'http://127.0.0.1:9/v1'}\n",
        encoding="utf-8")
    code, out = invoke("eval", SUMMARIZATION, *PAIR, "--pairwise", "--judge", "down:judge",
                       "--retries", "0", "--results", tmp_path, "--run-name", "down")
    assert code == 1, out
    assert "5 comparison(s) failed" in out
    data = read_json(tmp_path / "down" / "pairwise.json")
    assert data["failed"] == 5 and data["failures"][0]["reason"].startswith("the judge: ")


def test_a_trivial_baseline_against_a_model(scripted: Scripted, tmp_path: Path) -> None:
    code, out = invoke("eval", SUMMARIZATION, CONVERSATIONS, "--model", "baseline:reference",
                       "--model", "openai:oracle", "--pairwise", "--judge", "openai:overlap",
                       "--results", tmp_path, "--run-name", "base")
    assert code == 0, out
    # conversations are not applicable to baseline:reference: nobody is asked about them
    assert scripted.counts["oracle"] == 5 and scripted.counts["overlap"] == 10
    data = read_json(tmp_path / "base" / "pairwise.json")
    assert data["overall"]["cases"] == 5 and data["overall"]["wins"] == 5
    assert data["not_applicable"] == {"first": 5, "second": 0} and data["unscored"] == 5
    assert all(f["reason"].startswith("not applicable: baseline:reference")
               for f in data["failures"])
    assert data["cost"]["first"] == 0.0
    assert "baseline:reference: 5 comparison(s) not applicable" in text(out)


def test_repeats_are_pooled_per_case(scripted: Scripted, tmp_path: Path) -> None:
    code, out = invoke("eval", SUMMARIZATION, *PAIR, "--pairwise", "--judge", "openai:overlap",
                       "--repeat", "2", "--concurrency", "1", "--results", tmp_path,
                       "--run-name", "twice")
    assert code == 0, out
    data = read_json(tmp_path / "twice" / "pairwise.json")
    assert data["comparisons"] == 10 and data["overall"]["cases"] == 5
    assert scripted.counts["oracle"] == 10  # each repeat asks the candidates anew
    # one case at a time: the second repeat's answers are the first's, judged already
    assert scripted.counts["overlap"] == 10


@pytest.mark.parametrize(("options", "expected"), [
    (("--model", "openai:oracle"), "--pairwise compares exactly two candidates"),
    (("--model", "openai:a", "--model", "openai:b", "--model", "openai:c"),
     "exactly two candidates: give --model A --model B (got 3 --model)"),
    ((*PAIR, "--judge", "none"), "--pairwise needs a judge model"),
    ((*PAIR, "--judge", "baseline:empty"), "a trivial baseline cannot judge"),
    ((*PAIR, "--weights", "easy=1"), "a pairwise comparison has none"),
    ((*PAIR, "--rubric", "r.txt"), "--pairwise asks the judge with its own prompt"),
    ((*PAIR, "--judge-repeats", "2"), "--judge-repeats is not supported with --pairwise"),
    ((*PAIR, "--executor", "ray"), "--executor ray is not supported"),
    ((*PAIR, "--matrix", "m.yml"), "a matrix file is not read with --pairwise"),
    ((*PAIR, "--concurrency", "0"), "--concurrency must be positive"),
    (("--model", "openai:oracle", "--model", "openai:oracle"),
     "both candidates are named 'openai:oracle'"),
])
def test_bad_input_is_a_clear_error(scripted: Scripted, tmp_path: Path,
                                    options: tuple[str, ...], expected: str) -> None:
    done = run_cli("eval", SUMMARIZATION, "--pairwise", "--judge", "openai:overlap", *options,
                   "--results", tmp_path / "r", cwd=tmp_path,
                   env={"OPENAI_BASE_URL": scripted.url, "OPENAI_API_KEY": ""})
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected in text(done.stderr) and "Traceback" not in done.stderr
    assert scripted.counts["oracle"] == 0 and scripted.counts["overlap"] == 0


def test_five_cases_name_no_winner(scripted: Scripted, tmp_path: Path) -> None:
    # the better candidate wins all 5 cases, but 5 are too few to call it (before: "is
    # preferred" from an interval over 5 cases)
    results = tmp_path / "results"
    code, out = invoke("eval", SUMMARIZATION, *PAIR, "--pairwise", "--judge",
                       "openai:overlap", "--results", results, "--run-name", "few")
    assert code == 0, out
    assert ("too few cases to tell which of openai:oracle and openai:parrot is better (5 "
            "case(s); at least 10 are needed)") in text(out)
    assert "is preferred over" not in text(out)
    data = read_json(results / "few" / "pairwise.json")
    assert data["verdict"]["level"] == "unknown"
    assert data["overall"]["preference"]["estimate"] == 1.0
    assert data["overall"]["preference"]["too_few"] is True
    assert data["overall"]["preference"]["low"] is None
