"""The probability-weighted (G-Eval) judge score in ``eunomia eval``: beside the sampled score
in the case rows, ``cases.csv`` and the summary; said plainly when the judge's provider gives
no log-probabilities (never the sampled score in its place); and the judge prompt's fixed
rubric head in the system message, the same for every answer."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from tests.judge_check.conftest import EXAMPLE_SUITE, invoke, ten_case_suite
from tests.judge_check.scripted_judge import ScriptedJudge

from eunomia.judge import Judge, JudgeItem, Rubric
from eunomia.judge._judge import SYSTEM

SUITE = str(EXAMPLE_SUITE / "summarization.yaml")


def _cases(folder: Path) -> list[dict[str, str]]:
    with (folder / "tables" / "cases.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_rubric_head_is_the_system_message_of_every_answer(tmp_path: Path) -> None:
    judge = Judge()
    one = judge.request(JudgeItem(instruction="Q1", expected_response="A1", response="x"))
    two = judge.request(JudgeItem(instruction="Q2", expected_response="A2", response="y",
                                  guidance="Check the numbers."))
    assert one.messages[0] == two.messages[0]  # one system part for every judge call
    system, user = one.messages[0].content, one.messages[1].content
    assert system.startswith(SYSTEM) and "You are grading the answer" in system
    assert "You are grading" not in user and user.startswith("Scale:")
    assert two.messages[1].content.startswith("Check the numbers.")
    # nothing of the rubric is lost or repeated: head + rest is the whole rendered rubric
    item = JudgeItem(instruction="Q1", expected_response="A1", response="x")
    whole = judge.rubric.render(item)
    head = system.removeprefix(SYSTEM).strip()
    assert whole.startswith(head) and whole.endswith(user)
    assert (head + "\n" + user).split() == whole.split()
    # a rubric that starts with a placeholder has no fixed head: all of it is the user's
    own = tmp_path / "rubric.txt"
    own.write_text("{response}\nScore it 0-5 as JSON.", encoding="utf-8")
    request = Judge(Rubric.load(own)).request(item)
    assert request.messages[0].content == SYSTEM
    assert request.messages[1].content == "x\nScore it 0-5 as JSON."
    # and so does a short head: a few words are not worth a system part of their own
    own.write_text("Grade this answer: {response}", encoding="utf-8")
    request = Judge(Rubric.load(own)).request(item)
    assert request.messages[0].content == SYSTEM
    assert request.messages[1].content == "Grade this answer: x"


def test_eval_reports_the_weighted_score_beside_the_sampled_one(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    judges.parrot_says = "Free shipping on orders over 50 euros."
    summary_md = tmp_path / "summary.md"
    suite = str(ten_case_suite(tmp_path))  # 10 cases: enough for an interval
    code, out = invoke("eval", suite, "--model", "openai:parrot", "--judge", "openai:overlap",
                       "--results", str(tmp_path), "--run-name", "ev",
                       "--summary-md", str(summary_md))
    assert code == 0, out
    asked = [b for b in judges.bodies if b["model"] == "overlap"]
    assert asked and all(b["logprobs"] is True and b["top_logprobs"] == 20 for b in asked)
    rows = _cases(tmp_path / "ev")
    assert rows and all(r["prob_score"] for r in rows)
    for r in rows:
        # the scripted judge puts 0.6 on its score and 0.3/0.1 on its neighbours: the
        # weighted score is near the sampled one, but not equal to it
        assert abs(float(r["prob_score"]) - float(r["score"])) < 1
        assert float(r["prob_score"]) != float(r["score"])
    data = json.loads((tmp_path / "ev" / "tasks_results.json").read_text(encoding="utf-8"))
    prob = data["judge_prob_score"]
    assert prob["cases"] == len(rows) and prob["cases_without"] == 0
    assert prob["mean"]["estimate"] == pytest.approx(
        sum(float(r["prob_score"]) for r in rows) / len(rows), abs=1e-3)
    assert "Probability-weighted judge score (G-Eval)" in out
    suite_file = next((tmp_path / "ev" / "tasks").glob("*.yaml")).read_text(encoding="utf-8")
    assert "judge_prob_score:" in suite_file
    # the Markdown summary and the HTML report show it too, with its interval
    mean = prob["mean"]
    figure = f"{mean['estimate']:.2f} [{mean['low']:.2f}, {mean['high']:.2f}]"
    md = summary_md.read_text(encoding="utf-8").replace("\\", "")  # Markdown escapes
    assert "Judge score, probability-weighted (G-Eval)" in md and figure in md
    code, out = invoke("report", "ev", "--results", str(tmp_path))
    assert code == 0, out
    html = (tmp_path / "ev" / "report.html").read_text(encoding="utf-8")
    # the figure in its tile, the sentence under the tiles
    assert f'G-Eval judge score, whole run</div><div class="v">{figure}</div>' in html
    assert "weighted by the probabilities of its score tokens: " + figure in html


@pytest.mark.parametrize("judge", ["plain-overlap", "strict-overlap"])
def test_without_log_probabilities_eval_says_so_and_keeps_the_sampled_score(
        judges: ScriptedJudge, tmp_path: Path, judge: str) -> None:
    code, out = invoke("eval", SUITE, "--model", "openai:parrot", "--judge", f"openai:{judge}",
                       "--concurrency", "1", "--results", str(tmp_path), "--run-name", "ev",
                       "--controls", "none")  # the judge's first call is the eval's
    assert code == 0, out
    rows = _cases(tmp_path / "ev")
    assert rows and all(r["status"] == "scored" and r["score"] for r in rows)
    assert all(r["prob_score"] == "" for r in rows)  # never the sampled score in its place
    data = json.loads((tmp_path / "ev" / "tasks_results.json").read_text(encoding="utf-8"))
    prob = data["judge_prob_score"]
    assert prob["mean"] is None and prob["cases"] == 0 and prob["cases_without"] == len(rows)
    assert "not available" in prob["note"]
    assert "not available: the judge's provider gave no token log-probabilities" in \
        " ".join(out.split())
    asked = [b for b in judges.bodies if b["model"] == judge]
    if judge == "strict-overlap":
        # refused once with logprobs, asked again without; the later calls do not ask
        assert "logprobs" in asked[0] and "logprobs" not in asked[1]
        assert all("logprobs" not in b for b in asked[2:])
        assert len(asked) == len(rows) + 1


def test_without_a_judge_there_is_no_weighted_score_to_mention(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    suite = tmp_path / "checked.yaml"
    suite.write_text("""\
