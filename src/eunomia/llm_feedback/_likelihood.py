"""The engine's likelihood mode: each criterion's instruction chosen by probability.

For a model with log-probabilities (:class:`~eunomia.models.providers.likelihood.
OptionsScorer`: the local llama.cpp models) nothing is generated. The prompt holds the
exercise, the example solution and every criterion with its instructions (the system part,
shared by every case and evaluated once), then the student's diagram, then one question per
criterion; every instruction's grading-scale label ("Composition Correct") is scored as the
answer, by the mean log-probability of its tokens.

Raw probabilities favour the "correct" labels everywhere, so each is *calibrated*: the same
criterion's scores on the example solution (graded once per exercise as if it were a
submission) are subtracted. The default instruction — the one with the criterion's highest
credits, which the example solution earns — is kept unless another one's calibrated score
beats it by more than a margin (:data:`~eunomia.defaults.ENGINE_LIKELIHOOD_MARGIN`).
Without an example solution there is no calibration, only the margin.

Each feedback item carries its choice's explanation in ``meta["likelihood"]``: every
instruction's score, reference and calibrated score, the default and the lead of the chosen
one over it. The feedback text is the chosen instruction's own feedback. Measured in
bench/llm_engine.md (prototype: /work/proto/FINDINGS.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, cast

from eunomia import defaults
from eunomia.athena import (
    AthenaExercise,
    AthenaFeedback,
    AthenaGradingInstruction,
    FeedbackRequest,
    LLMRequestUsage,
)
from eunomia.errors import EunomiaError
from eunomia.llm_feedback._render import render_solution, render_submission
from eunomia.llm_feedback._schema import AnswerSchema, CriterionSlot
from eunomia.models import ChatResult, Usage
from eunomia.models.providers.likelihood import (
    OptionsQuestion,
    OptionsRequest,
    OptionsResult,
    OptionsScorer,
)

EngineMode = Literal["generate", "likelihood"]
LIKELIHOOD_VERSION = "1"
"""Changes when the likelihood prompts or decision rule change (part of each request)."""
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def split_mode(spec: str) -> tuple[EngineMode | None, str]:
    """``"likelihood:local"`` → ``("likelihood", "local")``; ``"local"`` → ``(None, "local")``."""
    head, sep, rest = spec.partition(":")
    if sep and head in defaults.ENGINE_MODES:
        if not rest.strip():
            raise EunomiaError(f"invalid model spec {spec!r}: write {head}:<model spec>")
        return cast(EngineMode, head), rest.strip()
    return None, spec


def is_local_spec(spec: str) -> bool:
    return spec == "local" or spec.startswith("local:")


def engine_mode(requested: EngineMode | None, model: str | object) -> EngineMode:
    """The mode to use: the one asked for, else the model's default (local models:
    :data:`~eunomia.defaults.ENGINE_LOCAL_MODE`, others ``generate``). ``model`` is a
    resolved spec or a provider. Asking for ``likelihood`` on a model without
    log-probabilities is an error."""
    scores = is_local_spec(model) if isinstance(model, str) else isinstance(model, OptionsScorer)
    name = model if isinstance(model, str) else str(getattr(model, "name", model))
    if requested == "likelihood" and not scores:
        raise EunomiaError(f"the likelihood engine mode needs a model with log-probabilities "
                           f"(the local models); {name} has none: use generate:{name}")
    if requested is not None:
        return requested
    return defaults.ENGINE_LOCAL_MODE if scores else "generate"


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())


def _labels(slot: CriterionSlot) -> list[str]:
    """The answer scored for each instruction: its grading-scale label, made unique."""
    labels: list[str] = []
    for sgi in slot.criterion.structured_grading_instructions:
        label = _clean(sgi.grading_scale) or _clean(sgi.instruction_description or sgi.feedback)
        label = label or f"Instruction {sgi.id}"
        labels.append(label if label not in labels else f"{label} ({sgi.id})")
    return labels


def _default_index(instructions: list[AthenaGradingInstruction]) -> int:
    """The instruction with the highest credits (the first of equals)."""
    return max(range(len(instructions)), key=lambda k: (instructions[k].credits, -k))


@dataclass(frozen=True, slots=True)
class _Exercise:
    """The likelihood prompts of one exercise."""

    slots: list[CriterionSlot]
    labels: list[list[str]]
    system: str
    questions: tuple[OptionsQuestion, ...]
    reference: str | None
    """The example solution rendered, if the exercise has one."""

    def request(self, rendered: str) -> OptionsRequest:
        return OptionsRequest(system=self.system, context=f"Student's diagram:\n{rendered}\n\n",
                              questions=self.questions)


def _exercise(exercise: AthenaExercise) -> _Exercise:
    slots = AnswerSchema(exercise).slots
    labels = [_labels(slot) for slot in slots]
    lines: list[str] = []
    for slot, names in zip(slots, labels, strict=True):
        lines.append(f'Criterion "{_clean(slot.criterion.title)}":')
        for k, (sgi, label) in enumerate(
                zip(slot.criterion.structured_grading_instructions, names, strict=True)):
            letter = LETTERS[k] if k < len(LETTERS) else str(k + 1)
            lines.append(f"  {letter}) {label}: "
                         f"{_clean(sgi.instruction_description or sgi.feedback)}")
    solution = render_solution(exercise.example_solution)
    system = (
        f'You grade a student\'s diagram for the exercise "{exercise.title.strip()}" '
        f"({exercise.max_points:g} points).\n\n"
        f"Problem statement:\n{exercise.problem_statement.strip()}\n\n"
        f"Grading instructions:\n{exercise.grading_instructions.strip()}\n\n"
        f"Example solution:\n{solution}\n\n"
        "Grading criteria, each with its options:\n" + "\n".join(lines) + "\n\n"
        "You will be shown the student's diagram and asked about one grading criterion "
        "at a time. Compare the student's diagram with the problem statement and the "
        "example solution. Names that mean the same thing count as the same element."
    )
    questions = tuple(
        OptionsQuestion(
            text=f'Criterion "{_clean(slot.criterion.title)}". Which option describes the '
                 "student's diagram? Answer with the option's name only.",
            options=tuple(names))
        for slot, names in zip(slots, labels, strict=True))
    has_solution = bool(exercise.example_solution and exercise.example_solution.strip())
    return _Exercise(slots, labels, system, questions, solution if has_solution else None)


def _mean(values: tuple[float, ...]) -> float:
    return sum(values) / len(values)


class LikelihoodPrompts:
    """The requests of the likelihood mode (no model needed: describable and cacheable)."""

    def __init__(self, margin: float = defaults.ENGINE_LIKELIHOOD_MARGIN) -> None:
        self.margin = margin
        self._cache: dict[str, _Exercise] = {}

    def exercise(self, exercise: AthenaExercise) -> _Exercise:
        key = exercise.model_dump_json()
        prepared = self._cache.get(key)
        if prepared is None:
            if len(self._cache) >= 32:
                self._cache.clear()
            prepared = self._cache[key] = _exercise(exercise)
        return prepared

    def describe(self, request: FeedbackRequest) -> dict[str, Any]:
        """Everything that decides a case's answer (stored with it, hashed for the cache)."""
        prepared = self.exercise(request.exercise)
        reference = prepared.reference
        return {
            "engine": "likelihood",
            "version": LIKELIHOOD_VERSION,
            "rule": {"score": "mean token log-prob", "calibration":
                     "example solution" if reference is not None else "none",
                     "margin": self.margin},
            "request": prepared.request(
                render_submission(request.submission.model)).model_dump(mode="json"),
            "reference_context": reference,
        }


