"""The likelihood mode without a model: mode selection, prompts, descriptions, the rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eunomia.athena import AthenaSubmission, FeedbackRequest
from eunomia.errors import EunomiaError
from eunomia.llm_feedback import LikelihoodGrader, LikelihoodPrompts, engine_mode, split_mode
from eunomia.llm_feedback._schema import AnswerSchema
from eunomia.models.providers.likelihood import OptionsScorer
from eunomia.models.providers.local import LocalProvider
from eunomia.scenarios import Scenario
from eunomia.targets.llm import LLMTarget


def request_for(scenario: Scenario, case: str) -> FeedbackRequest:
    test_case = scenario.case_named(case)
    assert test_case is not None
    return FeedbackRequest(
        exercise=scenario.athena_exercise(),
        submission=AthenaSubmission(id=1, exercise_id=scenario.exercise.id,
                                    model=test_case.submission),
        is_graded=True)


def test_split_mode_reads_a_leading_mode_word() -> None:
    assert split_mode("likelihood:local") == ("likelihood", "local")
    assert split_mode("generate:local:qwen2.5-coder-1.5b") == ("generate",
                                                               "local:qwen2.5-coder-1.5b")
    assert split_mode("local:qwen2.5-coder-0.5b") == (None, "local:qwen2.5-coder-0.5b")
    assert split_mode("openai:gpt-4o-mini") == (None, "openai:gpt-4o-mini")
    with pytest.raises(EunomiaError, match="likelihood:<model spec>"):
        split_mode("likelihood:")


def test_local_models_default_to_likelihood_others_generate() -> None:
    assert engine_mode(None, "local") == "likelihood"
    assert engine_mode(None, "local:qwen2.5-coder-1.5b") == "likelihood"
    assert engine_mode(None, "openai:gpt-4o-mini") == "generate"
    assert engine_mode("generate", "local") == "generate"
    assert isinstance(LocalProvider("qwen2.5-coder-0.5b"), OptionsScorer)
    assert engine_mode(None, LocalProvider("qwen2.5-coder-0.5b")) == "likelihood"
    with pytest.raises(EunomiaError, match="log-probabilities"):
        engine_mode("likelihood", "openai:gpt-4o-mini")


def test_targets_name_their_mode_and_describe_different_requests(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout
    case = scenario.test_cases[0]
    implicit = LLMTarget("local:qwen2.5-coder-0.5b")
    explicit = LLMTarget("likelihood:local:qwen2.5-coder-0.5b")
    generative = LLMTarget("generate:local:qwen2.5-coder-0.5b")
    assert implicit.name == "llm:local:qwen2.5-coder-0.5b"
    assert explicit.name == "llm:likelihood:local:qwen2.5-coder-0.5b"
    assert generative.name == "llm:generate:local:qwen2.5-coder-0.5b"
    assert implicit.prompts.mode == explicit.prompts.mode == "likelihood"
    assert generative.prompts.mode == "generate"
    # The request description is hashed into the cache key: the modes must not share answers.
    described = json.loads(implicit.describe_request(scenario, case))
    assert implicit.describe_request(scenario, case) == explicit.describe_request(scenario, case)
    assert generative.describe_request(scenario, case) != implicit.describe_request(scenario,
                                                                                     case)
    assert described["engine"] == "likelihood"
    assert described["rule"]["margin"] == 0.5
    assert described["rule"]["calibration"] == "example solution"
    questions = described["request"]["questions"]
    assert len(questions) == len(scenario.criteria)
    assert questions[1]["options"] == ["Composition Correct", "Composition Reversed",
                                       "Not a Composition"]


def test_prompts_list_every_criterion_and_label(scenario: Scenario) -> None:
    prompts = LikelihoodPrompts()
    request = request_for(scenario, "perfect_solution")
    prepared = prompts.exercise(request.exercise)
    assert len(prepared.questions) == len(scenario.criteria)
    for question, criterion in zip(prepared.questions, scenario.criteria, strict=True):
        assert len(question.options) == len(criterion.instructions)
        assert criterion.title in question.text
        for label in question.options:
            assert label in prepared.system
    assert prepared.reference is not None and "Example solution:" in prepared.system
    assert prepared.request("X").context == "Student's diagram:\nX\n\n"
    other = LikelihoodPrompts(margin=1.0).describe(request)
    assert other != prompts.describe(request)


def choose(scenario: Scenario, margin: float, scores: list[float], reference: list[float]
           ) -> tuple[int, dict[str, object]]:
    """The rule on the relationship-type criterion, with each option's mean log-prob."""
    slot = AnswerSchema(scenario.athena_exercise()).slots[1]
    labels = [sgi.grading_scale for sgi in slot.criterion.structured_grading_instructions]
    grader = LikelihoodGrader(LocalProvider("qwen2.5-coder-0.5b"), LikelihoodPrompts(margin))
    sgi, why = grader._choose(slot, labels, tuple((s, s) for s in scores),
                              tuple((r,) for r in reference))
    return sgi.id, why


def test_the_default_is_kept_unless_another_leads_by_more_than_the_margin(
    scenario: Scenario
) -> None:
    slot = AnswerSchema(scenario.athena_exercise()).slots[1]
    ids = [sgi.id for sgi in slot.criterion.structured_grading_instructions]
    default = max(slot.criterion.structured_grading_instructions, key=lambda s: s.credits).id
    assert default == ids[0]
    # Raw scores favour the default; against the reference, "Not a Composition" gained 0.6.
    chosen, why = choose(scenario, 0.5, [-1.0, -3.0, -1.4], [-1.0, -3.0, -2.0])
    assert chosen == ids[2]
    assert why["best_other"] == ids[2] and why["lead_over_default"] == pytest.approx(0.6)
    # The same with a larger margin keeps the default; the lead is still explained.
    chosen, why = choose(scenario, 0.7, [-1.0, -3.0, -1.4], [-1.0, -3.0, -2.0])
    assert chosen == default == why["chosen"]
    assert why["lead_over_default"] == pytest.approx(0.6)
    # A default that is most likely after calibration: the lead is negative.
    chosen, why = choose(scenario, 0.0, [-0.5, -3.0, -2.5], [-1.0, -3.0, -2.0])
    assert chosen == default and why["lead_over_default"] == pytest.approx(-0.5)
    options = why["options"]
    assert isinstance(options, list) and [o["id"] for o in options] == ids
    assert options[0]["calibrated"] == pytest.approx(0.5)


def test_a_model_without_log_probabilities_generates(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    from eunomia.llm_feedback import FeedbackEngine
    from eunomia.models import get_model, resolve_spec

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-secret")
    model = get_model(resolve_spec("openai:gpt-4o-mini", None))
    assert not isinstance(model, OptionsScorer)
    assert FeedbackEngine(model).mode == "generate"
    with pytest.raises(EunomiaError, match="log-probabilities"):
        FeedbackEngine(model, mode="likelihood")
    local = FeedbackEngine(LocalProvider("qwen2.5-coder-0.5b"))  # nothing is loaded yet
    assert local.mode == "likelihood"
