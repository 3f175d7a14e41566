"""Issue 28 against scripted judges on 127.0.0.1: the lenient judge that judge-check's easy
answers call trustworthy is found lenient, a placeholder candidate is read as no better than
a content-free answer, a judge that compares words is found blind to altered facts, and a
judge that discriminates passes — the real judge prompt, provider and answers, end to end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from tests.judge_floor.scripted_judges import ScriptedJudges

from eunomia.judge import (
    CONTENT_FREE,
    Judge,
    JudgeCall,
    JudgeItem,
    blind_verdict,
    compare_to_floor,
    form_verdict,
    kind_figures,
    lenient_verdict,
    pooled_auc,
)
from eunomia.models import ChatRequest, get_model
from eunomia.tasks import (
    Built,
    LoadedCase,
    altered_answers,
    content_free,
    iter_entries,
    load_suites,
    loaded_case,
)

EXAMPLE_SUITE = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "ecommerce"
REFUSAL = "I cannot help with that."


@pytest_asyncio.fixture
async def judges(monkeypatch: pytest.MonkeyPatch, tmp_path: Path
                 ) -> AsyncIterator[ScriptedJudges]:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout
    server = ScriptedJudges()
    await server.start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    try:
        yield server
    finally:
        await server.close()


def _answers() -> list[tuple[LoadedCase, str, dict[str, str]]]:
    """Every checkable case of the example suite with its answers: the reference, a
    refusal, another case's reference, the content-free one and the altered ones."""
    suites, _ = load_suites([EXAMPLE_SUITE])
    out = []
    for suite in suites:
        cases = [loaded_case(e) for e in iter_entries(suite)]
        refs = [(c.case.expected_response or "").strip() for c in cases]
        for i, (case, ref) in enumerate(zip(cases, refs, strict=True)):
            if not ref or case.case.conversation:
                continue
            others = [r for r in refs if r and r != ref]
            made = {"good": ref, "refusal": REFUSAL, "other": others[i % len(others)],
                    CONTENT_FREE: content_free(case, ref).text,
                    "placeholder": f"Answer to case {case.name}: this is the candidate's reply."}
            made.update({a.kind: a.text for a in altered_answers(case, ref, others)
                         if isinstance(a, Built)})
            out.append((case, ref, made))
    return out


async def _scores(rule: str) -> list[dict[str, float | None]]:
    provider = get_model(f"openai:{rule}")
    judge = Judge(weighted=False)

    async def call(request: ChatRequest, k: int, validate: Any) -> JudgeCall:
        result = await provider.chat(request)
        validate(result)
        return JudgeCall(result, 1, False)

    out = []
    for case, ref, made in _answers():
        scores: dict[str, float | None] = {}
        for kind, text in made.items():
            c = case.case
            verdicts = await judge.score(JudgeItem(
                system_prompt=c.system_prompt or "", instruction=c.instruction or "",
                expected_response=ref, potential_challenges=c.challenges_text,
                response=text), call)
            scores[kind] = verdicts[0].score
        out.append(scores)
    await provider.close()
    return out


async def test_the_lenient_judge_passes_the_easy_check_and_is_found_lenient(
        judges: ScriptedJudges) -> None:
    cases = await _scores("lenient")
    assert len(cases) == 25 and judges.calls > 200
    easy = pooled_auc(cases, ("other", "refusal"))
    assert easy is not None and easy.estimate > 0.9  # judge-check's easy answers: "good"
    figures = kind_figures(cases)
    free = figures[CONTENT_FREE]
    assert free.mean is not None and 2 <= free.mean.estimate <= 4
    lenient = lenient_verdict(free)
    assert lenient.holds and lenient.text.startswith("lenient: it gives an answer that says "
                                                     "nothing")
    assert "say nothing about this suite's answers" in lenient.evidence
    # the placeholder candidate of the issue: read against the floor, not against 0
    placeholder = compare_to_floor({str(i): c["placeholder"] for i, c in enumerate(cases)},
                                   {str(i): c[CONTENT_FREE] for i, c in enumerate(cases)},
                                   candidate_name="the placeholder")
    assert placeholder.candidate_mean is not None and placeholder.candidate_mean >= 2
    assert placeholder.no_better is True
    assert placeholder.text.startswith("the placeholder is no better than a content-free")


async def test_a_judge_that_compares_words_is_blind_to_altered_facts(
        judges: ScriptedJudges) -> None:
    cases = await _scores("overlap")
    figures = kind_figures(cases)
    blind = blind_verdict(cases, figures)
    assert blind.level in ("yes", "weakly")
    numbers = figures["numbers"]
    assert numbers.auc is not None and numbers.auc.estimate < 0.8  # changed numbers: barely
    assert numbers.mean is not None and numbers.mean.estimate > 4  # scored like the reference
    assert "numbers changed" in blind.text
    assert not lenient_verdict(figures[CONTENT_FREE]).holds


async def test_a_judge_that_discriminates_passes_and_the_reference_beats_the_floor(
        judges: ScriptedJudges) -> None:
    cases = await _scores("discriminating")
    figures = kind_figures(cases)
    assert lenient_verdict(figures[CONTENT_FREE]).level == "no"
    blind = blind_verdict(cases, figures)
    assert blind.level == "no" and blind.text.startswith("sees altered facts")
    assert form_verdict(cases, figures).level in ("no", "weakly")
    good = compare_to_floor({str(i): c["good"] for i, c in enumerate(cases)},
                            {str(i): c[CONTENT_FREE] for i, c in enumerate(cases)},
                            candidate_name="the reference")
    assert good.no_better is False and good.delta is not None and good.delta.low > 2
