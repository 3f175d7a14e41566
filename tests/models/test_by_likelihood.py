"""A judge's score chosen by likelihood: the spec, the choice, the answer it returns.

The model here is a stand-in for llama.cpp's numbers (it returns given log-probabilities and
records what it was asked); tests/judge/test_likelihood_local.py runs the real local model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest

from eunomia.errors import EunomiaError
from eunomia.judge import Judge, JudgeCall, JudgeItem, judge_schema
from eunomia.models import (
    ChatMessage,
    ChatRequest,
    ChatResult,
    GenerationSettings,
    ModelsConfig,
    Usage,
    judge_spec,
    resolve_spec,
)
from eunomia.models.providers.by_likelihood import LikelihoodChooser, choose, split_user
from eunomia.models.providers.likelihood import OptionsRequest, OptionsResult
from eunomia.scheduler import CallError


@dataclass
class Numbers:
    """Stands in for the local model: the values' probabilities at the score, as given."""

    probabilities: list[float]
    asked: list[OptionsRequest] = field(default_factory=list)
    chats: list[ChatRequest] = field(default_factory=list)
    name: str = "local:stand-in"

    async def score_options(self, request: OptionsRequest) -> OptionsResult:
        self.asked.append(request)
        return OptionsResult(logprobs=((tuple((math.log(p),) for p in self.probabilities)),),
                             model="stand-in", input_tokens=700, cached_input_tokens=400,
                             latency_s=1.5)

    async def chat(self, request: ChatRequest) -> ChatResult:
        self.chats.append(request)
        value = request.json_schema["properties"]["score"]["enum"][0]  # type: ignore[index]
        text = f'{{"score":{value},"feedback":"Because."}}'
        return ChatResult(text=text, parsed={"score": value, "feedback": "Because."},
                          usage=Usage(input_tokens=700, output_tokens=40), latency_s=9.0,
                          model="stand-in")

    async def close(self) -> None:
        pass


P = [0.01, 0.02, 0.05, 0.30, 0.50, 0.02]  # over the vocabulary: 0.90 on the values


def _request(**settings: float | int) -> ChatRequest:
    return ChatRequest(
        messages=(ChatMessage(role="system", content="You grade."),
                  ChatMessage(role="user", content="Grade this answer.")),
        settings=GenerationSettings(**settings),  # type: ignore[arg-type]
        json_schema=judge_schema(), score_logprobs=tuple(str(s) for s in range(6)))


async def test_the_most_probable_value_is_the_score_and_nothing_is_written() -> None:
    model = Numbers(P)
    result = await LikelihoodChooser(model).chat(_request())
    assert result.parsed == {"score": 4, "feedback": ""}
    assert result.text == '{"score":4,"feedback":""}'
    assert result.score_distribution == {str(i): pytest.approx(p) for i, p in enumerate(P)}
    assert result.usage == Usage(input_tokens=700, output_tokens=0, cached_input_tokens=400)
    asked = model.asked[0]
    assert asked.system == "You grade." and asked.context == "Grade this answer."
    (question,) = asked.questions
    assert question.reply == '{"score":' and question.options == tuple("012345")
    assert not model.chats


async def test_the_part_every_case_shares_is_its_own_segment() -> None:
    model = Numbers(P)
    user = "Guidance for summaries.\n\nScale: 0-5.\n\n=== Reference answer ===\nA kettle."
    request = _request().model_copy(update={"messages": (
        ChatMessage(role="system", content="You grade."), ChatMessage(role="user", content=user))})
    await LikelihoodChooser(model).chat(request)
    asked = model.asked[0]
    assert asked.context == "Guidance for summaries.\n\nScale: 0-5.\n\n"
    assert asked.questions[0].text == "=== Reference answer ===\nA kettle."
    assert asked.context + asked.questions[0].text == user  # the same prompt, in two parts
    assert split_user("no sections here") == ("no sections here", "")


async def test_with_feedback_the_model_writes_it_for_the_chosen_score() -> None:
    model = Numbers(P)
    chooser = LikelihoodChooser(model, feedback=True)
    assert chooser.name == "likelihood+feedback:local:stand-in"
    result = await chooser.chat(_request())
    assert result.parsed == {"score": 4, "feedback": "Because."}
    (written,) = model.chats
    assert written.json_schema is not None
    assert written.json_schema["properties"]["score"]["enum"] == [4]  # fixed by the grammar
    assert written.score_logprobs is None
    assert result.usage.output_tokens == 40 and result.latency_s == pytest.approx(10.5)
    assert result.score_distribution is not None


