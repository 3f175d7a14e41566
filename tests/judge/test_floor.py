"""The floor statistics: per kind of answer its mean and AUC against the reference, the
lenient and blind-to-errors verdicts, and a candidate against the content-free control."""

from __future__ import annotations

from eunomia.judge import (
    blind_verdict,
    compare_to_floor,
    form_verdict,
    kind_figures,
    lenient_verdict,
    pooled_auc,
)

FACTS = ("numbers", "entity", "negated", "dropped")


def _cases(good: list[float], **kinds: list[float | None]) -> list[dict[str, float | None]]:
    return [{"good": g, **{k: v[i] for k, v in kinds.items()}} for i, g in enumerate(good)]


def test_per_kind_mean_auc_and_drop_against_the_reference() -> None:
    cases = _cases([5, 4, 5, 4, 5, 4], content_free=[1, 0, 1, 2, 0, 1],
                   numbers=[5, 4, 5, 4, 5, 4], dropped=[4, 3, None, 3, 4, 3])
    figures = kind_figures(cases)
    assert list(figures) == ["good", "content_free", "numbers", "dropped"]
    free = figures["content_free"]
    assert free.mean is not None and abs(free.mean.estimate - 5 / 6) < 1e-9
    assert free.auc is not None and free.auc.estimate == 1.0 and free.auc.low == 1.0
    assert free.drop is not None and abs(free.drop.mean_delta - (27 / 6 - 5 / 6)) < 1e-9
    same = figures["numbers"]
    assert same.auc is not None and 0.3 < same.auc.estimate < 0.7  # ties and crossings
    assert same.drop is not None and same.drop.mean_delta == 0
    dropped = figures["dropped"]
    assert dropped.answers == 5 and dropped.auc is not None and dropped.auc.n == 5
    assert figures["good"].auc is None and figures["good"].answers == 6


def test_a_judge_that_gives_nothing_two_or_more_is_lenient_and_says_which_scores_are_evidence(
) -> None:
    cases = _cases([5] * 8, content_free=[2, 3, 4, 2, 3, 4, 2, 3])
    verdict = lenient_verdict(kind_figures(cases)["content_free"])
    assert verdict.finding == "lenient" and verdict.holds
    assert verdict.text.startswith("lenient: it gives an answer that says nothing 2.88 of 5")
    assert "scores at or below 3." in verdict.evidence
    assert "say nothing about this suite's answers" in verdict.evidence
    assert "cannot tell it from the reference" not in verdict.text  # the reference: 5
    plural = lenient_verdict(kind_figures(cases)["content_free"], "these suites")
    assert "say nothing about these suites' answers" in plural.evidence
    as_good = _cases([3, 4, 3, 4, 3, 4], content_free=[4, 3, 3, 4, 4, 3])
    same = lenient_verdict(kind_figures(as_good)["content_free"])
    assert same.holds and "cannot tell it from the reference (AUC 0.50" in same.text

    strict = lenient_verdict(kind_figures(_cases([5] * 8, content_free=[0, 1] * 4))[
        "content_free"])
    assert strict.level == "no" and strict.text.startswith("not lenient")
    assert lenient_verdict(None).level == "unknown"


def test_a_judge_that_scores_altered_facts_like_the_reference_is_blind_to_errors() -> None:
    blind_cases = _cases([4, 5, 4, 5, 4, 5, 4, 5], numbers=[4, 5, 5, 4, 4, 5, 5, 4],
                         negated=[5, 5, 4, 4, 4, 5, 4, 5], dropped=[4, 4, 5, 5, 4, 5, 4, 5])
    verdict = blind_verdict(blind_cases, kind_figures(blind_cases))
    assert verdict.holds and verdict.text.startswith("blind to altered facts")
    assert "does not say that an answer's facts are right" in verdict.evidence

    seeing = _cases([5] * 8, numbers=[2, 1] * 4, negated=[1, 0] * 4, dropped=[3, 2] * 4)
    sees = blind_verdict(seeing, kind_figures(seeing))
    assert sees.level == "no" and sees.text.startswith("sees altered facts")

    partly = _cases([5] * 8, numbers=[5] * 8, negated=[1] * 8, dropped=[2] * 8)
    weak = blind_verdict(partly, kind_figures(partly))
    assert weak.level == "weakly" and "numbers changed" in weak.text
    assert "cannot tell numbers changed from the reference" in weak.text
    assert blind_verdict(_cases([5, 4]), kind_figures(_cases([5, 4]))).level == "unknown"


def test_form_and_pooled_auc() -> None:
    cases = _cases([5] * 6, form=[5, 5, 4, 5, 5, 5], refusal=[0] * 6, other=[1] * 6)
    assert form_verdict(cases, kind_figures(cases)).level == "yes"
    easy = pooled_auc(cases, ("refusal", "other"))
    assert easy is not None and easy.estimate == 1.0


def test_a_candidate_read_against_the_content_free_control() -> None:
    control = {f"c{i}": float(2 + i % 3) for i in range(10)}
    same = {k: v + (0.5 if i % 2 else -0.5) for i, (k, v) in enumerate(control.items())}
    no_better = compare_to_floor(same, control, candidate_name="model A")
    assert no_better.no_better is True and no_better.cases == 10
    assert no_better.text.startswith("model A is no better than a content-free answer: ")
    assert "95% CI" in no_better.text and no_better.delta is not None
    assert no_better.delta.low <= 0 <= no_better.delta.high

    good = {k: 4.5 for k in control}
    above = compare_to_floor(good, control, candidate_name="model B")
    assert above.no_better is False and above.delta is not None and above.delta.low > 0
    assert above.text.startswith("model B scores above a content-free answer")

    partial = {"c0": 5.0, "c1": None, "other": 3.0}
    few = compare_to_floor(partial, control)
    assert few.no_better is None and few.cases == 1 and "too few cases" in few.text


def test_each_likelihood_judge_comes_with_how_far_it_can_be_trusted() -> None:
    from eunomia.judge import LIKELIHOOD_JUDGES, LOCAL_JUDGES, judge_trust, local_judge_name
    from eunomia.models import LOCAL_MODELS

    assert set(LIKELIHOOD_JUDGES) == set(LOCAL_MODELS)
    fast = judge_trust("likelihood:local:qwen2.5-coder-1.5b")
    assert fast is not None and fast.startswith("judge qwen2.5-coder-1.5b scoring by likelihood")
    assert "lenient" in fast and fast != judge_trust("local:qwen2.5-coder-1.5b")
    assert judge_trust("likelihood+feedback:local:gemma3-270m") == \
        judge_trust("likelihood:local:gemma3-270m")
    assert judge_trust("generate:local:gemma3-270m") == \
        f"judge gemma3-270m {LOCAL_JUDGES['gemma3-270m']}"
    assert local_judge_name("likelihood:local") == local_judge_name("local")
    assert judge_trust("likelihood:openai:gpt-4o") is None
