"""A JSON answer whose first field is chosen by likelihood, not generated: the fast judge.

A judge asks for ``{"score": <0-5>, "feedback": "..."}`` (score first, an ``enum``). A
generating model writes the score and then a feedback paragraph of a hundred tokens or more:
on two cores, 19-30 s a case for the 1.5B local judge, nearly all of it the paragraph. The
score itself is decided at one position — right after ``{"score":`` — and a model with
log-probabilities of its own prompt (the local llama.cpp models:
:class:`~eunomia.models.providers.likelihood.OptionsScorer`) can read the distribution over
the values there without writing anything: the prompt, the template's assistant marker and
``{"score":`` are evaluated once, and the probability of each value's tokens is read.

:class:`LikelihoodChooser` does that for any request whose JSON schema is an object with a
first property of ``enum`` values (the judge's, :func:`eunomia.judge.judge_schema`):

* the value chosen is the most probable one at temperature 0 (what greedy decoding under the
  answer's grammar writes there), or one drawn from the values' probabilities sharpened by
  the temperature, with the request's seed, above 0 (judge repeats);
* ``score_distribution`` is every value's probability at that position (over the whole
  vocabulary, as the generating providers report it; the probability-weighted score
  renormalises over the values);
* the prompt is evaluated in the segments the local scorer keeps: the system part (the
  rubric's fixed head), the part of the user message every case of a category shares (its
  guidance and the scale, :func:`split_user`), then the case and the answer — consecutive
  calls evaluate only what changed;
* the other fields are not written: each string field is ``""`` — unless the chooser was
  made with ``feedback=True`` (spec ``likelihood+feedback:<local model>``), which then has the
  model generate the whole answer with the first field fixed to the chosen value by the
  grammar: the text explains the likelihood's score, at the cost of a generation.

Usage: the prompt's tokens as input (those kept from the previous call as cached), no
output token; with feedback, the generation's usage is added. The spec is
``likelihood:local:<name>``; its cache keys are its own (the spec is part of them).
"""

from __future__ import annotations

import json
import math
from typing import Any, Protocol

import numpy as np

from eunomia import defaults
from eunomia.models._types import (
    LIKELIHOOD,
    LIKELIHOOD_FEEDBACK,
    ChatRequest,
    ChatResult,
    Scoring,
    Usage,
)
from eunomia.models.providers.likelihood import (
    OptionsQuestion,
    OptionsRequest,
    OptionsResult,
)
from eunomia.scheduler import CallError


class ScoringModel(Protocol):
    """A local model: it scores options by likelihood and it generates."""

    @property
    def name(self) -> str: ...

    async def score_options(self, request: OptionsRequest) -> OptionsResult: ...

    async def chat(self, request: ChatRequest) -> ChatResult: ...

    async def close(self) -> None: ...


class _Shape:
    """What a request's JSON schema asks for: the first field, its values, the others."""

    def __init__(self, schema: dict[str, Any] | None, provider: str) -> None:
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(properties, dict) or not properties:
            raise CallError(f"{provider}: answers by likelihood only a JSON object whose "
                            "first field has a fixed set of values (a judge's score); this "
                            "request asks for none", retryable=False)
        self.name, first = next(iter(properties.items()))
        values = first.get("enum") if isinstance(first, dict) else None
        if not isinstance(values, list) or not values \
                or not all(isinstance(v, str | int) and not isinstance(v, bool)
                           for v in values):
            raise CallError(f"{provider}: the answer's first field {self.name!r} has no enum "
                            "of strings or whole numbers to choose from by likelihood",
                            retryable=False)
        self.values: list[str | int] = list(values)
        self.texts = tuple(json.dumps(v) for v in self.values)
        self.others: dict[str, Any] = {k: v for k, v in properties.items() if k != self.name}
        self.prefix = "{" + json.dumps(self.name) + ":"
        """How the answer starts before the value: compact JSON, as the local grammar writes."""

    def blank(self, provider: str) -> dict[str, str]:
        """The other fields, not written: each string field empty."""
        out: dict[str, str] = {}
        for key, prop in self.others.items():
            if not isinstance(prop, dict) or prop.get("type") != "string":
                raise CallError(f"{provider}: field {key!r} is not a string: it cannot be "
                                "left unwritten (use likelihood+feedback:, which writes it)",
                                retryable=False)
            out[key] = ""
        return out

    def fixed(self, schema: dict[str, Any], value: str | int) -> dict[str, Any]:
        """``schema`` with the first field's values narrowed to ``value``."""
        properties = dict(schema["properties"])
        properties[self.name] = {**properties[self.name], "enum": [value]}
        return {**schema, "properties": properties}


