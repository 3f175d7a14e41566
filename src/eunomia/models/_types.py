"""The model interface: requests, results and the provider protocol.

Stable on purpose: the LLM feedback engine and the judges are built on these
types. ``GenerationSettings`` is frozen and is what goes into cache keys
(together with the model name, the messages and the JSON schema).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from eunomia import defaults

Role = Literal["system", "user", "assistant"]
Scoring = Literal["generate", "likelihood", "likelihood+feedback"]
"""How a model answers a request: it ``generate`` s the answer (every model), or the first
field of a JSON answer (a judge's score) is chosen by ``likelihood`` — read from the model's
probabilities, nothing written — and the rest is left empty, or written with that field fixed
(``likelihood+feedback``). Likelihood needs a model with log-probabilities of its own prompt:
the local ones (:mod:`eunomia.models.providers.by_likelihood`)."""
GENERATE: Scoring = "generate"
LIKELIHOOD: Scoring = "likelihood"
LIKELIHOOD_FEEDBACK: Scoring = "likelihood+feedback"
SCORINGS: tuple[Scoring, ...] = (GENERATE, LIKELIHOOD, LIKELIHOOD_FEEDBACK)


class ChatMessage(BaseModel):
    """One message of a conversation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str


class GenerationSettings(BaseModel):
    """How the model samples its answer. Part of every cache key.

    Defaults are deterministic: temperature 0 and a fixed seed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float = Field(default=defaults.MODEL_TEMPERATURE, ge=0.0, le=2.0)
    max_tokens: int = Field(default=defaults.MODEL_MAX_TOKENS, ge=1, le=defaults.MAX_TOKENS_ASKED)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = defaults.MODEL_SEED
    stop: tuple[str, ...] = ()


class ChatRequest(BaseModel):
    """A chat call: the conversation, the sampling settings and an optional answer schema.

    With ``json_schema`` set, providers constrain (or ask for) a JSON answer and
    return it parsed in :attr:`ChatResult.parsed`. ``stream`` asks for a streamed
    answer so that the time to the first token can be measured; it never changes
    the answer.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[ChatMessage, ...]
    settings: GenerationSettings = GenerationSettings()
    json_schema: dict[str, Any] | None = None
    stream: bool = False
    score_logprobs: tuple[str, ...] | None = None
    """Values whose probabilities to report at the answer's score (e.g. ``("0", ..., "5")``):
    a provider that has token log-probabilities returns them in
    :attr:`ChatResult.score_distribution`; others ignore it. Never changes the answer."""

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Left out when unset: a request without it is the same text (and cache key) as
        # before the field existed.
        data = handler(self)
        if isinstance(data, dict) and data.get("score_logprobs", ()) is None:
            del data["score_logprobs"]
        return data


class Usage(BaseModel):
    """Tokens billed for one call. ``cached_input_tokens`` is part of ``input_tokens``."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
        )


class ChatResult(BaseModel):
    """A model's answer: its text, the parsed JSON (when a schema was given) and the costs."""

    model_config = ConfigDict(frozen=True)

    text: str
    parsed: Any | None = None
    usage: Usage = Usage()
    latency_s: float = 0.0
    time_to_first_token_s: float | None = None
    model: str
    """The model that answered, as the provider reports it (e.g. ``gpt-4o-mini-2024-07-18``)."""
    score_distribution: dict[str, float] | None = None
    """With :attr:`ChatRequest.score_logprobs`: each value's probability at the position of
    the answer's score (the first answer token that spells one of the values, after leading
    punctuation), 0 for a value not among the provider's top alternatives there; None when
    the provider gives no log-probabilities or the answer has no such token."""
    reported_cost: float | None = Field(default=None, exclude_if=lambda v: v is None)
    """The cost of this call as the system itself reports it (an ``http:`` system's ``cost``
    path), in dollars; None when it reports none. Eunomia's own figure is computed from the
    tokens and a price; this one is kept beside it (and stands in when there is no price)."""


@runtime_checkable
class ModelProvider(Protocol):
    """A chat model. Providers raise :class:`eunomia.scheduler.CallError` on failure.

    Callers wrap :meth:`chat` in :func:`eunomia.scheduler.call_with_retry`;
    providers do not retry themselves.
    """

    @property
    def name(self) -> str:
        """The spec this provider was made from, e.g. ``openai:gpt-4o-mini``."""
        ...

    async def chat(self, request: ChatRequest) -> ChatResult: ...

    async def close(self) -> None: ...
