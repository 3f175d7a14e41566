"""The likelihood judge on the real embedded model (gemma3-270m, the tests' model): it reads
the score where the generating judge writes it, depends on the request only, and keeps the
rubric's state between calls. Needs the ``local`` extra and the weights; skipped otherwise."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.local_model import require_local_model

from eunomia.judge import Judge, JudgeCall, JudgeItem
from eunomia.models import ChatMessage, ChatRequest, GenerationSettings, get_model

MODEL = "gemma3-270m"
require_local_model(MODEL)

pytestmark = pytest.mark.slow

ITEM = JudgeItem(
    system_prompt="You write product descriptions for a shop.",
    instruction="Specifications: kettle, 1.7 litres, 2200 W. Write the description.",
    expected_response="This 1.7-litre kettle boils water quickly with its 2200 W element.",
    response="This 1.7-litre kettle boils water quickly with its 2200 W element.")


def _caller(provider: Any) -> Any:
    async def call(request: ChatRequest, k: int, validate: Any) -> JudgeCall:
        result = await provider.chat(request)
        validate(result)
        return JudgeCall(result, 1, False)

    return call


async def test_the_likelihood_judge_reads_the_score_where_the_generating_judge_writes_it(
) -> None:
    judge = Judge()
    fast = get_model(f"likelihood:local:{MODEL}")
    slow = get_model(f"local:{MODEL}")
    request = judge.request(ITEM)
    first = await fast.chat(request)
    assert first.usage.output_tokens == 0 and first.usage.input_tokens > 300
    kept = await fast.chat(request)
    assert kept.usage.cached_input_tokens > 0  # the rubric's system part was kept
    generated = await slow.chat(request)  # in between: the model's state is another's
    again = await fast.chat(request)
    # the request decides, whatever ran before
    assert again.score_distribution == kept.score_distribution == first.score_distribution
    assert first.parsed is not None and generated.parsed is not None
    assert first.score_distribution is not None and generated.score_distribution is not None
    # the same position, read two ways: the same most probable score, similar shares
    lik, gen = first.score_distribution, generated.score_distribution
    assert max(lik, key=lambda v: lik[v]) == max(gen, key=lambda v: gen[v])
    lik_total, gen_total = sum(lik.values()), sum(gen.values())
    assert all(abs(lik[v] / lik_total - gen[v] / gen_total) < 0.15 for v in lik)
    (verdict,) = await judge.score(ITEM, _caller(fast))
    assert verdict.score == first.parsed["score"] and verdict.weighted_score is not None
    # another case of the same category: the guidance and the scale are not evaluated again
    other = await fast.chat(judge.request(ITEM.model_copy(update={
        "instruction": "Specifications: toaster, 2 slots. Write the description.",
        "response": "A toaster."})))
    assert other.usage.cached_input_tokens == kept.usage.cached_input_tokens
    assert other.usage.input_tokens - other.usage.cached_input_tokens \
        < 0.5 * other.usage.input_tokens
    assert verdict.feedback.startswith("(no feedback written: scored by likelihood")


async def test_the_likelihood_judge_with_feedback_writes_it_for_its_score() -> None:
    judge = Judge(settings=GenerationSettings(max_tokens=60))
    provider = get_model(f"likelihood+feedback:local:{MODEL}")
    (verdict,) = await judge.score(ITEM, _caller(provider))
    plain = await get_model(f"likelihood:local:{MODEL}").chat(judge.request(ITEM))
    assert plain.parsed is not None
    if verdict.status == "scored":  # a 270M base model may not finish its JSON in 60 tokens
        assert verdict.score == plain.parsed["score"]
        assert not verdict.feedback.startswith("(no feedback written")


async def test_a_free_text_request_is_refused_with_the_reason() -> None:
    from eunomia.scheduler import CallError

    provider = get_model(f"likelihood:local:{MODEL}")
    with pytest.raises(CallError, match="first field"):
        await provider.chat(ChatRequest(messages=(ChatMessage(role="user", content="Hi"),)))
