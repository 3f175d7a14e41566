"""The feedback engine: one constrained model call per submission, Athena-shaped output.

Two modes (:data:`~eunomia.defaults.ENGINE_MODES`): ``generate`` asks the model for a JSON
answer (any chat model); ``likelihood`` scores every instruction instead
(:mod:`eunomia.llm_feedback._likelihood`; models with log-probabilities).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from eunomia import defaults
from eunomia.athena import AthenaExercise, AthenaFeedback, FeedbackRequest, LLMRequestUsage
from eunomia.llm_feedback._likelihood import (
    EngineMode,
    LikelihoodGrader,
    LikelihoodPrompts,
    engine_mode,
)
from eunomia.llm_feedback._prompt import PromptTemplates
from eunomia.llm_feedback._render import NO_SOLUTION, render_solution, render_submission
from eunomia.llm_feedback._schema import AnswerSchema, Choice
from eunomia.models import (
    ChatMessage,
    ChatRequest,
    ChatResult,
    GenerationSettings,
    JSONExtractionError,
    ModelProvider,
    extract_json,
)
from eunomia.models.providers.likelihood import OptionsScorer
from eunomia.scheduler import CallError

ENGINE_VERSION = "1"
"""Changes when the engine's prompting or answer mapping changes (part of cache identities)."""


@dataclass(frozen=True, slots=True)
class Assessment:
    """Everything one grading produced."""

    feedback: list[AthenaFeedback]
    usage: list[LLMRequestUsage]
    answer: Any
    """The model's parsed JSON answer."""
    result: ChatResult


class PromptBuilder:
    """Builds the chat call for a request: prompts, answer schema and settings.

    Needs no model, so the exact request can be described (and cached) before any
    model is loaded. ``max_tokens`` is the smaller of ``settings.max_tokens`` and a
    budget of :data:`defaults.ENGINE_TOKENS_PER_CRITERION` per criterion. ``mode``
    ``likelihood`` describes the likelihood requests instead (:meth:`describe`).
    """

    def __init__(
        self,
        templates: PromptTemplates | None = None,
        *,
        settings: GenerationSettings | None = None,
        feedback_max_chars: int | None = defaults.ENGINE_FEEDBACK_MAX_CHARS,
        mode: EngineMode = "generate",
        margin: float = defaults.ENGINE_LIKELIHOOD_MARGIN,
    ) -> None:
        self.mode: EngineMode = mode
        self.likelihood = LikelihoodPrompts(margin)
        self.templates = templates if templates is not None else PromptTemplates.load()
        self.settings = settings if settings is not None else GenerationSettings()
        self.feedback_max_chars = feedback_max_chars
        self._cache: dict[str, tuple[AnswerSchema, dict[str, str], str]] = {}

    def _prepare(self, exercise: AthenaExercise) -> tuple[AnswerSchema, dict[str, str], str]:
        """The answer schema, common prompt values and system prompt of an exercise (cached)."""
        key = exercise.model_dump_json()
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        schema = AnswerSchema(exercise, feedback_max_chars=self.feedback_max_chars)
        values = {
            "exercise_title": exercise.title.strip(),
            "max_points": f"{exercise.max_points:g}",
            "problem_statement": exercise.problem_statement.strip() or NO_SOLUTION,
            "grading_instructions": exercise.grading_instructions.strip() or NO_SOLUTION,
            "example_solution": render_solution(exercise.example_solution),
            "criteria": schema.describe(),
            "answer_format": schema.answer_format(),
        }
        system = self.templates.system.render(values)
        if len(self._cache) >= 32:
            self._cache.clear()
        self._cache[key] = (schema, values, system)
        return schema, values, system

    def chat_request(self, request: FeedbackRequest) -> tuple[AnswerSchema, ChatRequest]:
        """The answer schema and the chat call for ``request``.

        Raises a non-retryable :class:`CallError` when the submission is unreadable.
        """
        schema, common, system = self._prepare(request.exercise)
        values = {**common, "submission": render_submission(request.submission.model)}
        user = self.templates.user.render(values)
        budget = defaults.ENGINE_TOKENS_BASE + defaults.ENGINE_TOKENS_PER_CRITERION * max(
            1, len(schema.slots)
        )
        settings = self.settings.model_copy(
            update={"max_tokens": min(self.settings.max_tokens, budget)}
        )
        chat = ChatRequest(
            messages=(
                ChatMessage(role="system", content=system),
                ChatMessage(role="user", content=user),
            ),
            settings=settings,
            json_schema=schema.json_schema(),
        )
        return schema, chat

    def describe(self, request: FeedbackRequest) -> bytes:
        """What decides the answer to ``request`` in this mode (stored, and hashed for the
        cache): the chat call, or the likelihood requests and rule."""
        if self.mode == "likelihood":
            return json.dumps(self.likelihood.describe(request), sort_keys=True).encode()
        return self.chat_request(request)[1].model_dump_json().encode()


