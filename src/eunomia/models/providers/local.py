"""The ``local`` provider: an in-process llama.cpp model (``llama-cpp-python``).

Each model is loaded once per process and shared by every provider object that
names it. Calls to one model run one at a time on the model's own worker thread
(generation is CPU-bound and llama.cpp contexts are not thread-safe), so the
event loop never blocks.

Reproducibility: temperature 0 (greedy), a fixed seed, and a model state that
depends on the request only. llama-cpp-python on its own reuses the KV cache of
whatever prefix the previous prompt shared with this one, so the answer would
depend on what was asked before it in the process (the shared part was computed
in other batches). Here every prompt is evaluated in the same two steps, always:
its system part on its own from an empty state, then the rest. The state of the
first step is kept between calls, and a call whose system part is the same as the
previous call's starts from it instead of evaluating it again — the same numbers
as evaluating it afresh, because the procedure does not depend on history. A
grading engine sends the same ~1,000-token system prompt with every submission,
so this saves most of the prompt evaluation. See :class:`_SystemPrefixCache`.

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
import contextlib
import importlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.models._json import JSONExtractionError, parse_json_answer
from eunomia.models._types import ChatRequest, ChatResult, Usage
from eunomia.models._weights import LocalModel, ensure_weights, local_model
from eunomia.models.providers._local_grammar import json_grammar
from eunomia.models.providers._local_grammar import (
    schema_problem as schema_problem,  # re-exported: the model server checks schemas
)
from eunomia.models.providers._local_scores import ScoreReader
from eunomia.models.providers.likelihood import OptionsRequest, OptionsResult, score_on
from eunomia.scheduler import CallError

INSTALL_HINT = "pip install 'eunomia[local]'  (or scripts/setup-local-model.sh)"

JSON_OBJECT_SCHEMA: dict[str, Any] = {"type": "object"}
"""The schema of "any JSON object" (OpenAI's ``response_format: json_object``)."""


def import_llama_cpp() -> Any:
    """The ``llama_cpp`` module, or a clear error naming the install command."""
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise EunomiaError(
            "the local model provider needs llama-cpp-python, which is not installed "
            f"({exc}). Install it with:\n  {INSTALL_HINT}\n"
            "It builds from source: about 9 minutes on 2 cores."
        ) from None


class _Cancelled(Exception):
    """Raised inside the generation loop to stop a call whose caller went away."""


_MIN_PREFIX_TOKENS = 32
"""System parts shorter than this are not worth a separate evaluation step."""
_EDGE_TOKENS = 2
"""Tokens at each end of the system text whose tokenisation may depend on neighbours."""


class _SystemPrefixCache:
    """Evaluates every prompt as "system part, then the rest" and keeps the first part.

    Installed as the model's ``generate`` (llama-cpp-python's chat completion
    formats the messages, tokenises the prompt and calls ``generate`` with the
    tokens). Before handing the tokens on, it brings the model into the state of
    exactly the prompt's system part: kept from the previous call when that call
    had the same one, else evaluated now from an empty state. ``generate`` then
    finds that state as a cached prefix and evaluates only the rest. A prompt whose
    system part cannot be located (no system message, a chat format that drops it,
    or one too short) is evaluated from an empty state in one go — again the same
    procedure whatever ran before.

    The split point is where the system text ends inside the prompt tokens: the
    system text's own tokens (minus a couple at each end, whose tokenisation can
    depend on the neighbouring template text) are searched for in the prompt, so
    the split depends only on the request.
    """

    def __init__(self, llama: Any) -> None:
        self._llama = llama
        self._generate = llama.generate
        self.system_text: str | None = None
        """The system message of the call in progress (set by the provider per call)."""
        self._prefix: list[int] | None = None
        """The tokens whose state the model holds (positions 0..len-1), if any."""
        self.reused_tokens = 0
        """Prompt tokens the last call did not evaluate again (for tests and benchmarks)."""

    def __call__(self, tokens: Any, *args: Any, **kwargs: Any) -> Any:
        tokens = list(tokens)
        self._prepare(tokens)
        return self._generate(tokens, *args, **kwargs)

    def split_point(self, tokens: list[int]) -> int:
        """Number of leading prompt tokens that make up the system part (0: none found)."""
        text = self.system_text
        if not text:
            return 0
        own = self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        needle = own[_EDGE_TOKENS:-_EDGE_TOKENS] if len(own) > 2 * _EDGE_TOKENS else []
        if len(needle) < _MIN_PREFIX_TOKENS:
            return 0
        first = needle[0]
        width = len(needle)
        for start, token in enumerate(tokens):
            if token == first and tokens[start:start + width] == needle:
                end = start + width
                return end if end < len(tokens) else 0
        return 0

    def _prepare(self, tokens: list[int]) -> None:
        llama = self._llama
        split = self.split_point(tokens)
        prefix = tokens[:split]
        if split and self._prefix == prefix and llama.n_tokens >= split:
            # Drop whatever followed the system part last time; keep the part itself.
            llama._ctx.kv_cache_seq_rm(-1, split, -1)
            llama.n_tokens = split
            self.reused_tokens = split
            return
        llama.reset()
        self._prefix = None
        self.reused_tokens = 0
        if split:
            llama.eval(prefix)
            self._prefix = prefix

    def forget(self) -> None:
        """Empty the model state (after a failed call, whose state is unknown)."""
        self._llama.reset()
        self._prefix = None


@dataclass(slots=True)
class _Loaded:
    """A model loaded in this process, with the one thread allowed to use it."""

    llama: Any
    executor: ThreadPoolExecutor
    load_s: float
    path: Path
    prefix_cache: _SystemPrefixCache


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


_LOADED: dict[tuple[str, int, int], _Loaded] = {}
_LOAD_LOCK = threading.Lock()


@contextlib.contextmanager
def _without_extra_buffers(llama_cpp: Any) -> Iterator[None]:
    """Load models without llama.cpp's extra CPU buffer types (AMX, repacked weights).

    llama-cpp-python does not expose ``use_extra_bufts``. On this project's
    reference machine (a virtualised Xeon with AMX) the AMX buffer type crashes
    the process on the first decode; without extra buffers llama.cpp runs the
    ordinary AVX2/AVX-512 kernels. Called under ``_LOAD_LOCK``.
    """
    low = llama_cpp.llama_cpp
    original = low.llama_model_default_params

    def params() -> Any:
        p = original()
        p.use_extra_bufts = False
        return p

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = original


def _threads(threads: int | None) -> int:
    """Explicit value, else ``$EUNOMIA_LOCAL_THREADS``, else the default (all cores but one)."""
    if threads:
        return threads
    env = os.environ.get(defaults.LOCAL_THREADS_ENV, "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise EunomiaError(
                f"{defaults.LOCAL_THREADS_ENV} must be a whole number, got {env!r}"
            ) from None
    return defaults.LOCAL_THREADS or max(1, (os.cpu_count() or 1) - 1)


def load_model(
    model: LocalModel,
    *,
    context_tokens: int = defaults.LOCAL_CONTEXT_TOKENS,
    threads: int | None = None,
) -> _Loaded:
    """Load ``model`` once per process (thread-safe); later calls return the same object."""
    n_threads = _threads(threads)
    key = (model.name, context_tokens, n_threads)
    with _LOAD_LOCK:
        loaded = _LOADED.get(key)
        if loaded is not None:
            return loaded
        llama_cpp = import_llama_cpp()
        path = ensure_weights(model.name)
        started = time.perf_counter()
        try:
            with _without_extra_buffers(llama_cpp):
                llama = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=context_tokens,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    seed=defaults.MODEL_SEED,
                    chat_format=model.chat_format,
                    verbose=False,
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise EunomiaError(
                f"cannot load local model {model.name!r} from {path}: {exc}"
            ) from None
        prefix_cache = _SystemPrefixCache(llama)
        llama.generate = prefix_cache
        loaded = _Loaded(
            llama=llama,
            prefix_cache=prefix_cache,
            executor=ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"llama-{model.name}"),
            load_s=time.perf_counter() - started,
            path=path,
        )
        _LOADED[key] = loaded
        return loaded


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
        self._loaded: _Loaded | None = None

    @property
    def name(self) -> str:
        return f"local:{self.model.name}"

    @property
    def threads_used(self) -> int:
        """CPU threads the model runs with (explicit, ``$EUNOMIA_LOCAL_THREADS`` or default)."""
        return _threads(self.threads)

    async def load(self) -> float:
        """Load the model now (else the first call does). Returns the load time in seconds."""
        loaded = await self._ensure_loaded()
        return loaded.load_s

    async def _ensure_loaded(self) -> _Loaded:
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
        self, loaded: _Loaded, request: ChatRequest, state: _CallState, sink: TextSink | None
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
            loaded.prefix_cache._prefix = None

        return await score_on(loaded.executor, loaded.llama, frame, request, self.name,
                              self.model.name, forget_prefix)

    async def close(self) -> None:
        """Nothing to release: loaded models stay in the process for other providers to reuse."""
        self._loaded = None
