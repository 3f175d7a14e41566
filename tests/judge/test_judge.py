"""The judge: schema, rubric, tolerant parsing, retries, and "unscored" (never 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.tasks.fake_llm import FakeLLM

from eunomia.errors import EunomiaError
from eunomia.judge import (
    Judge,
    JudgeItem,
    Rubric,
    UnusableAnswer,
    judge_schema,
    parse_answer,
)
from eunomia.kinds._task_suites import ModelCaller
from eunomia.models import ChatResult, get_model
from eunomia.scheduler import AdaptiveLimiter, CallError, RetryPolicy

FAST = RetryPolicy(retries=2, timeout_s=10, backoff_initial_s=0.001, backoff_max_s=0.01)
ITEM = JudgeItem(system_prompt="You sell kettles.", instruction="Describe the kettle.",
                 expected_response="A 1.7 l kettle.", potential_challenges="",
                 response="It is a kettle. MARKER-1")


def verdict(score: object, feedback: str = "ok") -> str:
    return json.dumps({"score": score, "feedback": feedback})


def caller(fake: FakeLLM, retries: int = 2) -> ModelCaller:
    provider = get_model(f"openai:{fake.judge_model}")
    return ModelCaller(provider, f"openai:{fake.judge_model}", "judge",
                       policy=RetryPolicy(retries=retries, timeout_s=10,
                                          backoff_initial_s=0.001, backoff_max_s=0.01),
                       limiter=AdaptiveLimiter(4))


def test_schema_score_is_an_enum_0_to_5() -> None:
    schema = judge_schema()
    assert schema["properties"]["score"]["enum"] == [0, 1, 2, 3, 4, 5]
    assert schema["required"] == ["score", "feedback"]
    assert "minimum" not in schema["properties"]["score"]


def test_bundled_rubric_renders_every_field() -> None:
    rubric = Rubric.load()
    text = rubric.render(ITEM.model_copy(update={"guidance": "GUIDANCE-TEXT"}))
    for part in ("You sell kettles.", "Describe the kettle.", "A 1.7 l kettle.", "MARKER-1",
                 "GUIDANCE-TEXT", "(none)", '{"score"'):
        assert part in text


def test_rubric_problems_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / "r.txt"
    bad.write_text("Grade {answer}", encoding="utf-8")
    with pytest.raises(EunomiaError, match="unknown placeholder"):
        Rubric.load(bad)
    bad.write_text("Grade {instruction}", encoding="utf-8")
    with pytest.raises(EunomiaError, match="response"):
        Rubric.load(bad)
    with pytest.raises(EunomiaError, match="does not exist"):
        Rubric.load(tmp_path / "missing.txt")


def test_parse_answer_is_tolerant_but_strict_on_the_score() -> None:
    fenced = ChatResult(text='Here:\n```json\n{"score": 4.0, "feedback": "fine"}\n```',
                        model="m")
    assert parse_answer(fenced).score == 4
    for bad in ('{"score": 7, "feedback": "x"}', '{"feedback": "x"}', "no json"):
        with pytest.raises(UnusableAnswer) as info:
            parse_answer(ChatResult(text=bad, model="m"))
        assert info.value.raw_text == bad and info.value.retryable


async def test_unparseable_answer_is_retried_then_scored(fake_llm: FakeLLM) -> None:
    fake_llm.judge("MARKER-1", "I think it deserves a four.", verdict(4, "good"))
    c = caller(fake_llm)
    verdicts = await Judge().score(ITEM, lambda r, k, v: c.call(r, k, v))
    assert [(v.score, v.status, v.attempts) for v in verdicts] == [(4, "scored", 2)]
    assert fake_llm.judge_requests == 2


async def test_always_unparseable_answer_is_unscored_with_raw_text_never_zero(
        fake_llm: FakeLLM) -> None:
    fake_llm.judge("MARKER-1", "Score: great!")
    c = caller(fake_llm, retries=2)
    (v,) = await Judge().score(ITEM, lambda r, k, v: c.call(r, k, v))
    assert v.score is None and v.status == "unscored"
    assert v.raw is not None and "Score: great!" in v.raw
    assert v.attempts == 3 and fake_llm.judge_requests == 3


async def test_out_of_range_score_is_unscored(fake_llm: FakeLLM) -> None:
    fake_llm.judge("MARKER-1", verdict(9))
    c = caller(fake_llm, retries=1)
    (v,) = await Judge().score(ITEM, lambda r, k, v: c.call(r, k, v))
    assert v.score is None and v.status == "unscored"


async def test_unreachable_judge_raises(fake_llm: FakeLLM) -> None:
    provider = get_model("openai:fake-judge")
    await fake_llm.close()
    c = ModelCaller(provider, "openai:fake-judge", "judge", policy=FAST,
                    limiter=AdaptiveLimiter(1))
    with pytest.raises(CallError):
        await Judge().score(ITEM, lambda r, k, v: c.call(r, k, v))
    await provider.close()


async def test_judge_repeats_use_their_own_seed(fake_llm: FakeLLM) -> None:
    fake_llm.judge("MARKER-1", verdict(3), verdict(4), verdict(5))
    c = caller(fake_llm)
    verdicts = await Judge(repeats=3).score(ITEM, lambda r, k, v: c.call(r, k, v))
    assert [v.score for v in verdicts] == [3, 4, 5]
    assert [v.repeat for v in verdicts] == [0, 1, 2]
    assert [b["seed"] for b in fake_llm.requests] == [0, 1, 2]
    assert {b["temperature"] for b in fake_llm.requests} == {0.7}  # repeats need sampling
    assert all(b["response_format"]["json_schema"]["schema"]["properties"]["score"]["enum"]
               == [0, 1, 2, 3, 4, 5] for b in fake_llm.requests)


async def test_unscored_keeps_the_whole_raw_answer_not_a_preview(fake_llm: FakeLLM) -> None:
    long_answer = "I refuse to give a number. " * 20 + "END-OF-ANSWER"
    fake_llm.judge("MARKER-1", long_answer)
    c = caller(fake_llm, retries=1)
    (v,) = await Judge().score(ITEM, lambda r, k, v: c.call(r, k, v))
    assert v.score is None and v.status == "unscored"
    assert v.raw is not None and long_answer in v.raw  # all of it, not an 80-character preview
