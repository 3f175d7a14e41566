"""The record of one LLM call as a model server served it, and what a case was given of them
(pydantic at the HTTP boundary: every number finite and in its range)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

USAGE_PATH = "/eunomia/usage"
"""Where ``eunomia serve-model`` serves its record of calls."""

Tokens = Annotated[int, Field(ge=0, le=10**12)]
Epoch = Annotated[float, Field(allow_inf_nan=False, ge=0, le=10**11)]
"""Seconds since 1970 (the server's wall clock)."""


class LLMCall(BaseModel):
    """One ``POST /v1/chat/completions`` the server answered (or failed to)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: int = Field(ge=1)
    """Numbers calls in the order they ended, from 1, per server process."""
    model: str = Field(max_length=500)
    """The model id the client asked for (an alias, e.g. ``gpt-local``)."""
    answered_by: str | None = Field(default=None, max_length=500)
    """The model the answer named (``qwen2.5-coder-0.5b``, ``gpt-4o-mini-2024-07-18``)."""
    input_tokens: Tokens | None
    """None: the call's usage is unknown (a failure after the model started, an upstream that
    reported none)."""
    cached_input_tokens: Tokens = 0
    output_tokens: Tokens | None
    started_at: Epoch
    """When the request arrived."""
    ended_at: Epoch
    """When the answer was complete (the last byte handed to the client)."""
    status: int = Field(ge=100, le=599)
    """The HTTP status the client got (499: the client went away)."""
    streamed: bool = False
    error: str | None = Field(default=None, max_length=2000)

    @model_validator(mode="after")
    def _ordered(self) -> LLMCall:
        if self.ended_at < self.started_at:
            raise ValueError("ended_at is before started_at")
        if (self.input_tokens is None) != (self.output_tokens is None):
            raise ValueError("input_tokens and output_tokens are known together or not at all")
        return self

    @property
    def seconds(self) -> float:
        return self.ended_at - self.started_at

    @property
    def priced_model(self) -> str:
        """The name to price the call by: the model that answered, else the one asked for."""
        return self.answered_by or self.model

    @property
    def has_usage(self) -> bool:
        return self.input_tokens is not None and self.output_tokens is not None


class UsagePage(BaseModel):
    """``GET /eunomia/usage``: the calls recorded after a cursor, and the server's clock."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str = "eunomia serve-model"
    now: Epoch
    """The server's wall clock when it answered (lets a client on another machine estimate
    the offset between the two clocks)."""
    started_at: Epoch
    """When the server started recording."""
    last_seq: int = Field(ge=0)
    """The highest ``seq`` recorded so far: the cursor for the next page (``?after=``)."""
    dropped: int = Field(default=0, ge=0)
    """Calls after the cursor that are no longer kept (the record keeps the latest ones): a
    reader that lost some cannot give exact totals."""
    more: bool = False
    """More calls were recorded after ``last_seq`` than one page holds: ask again."""
    calls: list[LLMCall] = Field(default_factory=list)


class AttributionMethod(StrEnum):
    EXACT = "exact"
    """Every call this case was given was made while its request was the only one in
    flight, and no call made while it was in flight went to another case."""
    OVERLAP = "overlap"
    """Other requests were in flight too: a call that could belong to several cases went to
    the one that finished first after the call ended (a system answers once its LLM calls are
    done). The case's figure is approximate; the run's totals are still exact."""


class CaseUsage(BaseModel):
    """The LLM calls metered for one case (stored with its response)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    """The usage URL the calls were read from."""
    attribution: AttributionMethod
    calls: list[LLMCall] = Field(default_factory=list)
    earlier_attempts: int = Field(default=0, ge=0)
    """Calls among ``calls`` made during failed attempts of the case (retried)."""

    @property
    def input_tokens(self) -> int | None:
        if not all(c.has_usage for c in self.calls):
            return None
        return sum(c.input_tokens or 0 for c in self.calls)

    @property
    def output_tokens(self) -> int | None:
        if not all(c.has_usage for c in self.calls):
            return None
        return sum(c.output_tokens or 0 for c in self.calls)
