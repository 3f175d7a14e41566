"""The judge against people in ``eunomia eval`` (issue 32): human scores from the labels.yml
beside the suite (as ``eunomia label RUN`` writes it) give the quadratic-weighted kappa with a
95% bootstrap interval and the mean absolute difference, in the terminal, the tables, the
JSON summary and the report; below 10 human-scored cases the kappa is "too few cases to tell".
Against a scripted OpenAI-compatible server on 127.0.0.1 (the real provider talks to it)."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml
from tests.judge_check.conftest import answers_of
from tests.support.cli import run_cli
from tests.tasks.fake_llm import FakeLLM

from eunomia.kinds._task_suites import human_agreement

HUMAN = [5, 4, 4, 3, 2, 5, 1, 0, 3, 4, 2, 5]
JUDGE = [5, 4, 3, 3, 3, 4, 2, 1, 3, 5, 2, 4]


def _qwk(a: list[int], b: list[int]) -> float:
    """Quadratic-weighted kappa written out (Cohen 1968), independent of eunomia.stats."""
    k = 6
    observed = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        observed[x, y] += 1
    expected = np.outer(observed.sum(1), observed.sum(0)) / len(a)
    weights = np.array([[(i - j) ** 2 for j in range(k)] for i in range(k)]) / (k - 1) ** 2
    return float(1 - (weights * observed).sum() / (weights * expected).sum())


def _suite(folder: Path, n: int) -> Path:
    cases = [{"case_id": f"gk-{i:02d}", "category": "General Knowledge",
              "instruction": f"What is item-{i:02d}?", "expected_response": f"Item {i}."}
             for i in range(n)]
    path = folder / "general_knowledge.yaml"
    path.write_text(yaml.safe_dump({"test_cases": cases}), encoding="utf-8")
    labels = {"kind": "tasks", "human_score": "mean", "suites": {"general_knowledge": {
        f"gk-{i:02d}": {"anna": {"score": HUMAN[i], "note": "", "at": "2026-11-27T10:00:00Z",
                                 "revision": 1, "run": "first",
                                 "target": "openai:fake-candidate",
                                 "answer_sha256": "0" * 64}}
        for i in range(n)}}}
    (folder / "labels.yml").write_text(yaml.safe_dump(labels), encoding="utf-8")
    return path


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    fake = FakeLLM()
    for i, score in enumerate(JUDGE):
        fake.candidate(f"item-{i:02d}", f"answer-{i:02d}")
        fake.judge(f"answer-{i:02d}", json.dumps({"score": score, "feedback": "ok"}))
    with fake.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        yield fake


def _md(text: str) -> str:
    """As the Markdown summary writes it (brackets escaped)."""
    return text.replace("[", "\\[").replace("]", "\\]")


def _eval(folder: Path, suite: Path, run: str) -> str:
    got = run_cli("eval", suite, "--model", "openai:fake-candidate", "--judge",
                  "openai:fake-judge", "--results", "results", "--run-name", run,
                  "--summary-md", f"{run}.md", cwd=folder, env={"COLUMNS": "200"}, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    return " ".join(got.stdout.split())


def test_labelled_scores_give_kappa_with_an_interval_in_every_output(
        served: FakeLLM, tmp_path: Path) -> None:
    suite = _suite(tmp_path, 12)
    out = _eval(tmp_path, suite, "twelve")
    expected = _qwk(HUMAN, JUDGE)
    mad = float(np.mean(np.abs(np.array(HUMAN) - np.array(JUDGE))))
    got = human_agreement([float(h) for h in HUMAN], [float(j) for j in JUDGE])
    assert got is not None and got.qwk is not None
    assert got.qwk.estimate == pytest.approx(expected)
    assert got.qwk.low < expected < got.qwk.high <= 1 and got.qwk.n == 12
    kappa = f"{expected:.2f} [{got.qwk.low:.2f}, {got.qwk.high:.2f}]"
    assert f"Judge vs human: quadratic-weighted kappa [95% CI] │ {kappa}" in out
    assert f"Judge vs human: mean absolute difference │ {mad:.3f}" in out
    assert "Cases with a human score │ 12" in out and "Judge reliability" in out
    md = (tmp_path / "twelve.md").read_text(encoding="utf-8")
    assert f"Judge vs human scores: quadratic-weighted kappa {_md(kappa)}" in md
    folder = tmp_path / "results" / "twelve"
    rows = {r["metric"]: r["value"] for r in csv.DictReader(
        (folder / "tables" / "judge_agreement.csv").open(encoding="utf-8"))}
    assert float(rows["judge_human_quadratic_weighted_kappa"]) == pytest.approx(expected,
                                                                                abs=1e-4)
    assert float(rows["judge_human_kappa_ci_low"]) == pytest.approx(got.qwk.low, abs=1e-4)
    assert float(rows["judge_human_kappa_ci_high"]) == pytest.approx(got.qwk.high, abs=1e-4)
    assert rows["judge_human_agreement"].startswith(f"quadratic-weighted kappa {kappa}")
    assert rows["scored_by"] == "judge"
    summary = json.loads((folder / "tasks_results.json").read_text(encoding="utf-8"))
    agreement = summary["judge_agreement"]
    assert agreement["human_cases"] == 12
    assert agreement["qwk"] == pytest.approx(expected)
    assert agreement["qwk_low"] == pytest.approx(got.qwk.low)
    report = run_cli("report", "twelve", "--results", "results", cwd=tmp_path, timeout=120)
    assert report.returncode == 0, report.stdout + report.stderr
    html = next((tmp_path / "results").rglob("report.html")).read_text(encoding="utf-8")
    assert "Judge vs human scores, whole run" in html and kappa in html


def test_too_few_human_scores_say_so_instead_of_a_kappa(served: FakeLLM,
                                                        tmp_path: Path) -> None:
    suite = _suite(tmp_path, 4)
    out = _eval(tmp_path, suite, "four")
    assert ("Judge vs human: quadratic-weighted kappa [95% CI] │ too few cases to tell "
            "(4 cases; at least 10 are needed)") in out
    summary = json.loads((tmp_path / "results" / "four" / "tasks_results.json").read_text(
        encoding="utf-8"))
    assert summary["judge_agreement"]["qwk"] is None
    assert summary["judge_agreement"]["human_agreement"].startswith(
        "quadratic-weighted kappa too few cases to tell")


def test_judge_check_scores_the_answers_people_scored_and_compares(
        served: FakeLLM, tmp_path: Path) -> None:
    """``eunomia judge-check`` on suites whose labels.yml holds scores people gave a run's
    answers (``eunomia label RUN``): the judge scores those answers too (read back from the
    store, checked by SHA-256), and the report sets its scores against the people's."""
    suite = _suite(tmp_path, 12)
    _eval(tmp_path, suite, "first")
    labels = yaml.safe_load((tmp_path / "labels.yml").read_text(encoding="utf-8"))
    for i, by in enumerate(labels["suites"]["general_knowledge"].values()):
        by["anna"]["answer_sha256"] = hashlib.sha256(f"answer-{i:02d}".encode()).hexdigest()
    by["anna"]["answer_sha256"] = "f" * 64  # the last one scored another text: left out
    (tmp_path / "labels.yml").write_text(yaml.safe_dump(labels), encoding="utf-8")
    got = run_cli("judge-check", suite, "--judge", "openai:fake-judge", "--results",
                  "results", "--run-name", "check", cwd=tmp_path, env={"COLUMNS": "200"},
                  timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    said = " ".join((got.stdout + got.stderr).split())
    assert "11 answer(s) people scored (eunomia label) are judged too" in said
    assert "1 human-scored answer(s) of run first left out: the stored answer is not the " \
           "text that was scored" in said
    expected = human_agreement([float(h) for h in HUMAN[:11]], [float(j) for j in JUDGE[:11]])
    assert expected is not None and expected.qwk is not None
    assert expected.qwk.estimate == pytest.approx(_qwk(HUMAN[:11], JUDGE[:11]))
    assert (f"Judge vs human scores on general_knowledge (answers people scored with eunomia "
            f"label): {expected.text()}") in said
    result = json.loads((tmp_path / "results" / "check" / "judge_check.json").read_text(
        encoding="utf-8"))
    human = result["suites"][0]["judge_vs_human"]
    assert human["cases"] == 11
    assert human["quadratic_weighted_kappa"]["estimate"] == pytest.approx(expected.qwk.estimate)
    assert human["quadratic_weighted_kappa"]["low"] == pytest.approx(expected.qwk.low)
    # the people's answers are judged beside the controlled ones (those the suite's cases
    # allow), and the AUC is of the controlled ones only
    assert result["suites"][0]["cases"] == 12
    assert result["suites"][0]["answers"] == answers_of(Path(suite)) + 11
    assert {"good", "other", "truncated", "refusal", "padded"} <= set(
        result["suites"][0]["mean_score"])
    assert "human" not in result["suites"][0]["mean_score"]
    report = run_cli("report", "check", "--results", "results", cwd=tmp_path, timeout=120)
    assert report.returncode == 0, report.stdout + report.stderr
    html = (tmp_path / "results" / "check" / "report.html").read_text(encoding="utf-8")
    assert "Judge vs human scores" in html and expected.kappa_text() in html


def test_eval_of_another_candidate_says_the_people_scored_other_answers(
        served: FakeLLM, tmp_path: Path) -> None:
    suite = _suite(tmp_path, 4)  # scores of openai:fake-candidate's answers
    got = run_cli("eval", suite, "--model", "openai:another", "--judge", "openai:fake-judge",
                  "--results", "results", cwd=tmp_path, env={"COLUMNS": "200"}, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    said = " ".join((got.stdout + got.stderr).split())
    assert ("general_knowledge: the human scores in labels.yml rated other answers (4 of "
            "openai:fake-candidate) than this eval's candidate(s) openai:another give") in said
    same = run_cli("eval", suite, "--model", "openai:fake-candidate", "--judge",
                   "openai:fake-judge", "--results", "results", cwd=tmp_path, timeout=120)
    assert same.returncode == 0 and "rated other answers" not in same.stdout + same.stderr


def test_without_a_judge_the_checks_are_what_is_set_beside_people(tmp_path: Path) -> None:
    """``--judge none``: each case's score is its checks' (round(5 x passed / total)), so the
    agreement with the human scores is the checks', and every view says so: the terminal,
    the Markdown summary, the tables, the JSON summary and the report (no "Judge vs human")."""
    suite = _suite(tmp_path, 12)
    data = yaml.safe_load(suite.read_text(encoding="utf-8"))
    for i, case in enumerate(data["test_cases"]):  # 5 when i % 3 == 0, else 2
        case["checks"] = [{"contains": "Item"}, *[{"contains": "zzz"}] * (i % 3)]
    suite.write_text(yaml.safe_dump(data), encoding="utf-8")
    got = run_cli("eval", suite, "--model", "baseline:reference", "--judge", "none",
                  "--results", "results", "--run-name", "checked", "--summary-md", "sum.md",
                  cwd=tmp_path, env={"COLUMNS": "200"}, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    out = " ".join(got.stdout.split())
    checks = [5 if i % 3 == 0 else 2 for i in range(12)]
    expected = human_agreement([float(h) for h in HUMAN], [float(c) for c in checks])
    assert expected is not None and expected.qwk is not None
    assert "Reliability of the checks' score (no judge)" in out
    assert ("Checks vs human: quadratic-weighted kappa [95% CI] │ "
            f"{expected.kappa_text()}") in out
    assert f"Checks vs human: mean absolute difference │ {expected.mad:.3f}" in out
    assert "Judge vs human" not in out and "Judge reliability" not in out
    # people scored openai:fake-candidate's answers, not the baseline's: said, of the checks
    assert "'Checks vs human' compares the checks' score of one answer" in out
    md = (tmp_path / "sum.md").read_text(encoding="utf-8")
    assert f"Checks vs human scores: {_md(expected.text())}" in md
    assert "Judge vs human" not in md
    folder = tmp_path / "results" / "checked"
    rows = {r["metric"]: r["value"] for r in csv.DictReader(
        (folder / "tables" / "judge_agreement.csv").open(encoding="utf-8"))}
    assert rows["scored_by"] == "checks"
    summary = json.loads((folder / "tasks_results.json").read_text(encoding="utf-8"))
    assert summary["judge_agreement"]["scored_by"] == "checks"
    assert summary["judge_agreement"]["human_agreement"] == expected.text()
    report = run_cli("report", "checked", "--results", "results", cwd=tmp_path, timeout=120)
    assert report.returncode == 0, report.stdout + report.stderr
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert "Checks vs human scores, whole run" in html and expected.text() in html
    assert "Judge vs human" not in html
    # the mean and what a comparison could detect are the checks' score's too
    assert "Mean checks&#39; score [95% CI], whole run" in html
    assert _md("Mean checks' score (0-5) [95% CI]") in md and "judge score" not in md
    assert "points of the checks' score (0-5)" in out and "judge points" not in out
