"""The model behind the server: any :class:`~eunomia.models.ModelProvider`, answering one
chat request at a time the way it answers in-process.

The embedded ``local`` models stream their text as it is generated and report why they
stopped (``stop`` or ``length``): the server hands out exactly what
:meth:`~eunomia.models.providers.local.LocalProvider.answer` produced, which is what
``chat`` would have returned in the same process — same procedure, same model state rules,
same text. Other providers answer whole (a streamed answer is then one chunk) and, with a
schema, parse the answer themselves: the answer is the JSON they read (code fences and prose
around it removed), and one that is not JSON becomes a 502.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from eunomia import __version__
from eunomia.errors import EunomiaError
from eunomia.model_server._wire import ChatCompletionBody
from eunomia.models import ChatRequest, GenerationSettings, ModelProvider, Usage
from eunomia.models.providers.local import LocalProvider, schema_problem
from eunomia.scheduler import CallError

TextSink = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer, as the wire needs it."""

    text: str
    finish_reason: str
    usage: Usage
    model: str


class ServeError(Exception):
    """A request the model cannot answer, with the OpenAI error it becomes."""

    def __init__(self, status: int, message: str, *, kind: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.param = param
        self.code = code
        self.retry_after = retry_after


def _llama_version() -> str:
    try:
        return importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - local needs it
        return "?"


class ServedModel:
    """A provider under the names clients may ask for: its spec first, then the aliases."""

    def __init__(self, provider: ModelProvider, spec: str, *, aliases: Sequence[str] = (),
                 settings: GenerationSettings | None = None,
                 json_object_schema: dict[str, Any] | None = None) -> None:
        self.provider = provider
        self.spec = spec
        self.ids: tuple[str, ...] = tuple(dict.fromkeys([spec, *aliases]))
        self.settings = settings if settings is not None else GenerationSettings()
        """What a request that omits a generation setting gets (the spec's own settings)."""
        self.local = provider if isinstance(provider, LocalProvider) else None
        self.json_object_schema = json_object_schema
        """The schema a ``json_object`` answer follows instead of "any object", if set."""
        if json_object_schema is not None and self.local is not None:
            problem = schema_problem(json_object_schema)
            if problem is not None:
                raise EunomiaError(f"the json_object schema cannot be turned into a grammar: "
                                   f"{problem}")
        parts = [spec, f"eunomia {__version__}", self.settings.model_dump_json(),
                 json.dumps(json_object_schema, sort_keys=True)]
        if self.local is not None:
            parts += [self.local.model.sha256, f"llama-cpp-python {_llama_version()}"]
        digest = hashlib.sha256("|".join(parts).encode()).hexdigest()
        self.fingerprint = f"fp_{digest[:12]}"
        """``system_fingerprint``: changes with whatever changes answers — the model, its
        weights and settings, the json_object schema, llama.cpp, Eunomia."""

    @property
    def streams(self) -> bool:
        """Whether the text arrives piece by piece (else a stream is one chunk)."""
        return self.local is not None

    def knows(self, model_id: str) -> bool:
        return model_id in self.ids

    async def load(self) -> None:
        """Load an in-process model now rather than on the first request."""
        if self.local is not None:
            await self.local.load()

    def chat_request(self, body: ChatCompletionBody) -> ChatRequest:
        """The in-process request ``body`` stands for: the model's own settings where it omits
        one, and ``json_object`` as the configured schema when there is one."""
        request = body.chat_request(self.settings)
        fmt = body.response_format
        if fmt is not None and fmt.type == "json_object" and self.json_object_schema is not None:
            request = request.model_copy(update={"json_schema": self.json_object_schema})
        return request

    def check(self, request: ChatRequest) -> None:
        """Refuse (400) what the model would only fail on later: a schema without a grammar."""
        if self.local is not None and request.json_schema is not None:
            problem = schema_problem(request.json_schema)
            if problem is not None:
                raise ServeError(
                    400, f"response_format: the schema cannot be turned into a grammar: {problem}",
                    param="response_format.json_schema.schema", code="invalid_json_schema")

    async def answer(self, request: ChatRequest, on_text: TextSink | None = None) -> Answer:
        """The answer to ``request``; ``on_text`` gets its text as it is produced."""
        try:
            if self.local is not None:
                got = await self.local.answer(request, on_text)
                return Answer(got.text, got.finish_reason or "stop", got.usage, got.model)
            result = await self.provider.chat(request)
        except CallError as exc:
            raise _served_error(exc) from None
        text = result.text
        if request.json_schema is not None and result.parsed is not None:
            # the JSON the provider read from the answer, without fences or prose around it
            text = json.dumps(result.parsed, ensure_ascii=False, separators=(",", ":"))
        if on_text is not None and text:
            on_text(text)
        return Answer(text, "stop", result.usage, result.model)

    async def close(self) -> None:
        await self.provider.close()


def _served_error(exc: CallError) -> ServeError:
    message = str(exc)
    if "exceed context window" in message:  # llama.cpp: the prompt does not fit
        return ServeError(400, message, param="messages", code="context_length_exceeded")
    if exc.answer_text is not None:
        return ServeError(502, f"the model's answer is not the JSON asked for: {message}",
                          kind="server_error", code="invalid_model_answer")
    if exc.status == 429:
        return ServeError(429, message, kind="rate_limit_error", code="rate_limit_exceeded",
                          retry_after=exc.retry_after)
    if exc.status is not None:
        return ServeError(502, message, kind="server_error", code="upstream_error")
    if exc.retryable:
        return ServeError(503, message, kind="server_error", code="unavailable")
    return ServeError(500, message, kind="server_error")
