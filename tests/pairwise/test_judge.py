"""The pairwise judge's prompt and answers, how two orders make one outcome, and the
Wilson interval the rates are given with."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.judge import (
    PairVerdict,
    PairwiseItem,
    PairwiseJudge,
    PairwisePrompt,
    UnusableAnswer,
    Winner,
    parse_pairwise,
)
from eunomia.kinds.pairwise import Answer, OrderVerdict, PairResult, wilson
from eunomia.models import ChatResult


def _parsed(text: str) -> tuple[str, str]:
    answer = parse_pairwise(ChatResult(text=text, model="judge"))
    return answer.winner, answer.reason


@pytest.mark.parametrize(("text", "winner", "reason"), [
    ('{"winner": "2", "reason": "closer to the reference"}', "2", "closer to the reference"),
    ('Verdict:\n```json\n{"Winner": "Response 1", "explanation": "more complete"}\n```',
     "1", "more complete"),
    ('{"better": 2, "rationale": "r"}', "2", "r"),
    ('{"verdict": "draw"}', "tie", ""),
    ('{"winner": "the second", "reason": "x"}', "2", "x"),
    ('{"winner": "Tie", "reason": "both equally wrong"}', "tie", "both equally wrong"),
])
def test_the_answer_is_read_tolerantly(text: str, winner: str, reason: str) -> None:
    assert _parsed(text) == (winner, reason)


def test_the_parsed_json_of_a_schema_enforcing_provider_is_used() -> None:
    got = parse_pairwise(ChatResult(text="ignored", model="j",
                                    parsed={"winner": "tie", "reason": "same"}))
    assert (got.winner, got.reason) == ("tie", "same")


@pytest.mark.parametrize("text", ["Both look fine to me.", '{"winner": "3", "reason": "x"}',
                                  '{"reason": "no verdict"}', '{"winner": true}'])
def test_an_answer_without_a_verdict_is_unusable_never_a_tie(text: str) -> None:
    with pytest.raises(UnusableAnswer) as caught:
        parse_pairwise(ChatResult(text=text, model="judge"))
    assert caught.value.raw_text == text and caught.value.retryable


def test_the_bundled_prompt_shows_both_answers_and_the_task() -> None:
    item = PairwiseItem(instruction="Describe the kettle.", expected_response="A 1.7 l kettle.",
                        response_1="First answer.", response_2="")
    request = PairwiseJudge().request(item)
    prompt = request.messages[-1].content
    assert "=== Response 1 ===\nFirst answer." in prompt
    assert "=== Response 2 ===\n(empty answer)" in prompt
    assert "=== Reference answer ===\nA 1.7 l kettle." in prompt
    assert "=== Difficult points to watch ===\n(none)" in prompt
    assert request.json_schema is not None
    assert request.json_schema["properties"]["winner"]["enum"] == ["1", "2", "tie"]
    swapped = PairwiseJudge().request(item.swapped()).messages[-1].content
    assert "=== Response 1 ===\n(empty answer)" in swapped
    assert "=== Response 2 ===\nFirst answer." in swapped


def test_a_prompt_file_must_show_both_answers(tmp_path: Path) -> None:
    one = tmp_path / "one.txt"
    one.write_text("Which is better? {response_1}", encoding="utf-8")
    with pytest.raises(EunomiaError, match=r"\{response_2\} are missing"):
        PairwiseJudge(PairwisePrompt.load(one))
    bad = tmp_path / "bad.txt"
    bad.write_text("{response_1} {response_2} {rubric}", encoding="utf-8")
    with pytest.raises(EunomiaError, match=r"bad.txt: unknown placeholder \{rubric\}"):
        PairwisePrompt.load(bad)
    with pytest.raises(EunomiaError, match="does not exist"):
        PairwisePrompt.load(tmp_path / "missing.txt")


def _pair(a_first: Winner | None, b_first: Winner | None, **extra: object) -> PairResult:
    orders = [OrderVerdict(shown_first="A", verdict=PairVerdict(winner=a_first)),
              OrderVerdict(shown_first="B", verdict=PairVerdict(winner=b_first))]
    return PairResult(case="c", kind="summarization", category="Summary",
                      a=Answer(label="a", spec="openai:a"),
                      b=Answer(label="b", spec="openai:b"), orders=orders, **extra)


@pytest.mark.parametrize(("a_first", "b_first", "value", "outcome", "flipped"), [
    ("2", "1", 1.0, "win", False),      # B picked in both orders
    ("1", "2", 0.0, "loss", False),     # A picked in both orders
    ("1", "1", 0.5, "tie", True),       # the first position both times: flips, a tie
    ("2", "2", 0.5, "tie", True),       # the second position both times
    ("tie", "1", 0.75, "win", False),   # B in one order, a tie in the other
    ("1", "tie", 0.25, "loss", False),
    ("tie", "tie", 0.5, "tie", False),
])
def test_two_orders_make_one_outcome(a_first: Winner, b_first: Winner, value: float,
                                     outcome: str, flipped: bool) -> None:
    pair = _pair(a_first, b_first)
    assert pair.status == "scored"
    assert pair.value == value and pair.outcome == outcome and pair.flipped is flipped


def test_a_pair_without_both_verdicts_has_no_outcome() -> None:
    unusable = _pair("2", None)
    assert unusable.status == "unscored" and unusable.value is None
    assert unusable.outcome is None
    assert unusable.reason is not None and "B shown first is unusable" in unusable.reason
    failed = _pair("2", "1", error="the judge: connection refused")
    assert failed.status == "failed" and failed.value is None
    not_applicable = PairResult(case="c", kind="k", category="k",
                                a=Answer(label="a", spec="baseline:reference",
                                         not_applicable="not applicable: a conversation"),
                                b=Answer(label="b", spec="openai:b"))
    assert not_applicable.status == "unscored"
    assert not_applicable.reason == "not applicable: a conversation"


def test_wilson_interval_matches_known_values_and_never_collapses() -> None:
    none = wilson(0, 10)
    assert none is not None and none.estimate == 0.0 and none.low == 0.0
    assert math.isclose(none.high, 0.2775, abs_tol=1e-4)  # a bootstrap would say [0, 0]
    half = wilson(5, 10)
    assert half is not None
    assert math.isclose(half.low, 0.2366, abs_tol=1e-4)
    assert math.isclose(half.high, 0.7634, abs_tol=1e-4)
    every = wilson(12, 12)
    assert every is not None and every.high == 1.0 and every.low < 0.8 and every.n == 12
    assert wilson(0, 0) is None
