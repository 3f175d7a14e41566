"""The OpenAI chat-completions request as the server accepts it, validated by pydantic.

Everything a request may carry is named here; anything else is refused (400), as OpenAI
refuses an unrecognised argument. Parameters a local model cannot honour are refused
when they would change the answer (``n`` above 1, penalties, ``logit_bias``, tools,
image parts) and accepted when they are at their neutral value (what OpenAI clients such
as langchain send by default), so no request is silently answered differently from what
it asked for.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from eunomia import defaults
from eunomia.models import ChatMessage, ChatRequest, GenerationSettings, Role
from eunomia.models.providers.local import JSON_OBJECT_SCHEMA

MAX_STOP_STRINGS = 16
MAX_SEED = 2**63 - 1
"""OpenAI's seed is a 64-bit integer."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ContentPart(BaseModel):
    """One part of a message's content; only text parts can be read by a text model."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    type: str
    text: str | None = None

    @model_validator(mode="after")
    def _text_only(self) -> ContentPart:
        if self.type != "text":
            raise ValueError(f"only text content parts are supported, not {self.type!r}")
        if self.text is None:
            raise ValueError("a text content part needs 'text'")
        return self


class WireMessage(_Strict):
    """A message: ``developer`` is OpenAI's newer name for ``system`` and is read as one."""

    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[ContentPart]
    name: str | None = None

    @field_validator("content", mode="wrap")
    @classmethod
    def _text(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """A string or a list of text parts, with one message for anything else."""
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return [ContentPart.model_validate(part) for part in value]
        raise ValueError("content must be a string or a list of text parts")

    def chat_message(self) -> ChatMessage:
        role: Role = "system" if self.role == "developer" else self.role
        if isinstance(self.content, str):
            text = self.content
        else:
            text = "\n".join(part.text or "" for part in self.content)
        return ChatMessage(role=role, content=text)


class JsonSchemaFormat(_Strict):
    """``response_format.json_schema``: a name and the schema the answer must follow."""

    name: str = Field(default="answer", min_length=1, max_length=64)
    description: str | None = None
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormat(_Strict):
    """``text``, ``json_object`` (any JSON object) or ``json_schema``."""

    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None

    @model_validator(mode="after")
    def _schema_iff_json_schema(self) -> ResponseFormat:
        if self.type == "json_schema" and self.json_schema is None:
            raise ValueError("type 'json_schema' needs 'json_schema'")
        if self.type != "json_schema" and self.json_schema is not None:
            raise ValueError(f"'json_schema' is only allowed with type 'json_schema', "
                             f"not {self.type!r}")
        return self

    def answer_schema(self) -> dict[str, Any] | None:
        """The schema the answer is constrained to, or None for free text."""
        if self.type == "text":
            return None
        if self.type == "json_object" or self.json_schema is None:
            return JSON_OBJECT_SCHEMA
        return self.json_schema.schema_ or JSON_OBJECT_SCHEMA


class StreamOptions(_Strict):
    include_usage: bool = False


def _neutral(value: float | None, name: str) -> float | None:
    if value:
        raise ValueError(f"{name} is not supported (only 0)")
    return value


class ChatCompletionBody(_Strict):
    """``POST /v1/chat/completions``. Omitted generation settings take the served model's
    own (deterministic: temperature 0 and a fixed seed unless its config says otherwise)."""

    model: str = Field(min_length=1)
    messages: list[WireMessage] = Field(min_length=1)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    max_tokens: int | None = Field(default=None, ge=1, le=defaults.MAX_TOKENS_ASKED)
    max_completion_tokens: int | None = Field(default=None, ge=1, le=defaults.MAX_TOKENS_ASKED)
    seed: int | None = Field(default=None, ge=-MAX_SEED - 1, le=MAX_SEED)
    stop: str | list[str] | None = None
    response_format: ResponseFormat | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    # Accepted at their neutral value only (clients send them by default).
    n: int = Field(default=1, ge=1, le=1)
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    logprobs: Literal[False] | None = None
    logit_bias: dict[str, float] | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: Literal["none"] | None = None
    parallel_tool_calls: bool | None = None
    # Bookkeeping fields that never change an answer.
    user: str | None = None
    metadata: dict[str, str] | None = None
    store: bool | None = None

    @field_validator("frequency_penalty", "presence_penalty")
    @classmethod
    def _no_penalty(cls, value: float | None, info: ValidationInfo) -> float | None:
        return _neutral(value, info.field_name or "penalty")

    @field_validator("logit_bias")
    @classmethod
    def _no_bias(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value:
            raise ValueError("logit_bias is not supported (only {})")
        return value

    @field_validator("tools")
    @classmethod
    def _no_tools(cls, value: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        if value:
            raise ValueError("tools are not supported")
        return value

    @field_validator("stop")
    @classmethod
    def _stops(cls, value: str | list[str] | None) -> str | list[str] | None:
        stops = [value] if isinstance(value, str) else value or []
        if len(stops) > MAX_STOP_STRINGS:
            raise ValueError(f"at most {MAX_STOP_STRINGS} stop strings")
        if any(not s for s in stops):
            raise ValueError("stop strings must not be empty")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ChatCompletionBody:
        if self.stream_options is not None and not self.stream:
            raise ValueError("stream_options is only allowed when stream is true")
        if (self.max_tokens is not None and self.max_completion_tokens is not None
                and self.max_tokens != self.max_completion_tokens):
            raise ValueError("max_tokens and max_completion_tokens differ; give one")
        return self

    @property
    def include_usage(self) -> bool:
        return self.stream_options is not None and self.stream_options.include_usage

    @property
    def json_schema(self) -> dict[str, Any] | None:
        return None if self.response_format is None else self.response_format.answer_schema()

    def chat_request(self, base: GenerationSettings) -> ChatRequest:
        """The in-process request this body asks for; ``base`` fills what it omits."""
        changes: dict[str, Any] = {}
        if self.temperature is not None:
            changes["temperature"] = self.temperature
        if self.top_p is not None:
            changes["top_p"] = self.top_p
        limit = self.max_completion_tokens or self.max_tokens
        if limit is not None:
            changes["max_tokens"] = limit
        if self.seed is not None:
            changes["seed"] = self.seed
        if self.stop is not None:
            changes["stop"] = (self.stop,) if isinstance(self.stop, str) else tuple(self.stop)
        settings = GenerationSettings.model_validate({**base.model_dump(), **changes})
        return ChatRequest(
            messages=tuple(m.chat_message() for m in self.messages),
            settings=settings,
            json_schema=self.json_schema,
        )