def _usable(exc: CallError) -> CallError:
    """A provider's "the answer is not the JSON asked for" becomes a retryable failure.

    Providers treat an unparsable or schema-violating answer as final
    (``retryable=False``); for the engine it is a failed attempt like any other,
    so the scheduler retries and finally reports the case as failed.
    """
    if exc.answer_text is not None:  # set by the providers exactly for unusable answers
        again = CallError(f"unusable answer: {exc.reason}", retryable=True,
                          answer_text=exc.answer_text)
        again.attempts = exc.attempts
        return again
    return exc


class FeedbackEngine:
    """Grades a submission against the exercise's structured grading instructions.

    One chat call per request, constrained to :class:`AnswerSchema`. The system
    prompt holds everything common to an exercise; the user prompt holds only the
    submission, so providers can reuse the prompt prefix across submissions.
    The engine does not retry: an unusable answer raises a retryable
    :class:`CallError` and the caller (scheduler, HTTP client) decides.
    """

    def __init__(
        self,
        model: ModelProvider,
        templates: PromptTemplates | None = None,
        *,
        settings: GenerationSettings | None = None,
        feedback_max_chars: int | None = defaults.ENGINE_FEEDBACK_MAX_CHARS,
        prompts: PromptBuilder | None = None,
        mode: EngineMode | None = None,
    ) -> None:
        """``prompts`` (a ready :class:`PromptBuilder`, with its mode) replaces the options
        before it; else ``mode`` None is the model's default (:func:`engine_mode`)."""
        self.model = model
        self.prompts = prompts or PromptBuilder(
            templates, settings=settings, feedback_max_chars=feedback_max_chars,
            mode=engine_mode(mode, model),
        )
        self._grader: LikelihoodGrader | None = None
        if self.prompts.mode == "likelihood":
            if not isinstance(model, OptionsScorer):
                engine_mode("likelihood", model)  # raises: the model has no log-probabilities
            else:
                self._grader = LikelihoodGrader(model, self.prompts.likelihood)

    @property
    def mode(self) -> EngineMode:
        return self.prompts.mode

    def chat_request(self, request: FeedbackRequest) -> tuple[AnswerSchema, ChatRequest]:
        """The chat call for ``request`` (no model is called)."""
        return self.prompts.chat_request(request)

    async def assess(self, request: FeedbackRequest) -> Assessment:
        """Grade ``request``; raises :class:`CallError` (retryable for unusable answers)."""
        if self._grader is not None:
            return Assessment(*await self._grader.grade(request))
        schema, chat = self.chat_request(request)
        if not schema.slots:
            return Assessment([], [], {}, ChatResult(text="{}", parsed={}, model="none"))
        try:
            result = await self.model.chat(chat)
        except CallError as exc:
            raise _usable(exc) from None
        answer = result.parsed
        if answer is None:
            try:
                answer = extract_json(result.text)
            except JSONExtractionError as exc:
                raise CallError(f"unusable answer: {exc}", retryable=True) from None
        choices = schema.parse(answer)
        usage = LLMRequestUsage(
            model=result.model,
            num_input_tokens=result.usage.input_tokens,
            num_output_tokens=result.usage.output_tokens,
            num_total_tokens=result.usage.input_tokens + result.usage.output_tokens,
            num_cached_input_tokens=result.usage.cached_input_tokens,
        )
        feedback = [self._item(request, c) for c in choices]
        return Assessment(feedback, [usage], answer, result)

    async def grade(
        self, request: FeedbackRequest
    ) -> tuple[list[AthenaFeedback], list[LLMRequestUsage]]:
        """One feedback item per criterion and the model call's usage (a ``GradeFunction``)."""
        assessment = await self.assess(request)
        return assessment.feedback, assessment.usage

    @staticmethod
    def _item(request: FeedbackRequest, choice: Choice) -> AthenaFeedback:
        sgi = choice.instruction
        return AthenaFeedback(
            id=None,
            title=choice.slot.criterion.title,
            description=choice.feedback or sgi.feedback,
            credits=sgi.credits,
            structured_grading_instruction_id=sgi.id,
            is_graded=False,
            meta={},
            exercise_id=request.exercise.id,
            submission_id=request.submission.id,
            element_ids=[],
        )
