"""The controlled answers: how each is built from a case, which cases are checked, and that
the judge sees an answer exactly as ``eval`` shows it a candidate's."""

from __future__ import annotations

from pathlib import Path

from tests.judge_check.conftest import answers_of, invoke
from tests.judge_check.scripted_judge import ScriptedJudge

from eunomia.kinds import Selection
from eunomia.kinds._task_suites import EASY_CONTROLS, checkable, selected, unchecked
from eunomia.kinds.judge_check import REFUSAL, answers, padded, truncated
from eunomia.tasks import load_suites

REFERENCE = ("This 1.7-litre stainless steel kettle boils a litre of water in about three "
             "minutes with its 2200 W element.")

SUITE = """\
- case_id: a
  category: Summarization
  instruction: Describe kettle A.
  expected_response: Kettle A boils one litre in three minutes and switches itself off.
- case_id: no-reference
  category: Summarization
  instruction: Describe kettle B.
- case_id: b
  category: General Knowledge
  instruction: What does IP67 mean?
  expected_response: Dust-tight and protected against immersion up to one metre.
- case_id: chat
  category: Context Retention
  conversation:
    - user: My size is 43.
    - user: Which size do I need?
      eval_point: Size 43.
  expected_response: Size 43.
- case_id: c
  category: General Knowledge
  instruction: What is the capital of France?
  expected_response: Paris.
"""


def test_answers_of_a_case() -> None:
    built = answers(REFERENCE, "Another case's reference.")
    assert list(built) == ["good", "other", "truncated", "refusal", "padded"]
    assert built["good"] == REFERENCE and built["refusal"] == REFUSAL == "I cannot help with that."
    cut = built["truncated"]
    assert REFERENCE.startswith(cut) and len(cut) <= len(REFERENCE) // 3
    assert REFERENCE[len(cut)] == " "  # cut at a word boundary
    pad = built["padded"]
    assert pad.startswith(REFERENCE + "\n\n")
    assert len(pad.split()) >= 2 * len(REFERENCE.split())  # at least as long again
    assert "tea" in pad and "kettle" not in pad[len(REFERENCE):]


def test_answers_that_cannot_be_built_are_left_out() -> None:
    assert truncated("Paris.") is None and truncated("Supercalifragilistic is") is None
    assert truncated("Two words") == "Two"
    assert truncated("Cut  at\nthe first third of this text.") == "Cut  at\nthe"  # 12 chars
    assert list(answers("Paris.", None)) == ["good", "refusal", "padded"]
    assert "other" not in answers("Same.", "Same.")
    assert padded("x").count("\n\n") == 1  # one paragraph at least


def test_checkable_cases_and_their_other_case(tmp_path: Path) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(SUITE, encoding="utf-8")
    (suite,), problems = load_suites([path])
    assert problems == []
    found = [(e[0], own[:10], other[:10] if other else None)
             for e, own, other in checkable(suite)]
    # the first case takes the second's reference, the others their previous one's;
    # no reference and conversations are not checked
    assert found == [("a", "Kettle A b", "Dust-tight"), ("b", "Dust-tight", "Kettle A b"),
                     ("c", "Paris.", "Dust-tight")]
    assert unchecked(suite, Selection()) == 2
    # a selection does not change a case's answers (nor their cache keys)
    only_c = [(e[0], {k: v for k, v in a.items() if k in EASY_CONTROLS})
              for e, a in selected(suite, Selection(("c",)))]
    assert only_c == [("c", answers("Paris.", "Dust-tight and protected against immersion up "
                                               "to one metre."))]
    # and the answers that look right and are wrong that the case allows
    (_, built), = selected(suite, Selection(("c",)))
    assert "content_free" in built and "Paris" not in built["content_free"]
    # --max-cases takes the first cases as eval does; those without a reference among
    # them are counted, not replaced by later ones
    assert [e[0] for e, _ in selected(suite, Selection((), 2))] == ["a"]
    assert unchecked(suite, Selection((), 2)) == 1
    assert [e[0] for e, _ in selected(suite, Selection((), 4))] == ["a", "b"]
    assert unchecked(suite, Selection((), 4)) == 2
    assert [e[0] for e, _ in selected(suite, Selection(("general_knowledge/*",)))] == ["b", "c"]


ONE_CASE = """\
- case_id: kettle
  category: Summarization
  system_prompt: You write product descriptions for ShopWell.
  instruction: Describe the kettle in one sentence.
  expected_response: A 1.7-litre steel kettle that boils a litre in three minutes.
  potential_challenges: Inventing features.
"""


def test_the_judge_sees_the_good_answer_as_eval_shows_a_candidates(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    suite = tmp_path / "summarization.yaml"
    suite.write_text(ONE_CASE, encoding="utf-8")
    results = tmp_path / "results"
    judges.parrot_says = "A 1.7-litre steel kettle that boils a litre in three minutes."
    code, out = invoke("eval", str(suite), "--model", "openai:parrot", "--judge",
                       "openai:overlap", "--results", str(results), "--run-name", "ev",
                       "--controls", "none")
    assert code == 0, out
    eval_judge = [b for b in judges.bodies if b["model"] == "overlap"]
    assert len(eval_judge) == 1
    # both ask for the score's log-probabilities by default (eval's judge and the check's)
    assert all(b.get("logprobs") is True for b in eval_judge)
    code, out = invoke("judge-check", str(suite), "--judge", "openai:overlap",
                       "--results", str(results), "--run-name", "jc")
    assert code == 0, out
    asked = [b for b in judges.bodies if b["model"] == "overlap"][1:]
    # the good answer's call is eval's call: same prompt (rubric, guidance, fields), same
    # settings, so it came from the cache; the others were asked (a single case has no other
    # case's answer)
    assert len(asked) == answers_of(suite) - 1 >= 3
    assert "1 request(s) answered from the cache" in out
    prompt = eval_judge[0]["messages"][1]["content"]
    assert "Summarization" in prompt or "summar" in prompt.lower()  # the category's guidance
    for body in asked:
        assert body["messages"][0] == eval_judge[0]["messages"][0]
        assert body["response_format"] == eval_judge[0]["response_format"]
        head = prompt.split("=== The candidate's answer ===")[0]
        assert body["messages"][1]["content"].startswith(head)