def test_temperature_draws_from_the_probabilities_with_the_seed() -> None:
    assert choose(P, 0.0, None) == 4
    assert choose([0.2, 0.2], 0.0, None) == 0  # the first of equals
    draws = [choose(P, 1.0, seed) for seed in range(300)]
    assert draws == [choose(P, 1.0, seed) for seed in range(300)]  # the seed decides
    assert draws.count(4) > draws.count(3) > draws.count(0)
    assert len(set(draws)) >= 3


async def test_the_judge_reads_the_likelihood_answer_and_its_weighted_score() -> None:
    chooser = LikelihoodChooser(Numbers(P))

    async def call(request: ChatRequest, k: int, validate: object) -> JudgeCall:
        return JudgeCall(await chooser.chat(request), 1, False)

    (verdict,) = await Judge().score(JudgeItem(instruction="Say hi.", response="Hi."), call)
    assert verdict.score == 4
    weighted = sum(i * p for i, p in enumerate(P)) / sum(P)
    assert verdict.weighted_score == pytest.approx(weighted)
    assert verdict.feedback.startswith("(no feedback written: scored by likelihood")
    assert "4: 0.56" in verdict.feedback


async def test_a_request_it_cannot_answer_by_likelihood_is_refused() -> None:
    chooser = LikelihoodChooser(Numbers(P))
    free = ChatRequest(messages=(ChatMessage(role="user", content="Write a poem."),))
    with pytest.raises(CallError, match="first field") as info:
        await chooser.chat(free)
    assert not info.value.retryable
    no_enum = _request().model_copy(update={"json_schema": {
        "type": "object", "properties": {"score": {"type": "integer"}}}})
    with pytest.raises(CallError, match="no enum"):
        await chooser.chat(no_enum)
    talk = _request().model_copy(update={"messages": (
        ChatMessage(role="user", content="a"), ChatMessage(role="assistant", content="b"),
        ChatMessage(role="user", content="c"))})
    with pytest.raises(CallError, match="one user message"):
        await chooser.chat(talk)


def test_the_spec_says_how_a_local_model_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = resolve_spec("local:qwen2.5-coder-1.5b")
    assert plain.scoring is None and plain.spec == "local:qwen2.5-coder-1.5b"
    fast = resolve_spec("likelihood:local:qwen2.5-coder-1.5b")
    assert fast.scoring == "likelihood" and fast.backend == "local"
    assert fast.spec == "likelihood:local:qwen2.5-coder-1.5b"  # its own cache keys
    assert resolve_spec("likelihood+feedback:local").spec == \
        "likelihood+feedback:local:qwen2.5-coder-0.5b"
    said = resolve_spec("generate:local:qwen2.5-coder-1.5b")
    assert said.scoring == "generate" and said.spec == plain.spec  # the same cache keys
    with pytest.raises(EunomiaError, match="only the local models"):
        resolve_spec("likelihood:openai:gpt-4o-mini")
    with pytest.raises(EunomiaError, match="two ways"):
        resolve_spec("likelihood:generate:local")
    with pytest.raises(EunomiaError, match="write likelihood:<model spec>"):
        resolve_spec("likelihood:")
    config = ModelsConfig.model_validate({"models": {
        "fast-judge": {"spec": "likelihood:local:qwen2.5-coder-1.5b"}}})
    aliased = resolve_spec("fast-judge", config)
    assert aliased.spec == fast.spec and aliased.alias == "fast-judge"


def test_a_judge_scores_by_likelihood_where_its_model_can_unless_its_spec_says() -> None:
    assert judge_spec(resolve_spec("local:qwen2.5-coder-1.5b")).spec == \
        "likelihood:local:qwen2.5-coder-1.5b"
    assert judge_spec(resolve_spec("local:qwen2.5-coder-1.5b"), feedback=True).spec == \
        "likelihood+feedback:local:qwen2.5-coder-1.5b"
    assert judge_spec(resolve_spec("generate:local:qwen2.5-coder-1.5b")).spec == \
        "local:qwen2.5-coder-1.5b"
    assert judge_spec(resolve_spec("openai:gpt-4o-mini")).spec == "openai:gpt-4o-mini"
