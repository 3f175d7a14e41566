"""The ``local`` provider: an in-process llama.cpp model (``llama-cpp-python``).

Each model is loaded once per process and shared by every provider object that
names it (:mod:`eunomia.models.providers._local_load`). Calls to one model run one
at a time on the model's own worker thread (generation is CPU-bound and llama.cpp
contexts are not thread-safe), so the event loop never blocks.

Reproducibility: temperature 0 (greedy), a fixed seed, and a model state that
depends on the request only: every prompt is evaluated as its system part from an
empty state, then the rest, and the system part's state is kept for the next call
that has the same one (:mod:`eunomia.models.providers._local_prefix`).

A cancelled call (e.g. the scheduler's timeout) stops generation at the next
token instead of keeping the model busy.

JSON schemas become a grammar. llama.cpp's schema-to-grammar conversion ignores
``minimum``/``maximum`` on integers and array lengths; answers are parsed
tolerantly and checked for required keys, and schema authors should prefer
``enum`` for bounded values. The grammar admits compact JSON only (no optional
space after ``:`` and ``,``): every generated token costs a forward pass, and
those spaces were a fifth of a grading answer's tokens. Strings admit no raw
control character (a newline must be written ``\n``), so every answer the
grammar lets through is JSON the ``json`` module reads. The schema
``{"type": "object"}`` (:data:`JSON_OBJECT_SCHEMA`) is any JSON object: the
OpenAI ``json_object`` answer format.

:meth:`LocalProvider.answer` is the generation as it came out (text, finish
reason, usage; no JSON parsing), handing each piece of text to a callback as it
is produced; :meth:`LocalProvider.chat` is that answer, parsed. Both take the
same path through the model, so a streamed answer is the same text.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from eunomia import defaults
from eunomia.models._json import JSONExtractionError, parse_json_answer
from eunomia.models._types import ChatRequest, ChatResult, Usage
from eunomia.models._weights import local_model
from eunomia.models.providers._local_grammar import json_grammar
from eunomia.models.providers._local_grammar import (
    schema_problem as schema_problem,  # re-exported: the model server checks schemas
)
from eunomia.models.providers._local_load import Loaded, load_model, local_threads
from eunomia.models.providers._local_load import (  # re-exported: the bench loads with these
    _without_extra_buffers as _without_extra_buffers,
)
from eunomia.models.providers._local_load import (  # re-exported: the spec checks the install
    import_llama_cpp as import_llama_cpp,
)
from eunomia.models.providers._local_scores import ScoreReader
from eunomia.models.providers.likelihood import OptionsRequest, OptionsResult, score_on
from eunomia.scheduler import CallError

JSON_OBJECT_SCHEMA: dict[str, Any] = {"type": "object"}
"""The schema of "any JSON object" (OpenAI's ``response_format: json_object``)."""


class _Cancelled(Exception):
    """Raised inside the generation loop to stop a call whose caller went away."""


@dataclass(slots=True)
class _CallState:
    started: float
    cancel: threading.Event = field(default_factory=threading.Event)
    first_token_at: float | None = None


@dataclass(frozen=True, slots=True)
class LocalAnswer:
    """A generation as it came out of the model, before any JSON parsing."""

    text: str
    finish_reason: str | None
    """``stop`` (end of text or a stop string), ``length`` (``max_tokens`` reached) or None."""
    usage: Usage
    latency_s: float
    time_to_first_token_s: float | None
    model: str
    score_distribution: dict[str, float] | None = None
    """With ``ChatRequest.score_logprobs``: the values' probabilities at the score
    (:mod:`eunomia.models.providers._local_scores`)."""


TextSink = Callable[[str], None]
"""Receives each piece of an answer's text as it is generated (in the event loop)."""


@dataclass(slots=True)
class _Raw:
    """What one generation produced."""

    text: str = ""
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    sampled: int = 0
    reused_tokens: int = 0
    score_distribution: dict[str, float] | None = None



def _consume(future: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a call nobody waits for any more (avoids asyncio warnings)."""
    if not future.cancelled():
        future.exception()


class LocalProvider:
    """A llama.cpp model running in this process (``local`` / ``local:<name>``)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        context_tokens: int = defaults.LOCAL_CONTEXT_TOKENS,
        threads: int | None = None,
    ) -> None:
        self.model = local_model(model)
        self.context_tokens = context_tokens
        self.threads = threads
        self._loaded: Loaded | None = None

    @property
    def name(self) -> str:
        return f"local:{self.model.name}"

    @property
    def threads_used(self) -> int:
        """CPU threads the model runs with (explicit, ``$EUNOMIA_LOCAL_THREADS`` or default)."""
        return local_threads(self.threads)

    async def load(self) -> float:
        """Load the model now (else the first call does). Returns the load time in seconds."""
        loaded = await self._ensure_loaded()
        return loaded.load_s

    async def _ensure_loaded(self) -> Loaded:
        if self._loaded is None:
            self._loaded = await asyncio.to_thread(
                load_model, self.model, context_tokens=self.context_tokens, threads=self.threads
            )
        return self._loaded

    async def chat(self, request: ChatRequest) -> ChatResult:
        return self._result(await self.answer(request), request)

    async def answer(self, request: ChatRequest, on_text: TextSink | None = None) -> LocalAnswer:
        """The model's answer as generated: text, finish reason and usage, not parsed.

        ``on_text`` receives each piece of the text as it is produced (called in this
        event loop), for streaming. With ``json_schema`` set the answer is constrained by
        its grammar but may be cut short at ``max_tokens`` (finish reason ``length``).
        Raises :class:`CallError` like :meth:`chat`.
        """
        loaded = await self._ensure_loaded()
        state = _CallState(started=time.perf_counter())
        loop = asyncio.get_running_loop()
        sink: TextSink | None = None
        if on_text is not None:
            callback = on_text

            def to_loop(piece: str) -> None:  # on the worker thread
                loop.call_soon_threadsafe(callback, piece)

            sink = to_loop
        future = loop.run_in_executor(
            loaded.executor, self._generate, loaded, request, state, sink
        )
        future.add_done_callback(_consume)
        try:
            raw = await asyncio.shield(future)
        except asyncio.CancelledError:
            state.cancel.set()
            raise
        except _Cancelled:
            raise CallError(f"{self.name}: call cancelled", retryable=True) from None
        except CallError:
            raise
        except Exception as exc:  # llama.cpp reports bad input (context overflow, schema) as errors
            raise CallError(f"{self.name}: {type(exc).__name__}: {exc}", retryable=False) from None
        ttft = None if state.first_token_at is None else state.first_token_at - state.started
        # The end-of-text token is sampled but is not part of the answer.
        output_tokens = raw.sampled - (1 if raw.finish_reason == "stop" and raw.sampled else 0)
        return LocalAnswer(
            text=raw.text,
            finish_reason=raw.finish_reason,
            usage=Usage(
                input_tokens=raw.prompt_tokens or 0,
                output_tokens=output_tokens,
                cached_input_tokens=raw.reused_tokens,
            ),
            latency_s=time.perf_counter() - state.started,
            time_to_first_token_s=ttft,
            model=self.model.name,
            score_distribution=raw.score_distribution,
        )

    def _generate(
        self, loaded: Loaded, request: ChatRequest, state: _CallState, sink: TextSink | None
    ) -> _Raw:
        """Runs on the model's worker thread. Streams internally so a cancelled call stops."""
        if state.cancel.is_set():
            raise _Cancelled
        state.started = time.perf_counter()  # queueing behind other calls is not latency
        llama = loaded.llama
        settings = request.settings
        raw = _Raw()
        reader = ScoreReader.create(llama, request.score_logprobs)

        def count(input_ids: Any, scores: Any) -> Any:
            # Called once per sampled token, with the prompt and the answer so far.
            if raw.prompt_tokens is None:
                raw.prompt_tokens = len(input_ids)
                state.first_token_at = time.perf_counter()
            raw.sampled += 1
            if reader is not None:  # raw logits: read only, never changed
                reader.step(input_ids, scores)
            return scores

        kwargs: dict[str, Any] = {
            "messages": self._messages(request),
            "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
            "seed": settings.seed if settings.seed is not None else defaults.MODEL_SEED,
            "stop": list(settings.stop),
            "logits_processor": [count],
            "stream": True,
        }
        if settings.top_p is not None:
            kwargs["top_p"] = settings.top_p
        if request.json_schema is not None:
            kwargs["grammar"] = json_grammar(request.json_schema)
        parts: list[str] = []
        cache = loaded.prefix_cache
        cache.system_text = next(
            (m.content for m in request.messages if m.role == "system"), None
        )
        try:
            for chunk in llama.create_chat_completion(**kwargs):
                if state.cancel.is_set():
                    raise _Cancelled
                choice = chunk["choices"][0]
                content = choice.get("delta", {}).get("content")
                if content:
                    parts.append(content)
                    if sink is not None:
                        sink(content)
                if choice.get("finish_reason"):
                    raw.finish_reason = choice["finish_reason"]
        except BaseException:
            cache.forget()
            raise
        finally:
            cache.system_text = None
        raw.reused_tokens = cache.reused_tokens
        raw.text = "".join(parts)
        raw.score_distribution = reader.distribution if reader is not None else None
        return raw

    def _messages(self, request: ChatRequest) -> list[dict[str, str]]:
        """The request's messages as llama-cpp-python takes them.

        For a chat format without a system turn, system text is put at the start of
        the first user message (separated by a blank line) rather than lost.
        """
        messages = [m.model_dump() for m in request.messages]
        if not self.model.system_in_first_user:
            return messages
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        rest = [m for m in messages if m["role"] != "system"]
        if system:
            for message in rest:
                if message["role"] == "user":
                    message["content"] = f"{system}\n\n{message['content']}"
                    break
            else:
                rest.insert(0, {"role": "user", "content": system})
        return rest

    def _result(self, answer: LocalAnswer, request: ChatRequest) -> ChatResult:
        text = answer.text
        parsed: Any | None = None
        if request.json_schema is not None:
            try:
                parsed = parse_json_answer(text, request.json_schema)
            except JSONExtractionError as exc:
                if answer.finish_reason == "length":
                    hint = f" (answer cut at max_tokens={request.settings.max_tokens})"
                else:
                    hint = ""
                raise CallError(f"{self.name}: {exc}{hint}", retryable=False,
                                answer_text=text) from None
        return ChatResult(
            text=text,
            parsed=parsed,
            usage=answer.usage,
            latency_s=answer.latency_s,
            time_to_first_token_s=answer.time_to_first_token_s,
            model=answer.model,
            score_distribution=answer.score_distribution,
        )

    async def score_options(self, request: OptionsRequest) -> OptionsResult:
        """Each option's token log-probabilities as the reply to the request's prompt, with
        no generation (:mod:`eunomia.models.providers.likelihood`). Raises
        :class:`CallError`."""
        loaded = await self._ensure_loaded()

        def frame(system: str, user: str) -> list[dict[str, str]]:
            return self._messages(ChatRequest.model_validate({"messages": [
                {"role": "system", "content": system}, {"role": "user", "content": user}]}))

        def forget_prefix() -> None:  # the model state is the scorer's, not a kept prefix
            loaded.prefix_cache.drop_prefix()

        return await score_on(loaded.executor, loaded.llama, frame, request, self.name,
                              self.model.name, forget_prefix)

    async def close(self) -> None:
        """Nothing to release: loaded models stay in the process for other providers to reuse."""
        self._loaded = None
