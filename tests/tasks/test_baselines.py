"""The trivial candidates ``baseline:reference`` and ``baseline:empty`` of task suites:
what they answer, that they ask no model and cost nothing, what is not applicable, and what
is said of a judge that scores them high."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.judge_check.scripted_judge import ScriptedJudge
from tests.pairwise.conftest import EXAMPLE_SUITE, invoke
from tests.pairwise.scripted import Scripted, references
from tests.support.cli import run_cli

from eunomia.kinds import Selection
from eunomia.kinds._task_suites import NOT_APPLICABLE, selected_answers
from eunomia.models import resolve_spec
from eunomia.store import RunStore
from eunomia.tasks import CaseResult, load_suite

SUMMARIZATION = EXAMPLE_SUITE / "summarization.yaml"
CONVERSATIONS = EXAMPLE_SUITE / "context_retention.yaml"
SPEED = EXAMPLE_SUITE / "inference_speed.yaml"
SUITE = """\
test_cases:
  - case_id: q0
    category: General Knowledge
    instruction: Before any reference.
  - case_id: q1
    category: General Knowledge
    instruction: First with a reference.
    expected_response: R1
  - case_id: q2
    category: Context Retention
    conversation:
      - user: Hello
        eval_point: Greets back.
  - case_id: q3
    category: General Knowledge
    instruction: No reference here.
  - case_id: q4
    category: General Knowledge
    instruction: Second with a reference.
    expected_response: R4
"""


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Scripted]:
    monkeypatch.chdir(tmp_path)
    server = Scripted(references(*sorted(EXAMPLE_SUITE.glob("*.yaml"))))
    with server.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("COLUMNS", "200")
        yield server


def _answers(path: Path, spec: str, selection: Selection | None = None
             ) -> dict[str, tuple[str | None, str]]:
    suite, problems = load_suite(path)
    assert suite is not None and not problems
    return {entry[0]: (a.text, a.reason) for entry, a in
            selected_answers(suite, selection or Selection(), resolve_spec(spec))}


def test_reference_answers_with_another_cases_expected_response(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    got = _answers(path, "baseline:reference")
    assert got["q0"] == ("R1", "")   # before the first reference: the first's
    assert got["q1"] == ("R4", "")   # the first reference takes the second's
    assert got["q3"] == ("R1", "")   # the previous reference
    assert got["q4"] == ("R1", "")
    text, reason = got["q2"]         # a conversation: nothing to give, turn by turn
    assert text is None and reason.startswith(f"{NOT_APPLICABLE}: baseline:reference")
    # fixed by the suite alone: a selection does not change a case's answer
    assert _answers(path, "baseline:reference", Selection(("q4",))) == {"q4": ("R1", "")}
    assert set(_answers(path, "baseline:empty").values()) == {("", "")}
    alone = tmp_path / "alone.yaml"
    alone.write_text("test_cases:\n  - {case_id: a, category: General Knowledge, "
                     "instruction: x, expected_response: R}\n", encoding="utf-8")
    text, reason = _answers(alone, "baseline:reference")["a"]
    assert text is None and "no other case of this suite has one" in reason


def _cases(store_path: Path, run: str, target: str) -> dict[str, tuple[str, CaseResult]]:
    store = RunStore(store_path)
    try:
        info = store.require_run(run)
        return {row.case_name: (row.status, CaseResult.model_validate_json(
            store.get_blob(row.response))) for row in store.iter_cases(info, None, target)
            if row.response}
    finally:
        store.close()


def _expected(path: Path) -> list[str]:
    data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [str(c["expected_response"]).strip() for c in data["test_cases"]]


def test_baselines_ask_no_model_cost_nothing_and_are_scored_by_the_judge(
        scripted: Scripted, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke("eval", SUMMARIZATION, CONVERSATIONS, SPEED, "--model",
                       "baseline:reference", "--model", "baseline:empty", "--model",
                       "openai:oracle", "--judge", "openai:overlap", "--results", results,
                       "--run-name", "base")
    assert code == 0, out
    assert set(scripted.counts) == {"oracle", "overlap"}  # no request for the baselines
    reference = _cases(results / "eunomia.db", "base", "baseline:reference")
    refs = _expected(SUMMARIZATION)
    assert reference["sum-01"][1].response.strip() == refs[1]
    assert reference["sum-02"][1].response.strip() == refs[0]
    assert reference["sum-03"][1].response.strip() == refs[1]
    status, result = reference["cr-01"]  # a conversation: not applicable, never a 0
    assert status == "unscored" and result.score is None
    assert NOT_APPLICABLE in result.feedback
    status, result = reference["sp-01"]  # speed cases have no reference to borrow
    assert status == "unscored" and NOT_APPLICABLE in result.feedback
    empty = _cases(results / "eunomia.db", "base", "baseline:empty")
    assert {s for s, _ in empty.values()} == {"scored"}
    assert {r.score for _, r in empty.values()} == {0.0}
    assert all(r.speed is None for _, r in empty.values())  # nothing generated, no speed
    assert len(empty["cr-01"][1].turns) == 3  # "" to every turn of a conversation
    folder = results / "base"
    assert not (folder / "baseline_empty" / "tables" / "inference_speed.csv").exists()
    assert (folder / "openai_oracle" / "tables" / "inference_speed.csv").is_file()
    with (folder / "leaderboard.csv").open(encoding="utf-8") as f:
        board = {r["target"]: r for r in csv.DictReader(f)}
    assert float(board["baseline:empty"]["total_cost"]) == 0.0
    assert float(board["baseline:reference"]["total_cost"]) == 0.0
    assert float(board["openai:oracle"]["score"]) > float(board["baseline:reference"]["score"])
    summary = json.loads((folder / "baseline_empty" / "tasks_results.json").read_text(
        encoding="utf-8"))
    assert not any("is empty" in w for w in summary["warnings"])  # empty by design
    flat = " ".join(out.split())
    assert "baseline:empty is a trivial baseline (baseline:empty): it answers \"\" to every " \
           "case" in flat
    assert "baseline:reference is a trivial baseline" in flat
    asked = dict(scripted.counts)
    code, out = invoke("eval", "--resume", "base", "--results", results)
    assert code == 0 and dict(scripted.counts) == asked


def test_a_judge_that_scores_a_baseline_high_is_named(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    judges = ScriptedJudge()
    with judges.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", judges.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        code, out = invoke("eval", SUMMARIZATION, "--model", "baseline:empty", "--judge",
                           "openai:constant", "--results", tmp_path, "--run-name", "high",
                           "--controls", "none")
    assert code == 0, out
    flat = " ".join(out.split())
    assert ("the judge (openai:constant) scores baseline:empty, which knows nothing, 5.00 "
            "of 5 on average") in flat
    assert "gave 5 to every answer" not in flat  # the same score for the same "" is no news
    assert judges.calls == 5


@pytest.mark.parametrize(("options", "expected"), [
    (("--model", "openai:x", "--judge", "baseline:empty"), "a trivial baseline cannot judge"),
    (("--model", "baseline:default"),
     "baseline:default is a target of scenarios (eunomia run --target)"),
    (("--model", "baseline:nothing"),
     "unknown baseline 'baseline:nothing' in a model spec: choose baseline:reference or "
     "baseline:empty"),
])
def test_bad_baselines_are_clear_errors(tmp_path: Path, options: tuple[str, ...],
                                        expected: str) -> None:
    done = run_cli("eval", SUMMARIZATION, *options, "--results", tmp_path / "r", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected in " ".join(done.stderr.split()) and "Traceback" not in done.stderr