- case_id: c1
  category: Instruction Following
  instruction: Say yes.
  checks:
    - contains: "cannot"
""", encoding="utf-8")
    code, out = invoke("eval", str(suite), "--model", "openai:parrot", "--judge", "none",
                       "--results", str(tmp_path), "--run-name", "ev")
    assert code == 0, out
    data = json.loads((tmp_path / "ev" / "tasks_results.json").read_text(encoding="utf-8"))
    assert data["judge_prob_score"]["note"] is None
    assert "Probability-weighted" not in out


def test_each_local_judge_comes_with_how_far_it_can_be_trusted() -> None:
    from eunomia import defaults
    from eunomia.judge import LOCAL_JUDGES, judge_trust, local_judge_name
    from eunomia.models import LOCAL_MODELS

    assert set(LOCAL_JUDGES) == set(LOCAL_MODELS)  # every local model has its sentence
    default = judge_trust(defaults.JUDGE_SPEC)
    assert default is not None and "tells good from bad answers" in default
    assert "AUC" in default  # with its measured figures
    gemma = judge_trust("local:gemma3-270m")
    assert gemma is not None and "not evidence" in gemma
    # "local" alone is the default local model; any other provider has no figures here
    assert local_judge_name("local") == defaults.LOCAL_MODEL
    assert judge_trust("local") == judge_trust(f"local:{defaults.LOCAL_MODEL}")
    assert judge_trust("openai:gpt-4o-mini") is None
    assert local_judge_name("local:no-such-model") is None


def test_eval_with_a_judge_that_is_not_local_has_no_trust_sentence(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    code, out = invoke("eval", SUITE, "--model", "openai:parrot", "--judge", "openai:overlap",
                       "--results", str(tmp_path), "--run-name", "ev")
    assert code == 0, out
    data = json.loads((tmp_path / "ev" / "tasks_results.json").read_text(encoding="utf-8"))
    assert data["judge_trust"] is None and "How far this judge" not in out
