"""The ``llm`` target: Eunomia's built-in feedback engine on a chat model, no server needed.

``--target llm:<model spec>`` (e.g. ``llm:local``, ``llm:openai:gpt-4o-mini``) builds the
Athena request of each test case exactly as the ``athena`` target would send it, and
hands it to :class:`eunomia.llm_feedback.FeedbackEngine` in process.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from eunomia import defaults
from eunomia.athena import AthenaExercise, AthenaSubmission, FeedbackRequest
from eunomia.errors import EunomiaError
from eunomia.llm_feedback import (
    ENGINE_VERSION,
    EngineMode,
    FeedbackEngine,
    PromptBuilder,
    PromptTemplates,
    engine_mode,
    split_mode,
)
from eunomia.models import GenerationSettings, ModelProvider, ModelSpec
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import CallError
from eunomia.targets._base import TargetResponse

TARGET_PREFIX = "llm:"


def parse_target_spec(target: str) -> str:
    """The model spec of ``llm:<spec>``; :class:`EunomiaError` when it is empty."""
    spec = target[len(TARGET_PREFIX):].strip() if target.startswith(TARGET_PREFIX) else ""
    if not spec:
        raise EunomiaError(
            f"invalid target {target!r}: write llm:<model spec>, e.g. llm:local or "
            "llm:openai:gpt-4o-mini"
        )
    return spec


def resolve_model(spec: str) -> ModelSpec:
    """``spec`` resolved against ``models.yml`` in the working directory (if there is one)."""
    from eunomia.models import load_config, resolve_spec

    return resolve_spec(spec, load_config())


def serial_provider(name: str) -> bool:
    """True for providers that answer one call at a time (in-process models).

    More requests in flight would only queue behind each other, and their waiting
    would count against the per-request timeout.
    """
    return name == "local" or name.startswith("local:")


class LLMTarget:
    """Feedback from :class:`FeedbackEngine` on a model given as a spec or a provider.

    A spec is resolved at once (unknown specs fail before the run starts, and the
    model config's generation settings apply); its provider is created by
    :meth:`open` and closed by :meth:`close`. A provider passed in is used as is
    and left open for its owner.
    """

    def __init__(
        self,
        spec_or_provider: str | ModelProvider,
        *,
        templates: PromptTemplates | None = None,
        prompt_dir: Path | None = None,
        settings: GenerationSettings | None = None,
        feedback_max_chars: int | None = defaults.ENGINE_FEEDBACK_MAX_CHARS,
    ) -> None:
        if templates is not None and prompt_dir is not None:
            raise ValueError("give templates or prompt_dir, not both")
        templates = templates if templates is not None else PromptTemplates.load(prompt_dir)
        self._resolved: ModelSpec | None = None
        self._model: ModelProvider | None = None
        mode: EngineMode | None = None  # llm:<mode>:<spec> names one; else the model's default
        if isinstance(spec_or_provider, str):
            mode, spec_or_provider = split_mode(spec_or_provider)
            self._resolved = resolve_model(spec_or_provider)
            self.model_name = self._resolved.spec
            settings = settings if settings is not None else self._resolved.settings
        else:
            self._model = spec_or_provider
            self.model_name = spec_or_provider.name
        self.prompts = PromptBuilder(
            templates, settings=settings, feedback_max_chars=feedback_max_chars,
            mode=engine_mode(mode, self._model if self._model is not None else self.model_name),
        )
        self._engine: FeedbackEngine | None = None
        self._exercises: dict[str, AthenaExercise] = {}
        self.name = f"llm:{mode}:{self.model_name}" if mode else f"llm:{self.model_name}"

    @property
    def engine(self) -> FeedbackEngine | None:
        """The engine (after :meth:`open`)."""
        return self._engine

    @property
    def max_concurrency(self) -> int | None:
        """Useful requests in flight at once: 1 for in-process models, else None (no limit)."""
        return 1 if serial_provider(self.model_name) else None

    @property
    def cache_identity(self) -> str:
        # The prompts, schema and settings are in describe_request; this adds the model.
        return json.dumps(
            {"target": "llm", "model": self.model_name, "engine": ENGINE_VERSION},
            sort_keys=True,
        )

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        """The chat call (messages, settings, answer schema) the engine makes for a case, or
        in likelihood mode its scoring requests and rule."""
        try:
            return self.prompts.describe(self.request_for(scenario, case))
        except CallError as exc:  # an unreadable submission fails in feedback(), not here
            return json.dumps({"unreadable_submission": str(exc), "case": case.name}).encode()

    async def open(self) -> None:
        if self._model is None:
            from eunomia.models import get_model

            assert self._resolved is not None
            self._model = get_model(self._resolved)
        if self._engine is None:
            self._engine = FeedbackEngine(self._model, prompts=self.prompts)

    async def close(self) -> None:
        if self._resolved is not None and self._model is not None:
            await self._model.close()
            self._model = None
        self._engine = None

    def request_for(self, scenario: Scenario, case: TestCase) -> FeedbackRequest:
        """The Athena request the ``athena`` target would send for this case."""
        exercise = self._exercises.get(scenario.name)
        if exercise is None:
            exercise = scenario.athena_exercise()
            self._exercises[scenario.name] = exercise
        return FeedbackRequest(
            exercise=exercise,
            submission=AthenaSubmission(
                id=case.submission_id, exercise_id=scenario.exercise.id, model=case.submission
            ),
            is_graded=True,
        )

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        if self._engine is None:
            await self.open()
        assert self._engine is not None
        started = time.perf_counter()
        assessment = await self._engine.assess(self.request_for(scenario, case))
        return TargetResponse(
            feedback=assessment.feedback,
            usage=assessment.usage,
            latency_s=time.perf_counter() - started,
            raw=assessment.answer,
        )