CASE_START = "\n\n=== "
"""Where the case-specific part of a judge's user message starts: the bundled rubric's first
section header (``=== System prompt given to the candidate ===``). What comes before it — the
category's guidance and the scale — is the same for every case of a category."""


def split_user(user: str) -> tuple[str, str]:
    """The user message as (what consecutive calls share, the rest): cut after the blank
    line before :data:`CASE_START`, or not at all. The scorer keeps the state of the first
    part while calls share it (a suite's cases, a case's answers), so each call evaluates
    only its case; the cut depends on the text alone, so the numbers do too."""
    at = user.find(CASE_START)
    if at <= 0:
        return user, ""
    return user[:at + 2], user[at + 2:]


def _frame(request: ChatRequest, provider: str) -> tuple[str, str]:
    """The request's system text and its one user message."""
    system = "\n\n".join(m.content for m in request.messages if m.role == "system")
    rest = [m for m in request.messages if m.role != "system"]
    if len(rest) != 1 or rest[0].role != "user":
        raise CallError(f"{provider}: answers by likelihood a system and one user message "
                        f"only (got {', '.join(m.role for m in rest) or 'no user message'})",
                        retryable=False)
    return system, rest[0].content


def choose(probabilities: list[float], temperature: float, seed: int | None) -> int:
    """The index of the value chosen: the most probable (the first of equals) at temperature
    0, else one drawn from the probabilities raised to ``1/temperature`` and renormalised,
    with ``seed`` (the same draw for the same request)."""
    if temperature <= 0 or sum(probabilities) <= 0:
        return max(range(len(probabilities)), key=lambda i: (probabilities[i], -i))
    logs = np.log(np.maximum(np.asarray(probabilities, dtype=np.float64), 1e-300)) / temperature
    weights = np.exp(logs - logs.max())
    rng = np.random.default_rng(seed if seed is not None else defaults.MODEL_SEED)
    return int(rng.choice(len(probabilities), p=weights / weights.sum()))


class LikelihoodChooser:
    """A local model answering judge-shaped requests by likelihood (see the module)."""

    def __init__(self, model: ScoringModel, *, feedback: bool = False) -> None:
        self.model = model
        self.feedback = feedback

    @property
    def name(self) -> str:
        scoring: Scoring = LIKELIHOOD_FEEDBACK if self.feedback else LIKELIHOOD
        return f"{scoring}:{self.model.name}"

    async def chat(self, request: ChatRequest) -> ChatResult:
        shape = _Shape(request.json_schema, self.name)
        system, user = _frame(request, self.name)
        shared, case = split_user(user)
        scored = await self.model.score_options(OptionsRequest(
            system=system, context=shared,
            questions=(OptionsQuestion(text=case, options=shape.texts, reply=shape.prefix),)))
        probabilities = [math.exp(sum(tokens)) for tokens in scored.logprobs[0]]
        settings = request.settings
        index = choose(probabilities, settings.temperature, settings.seed)
        value = shape.values[index]
        distribution = None
        if request.score_logprobs:
            asked = set(request.score_logprobs)
            distribution = {text: p for text, p in zip(shape.texts, probabilities, strict=True)
                            if text in asked}
        usage = Usage(input_tokens=scored.input_tokens,
                      cached_input_tokens=scored.cached_input_tokens)
        if not self.feedback:
            parsed: dict[str, Any] = {shape.name: value, **shape.blank(self.name)}
            return ChatResult(text=json.dumps(parsed, separators=(",", ":")), parsed=parsed,
                              usage=usage, latency_s=scored.latency_s, model=scored.model,
                              score_distribution=distribution)
        assert request.json_schema is not None  # _Shape checked it
        written = await self.model.chat(request.model_copy(update={
            "json_schema": shape.fixed(request.json_schema, value), "score_logprobs": None}))
        return written.model_copy(update={
            "usage": usage + written.usage,
            "latency_s": scored.latency_s + written.latency_s,
            "time_to_first_token_s": None,
            "score_distribution": distribution,
        })

    async def close(self) -> None:
        await self.model.close()