class LikelihoodGrader:
    """Grades submissions by likelihood on one model; keeps each exercise's reference."""

    def __init__(self, model: OptionsScorer, prompts: LikelihoodPrompts) -> None:
        self.model = model
        self.prompts = prompts
        self._references: dict[str, OptionsResult | None] = {}

    async def _reference(self, exercise: AthenaExercise, prepared: _Exercise
                         ) -> tuple[OptionsResult | None, bool]:
        """The example solution's scores (computed once per exercise), and whether they were
        computed now (their cost is then part of this call's usage)."""
        key = exercise.model_dump_json()
        if key in self._references:
            return self._references[key], False
        result = None
        if prepared.reference is not None:
            result = await self.model.score_options(prepared.request(prepared.reference))
        if len(self._references) >= 32:
            self._references.clear()
        self._references[key] = result
        return result, True

    async def grade(self, request: FeedbackRequest
                    ) -> tuple[list[AthenaFeedback], list[LLMRequestUsage], Any, ChatResult]:
        """Feedback items, usage, the explanation per criterion and a result summary."""
        prepared = self.prompts.exercise(request.exercise)
        rendered = render_submission(request.submission.model)
        if not prepared.slots:  # no criterion has instructions: nothing to choose
            return [], [], {}, ChatResult(text="{}", parsed={}, model="none")
        reference, fresh = await self._reference(request.exercise, prepared)
        scored = await self.model.score_options(prepared.request(rendered))
        feedback: list[AthenaFeedback] = []
        answer: dict[str, Any] = {}
        for number, (slot, labels) in enumerate(zip(prepared.slots, prepared.labels,
                                                    strict=True)):
            sgi, why = self._choose(slot, labels, scored.logprobs[number],
                                    reference.logprobs[number] if reference else None)
            answer[slot.key] = why
            feedback.append(AthenaFeedback(
                id=None, title=slot.criterion.title, description=sgi.feedback,
                credits=sgi.credits, structured_grading_instruction_id=sgi.id,
                is_graded=False, meta={"likelihood": why}, exercise_id=request.exercise.id,
                submission_id=request.submission.id, element_ids=[]))
        results = [scored] + ([reference] if fresh and reference is not None else [])
        usage = Usage(input_tokens=sum(r.input_tokens for r in results),
                      cached_input_tokens=sum(r.cached_input_tokens for r in results))
        llm_usage = LLMRequestUsage(
            model=scored.model, num_input_tokens=usage.input_tokens, num_output_tokens=0,
            num_total_tokens=usage.input_tokens,
            num_cached_input_tokens=usage.cached_input_tokens)
        result = ChatResult(text=json.dumps(answer), parsed=answer, usage=usage,
                            latency_s=sum(r.latency_s for r in results), model=scored.model)
        return feedback, [llm_usage], answer, result

    def _choose(self, slot: CriterionSlot, labels: list[str],
                scores: tuple[tuple[float, ...], ...],
                reference: tuple[tuple[float, ...], ...] | None
                ) -> tuple[AthenaGradingInstruction, dict[str, Any]]:
        instructions = slot.criterion.structured_grading_instructions
        raw = [_mean(s) for s in scores]
        ref = [_mean(s) for s in reference] if reference is not None else [0.0] * len(raw)
        calibrated = [a - b for a, b in zip(raw, ref, strict=True)]
        default = _default_index(instructions)
        others = [k for k in range(len(calibrated)) if k != default]
        # The best other instruction, and how far it is ahead of the default (negative:
        # behind); it is chosen only when ahead by more than the margin.
        best = max(others, key=lambda k: (calibrated[k], -k)) if others else default
        lead = calibrated[best] - calibrated[default]
        chosen = best if others and lead > self.prompts.margin else default
        why: dict[str, Any] = {
            "chosen": instructions[chosen].id,
            "default": instructions[default].id,
            "margin": self.prompts.margin,
            "best_other": instructions[best].id if others else None,
            "lead_over_default": round(lead, 4) if others else None,
            "calibration": "example solution" if reference is not None else "none",
            "options": [
                {"id": sgi.id, "label": label, "mean_logprob": round(r, 4),
                 "reference": round(f, 4) if reference is not None else None,
                 "calibrated": round(c, 4)}
                for sgi, label, r, f, c in zip(instructions, labels, raw, ref, calibrated,
                                               strict=True)
            ],
        }
        return instructions[chosen], why
