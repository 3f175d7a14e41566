"""The embedded model's score distribution (G-Eval) for the judge: read from the logits of
the generation itself, at the score's position, without changing the answer.

Needs the ``local`` extra and gemma3-270m's weights; skipped otherwise.
"""

from __future__ import annotations

import pytest
from tests.support.local_model import require_local_model

from eunomia.judge import Judge, JudgeItem, expected_score, parse_answer

MODEL = "gemma3-270m"
require_local_model(MODEL)

pytestmark = pytest.mark.slow

ITEM = JudgeItem(instruction="Write a title for: steel kettle, 1.7 litres, 2200 W.",
                 expected_response="A steel kettle of 1.7 litres with a 2200 W element.",
                 response="I cannot help with that.")


async def test_the_local_judge_reports_the_score_values_probabilities() -> None:
    from eunomia.models.providers.local import LocalProvider

    provider = LocalProvider(MODEL)
    weighted = Judge(weighted=True).request(ITEM)
    plain = Judge(weighted=False).request(ITEM)
    assert weighted.score_logprobs == ("0", "1", "2", "3", "4", "5")
    try:
        got = await provider.chat(weighted)
        again = await provider.chat(plain)
    finally:
        await provider.close()
    dist = got.score_distribution
    assert dist is not None and set(dist) == set(weighted.score_logprobs)
    # probabilities over the whole vocabulary at the score: each value has some, together
    # at most 1 (the model also wants other tokens there, which the grammar forbids)
    assert all(p > 0 for p in dist.values()) and sum(dist.values()) <= 1.0
    score = parse_answer(got).score
    # greedy decoding under the grammar writes the most probable of the values
    assert max(dist, key=lambda v: dist[v]) == str(score)
    value = expected_score(dist)
    assert value is not None and 0 <= value <= 5
    # asking for the probabilities never changes the answer
    assert again.text == got.text and again.score_distribution is None
