"""Options scored by likelihood: how probable each candidate answer is as the model's reply.

A request is one shared prompt — a system part, a per-case context, then questions — and
for each question a few candidate answers (options). The result is, for every option, the
log-probability of each of its tokens as the assistant's reply to the prompt that ends with
that question. Nothing is generated; a grading engine picks the most likely option
(:mod:`eunomia.llm_feedback`).

On a llama.cpp model (:meth:`eunomia.models.providers.local.LocalProvider.score_options`)
the prompt is the model's own chat template, filled with

    system | context + question (user message) | reply prefix + option (assistant reply)

and fed as separately tokenised *segments*: the system part, the context, each question,
each option. The model state after the system part and after the context is kept, so a run
over many cases evaluates the system part once, and each case's context once for all of its
questions.

Deterministic: every prompt is evaluated as the same segments, each from the state at its
start in the same batches, whatever ran before; a kept state is only ever reused when the
model still holds exactly those segments, evaluated by this procedure. So the numbers depend
on the request only, not on the call history (``tests/llm_feedback_likelihood``). Segment
boundaries are at line ends and template markers, where the tokenisers split anyway: the
segment-wise tokens are those of the whole prompt.

The logits come from the context's own batch with the output flag set only on the rows that
are scored (``logits_all`` stays off: a vocabulary projection for every prompt token would
cost a third more compute and an ``n_ctx x n_vocab`` buffer).
"""

from __future__ import annotations

import asyncio
import importlib
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any, Protocol, runtime_checkable

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from eunomia.scheduler import CallError

SYSTEM_MARK = "\u2063SYSTEM\u2063"
USER_MARK = "\u2063USER\u2063"
"""Placeholders rendered through the chat template, then cut at, to find its frame."""


class OptionsQuestion(BaseModel):
    """One question: text appended to the context, and the candidate answers. ``reply`` is
    the start of the assistant's reply, written before every option (``{"score":`` for a
    judge's JSON answer: the options are then the values at the score's position)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    options: tuple[str, ...] = Field(min_length=1)
    reply: str = ""

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Left out when empty: a question without it is the same text (and cache key) as
        # before the field existed (the feedback engine's likelihood requests).
        data = handler(self)
        if isinstance(data, dict) and not data.get("reply"):
            data.pop("reply", None)
        return data


class OptionsRequest(BaseModel):
    """A shared prompt and its questions. ``context`` and each question end the user
    message in turn (``context + question``); keep boundaries at line ends."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    system: str
    context: str
    questions: tuple[OptionsQuestion, ...]


class OptionsResult(BaseModel):
    """Per question, per option: the natural-log probability of each of its tokens."""

    model_config = ConfigDict(frozen=True)

    logprobs: tuple[tuple[tuple[float, ...], ...], ...]
    model: str
    input_tokens: int = 0
    """Tokens of the request's prompts (system, context, questions, options)."""
    cached_input_tokens: int = 0
    """Of those, the ones not evaluated again (kept from an earlier request)."""
    latency_s: float = 0.0


@runtime_checkable
class OptionsScorer(Protocol):
    """A provider that can score options by likelihood (the local llama.cpp models)."""

    @property
    def name(self) -> str: ...

    async def score_options(self, request: OptionsRequest) -> OptionsResult: ...


def log_softmax(rows: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax in float64."""
    rows = rows.astype(np.float64)
    top = rows.max(axis=-1, keepdims=True)
    shifted = rows - top
    result: np.ndarray = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return result


Frame = Callable[[str, str], list[dict[str, str]]]
"""Chat messages for a system and a user text, as the provider lays them out."""


class _Template:
    """The chat template's text around the system part, the user message and the reply."""

    def __init__(self, llama: Any, frame: Frame) -> None:
        module = importlib.import_module("llama_cpp.llama_chat_format")
        messages = frame(SYSTEM_MARK, USER_MARK)
        name = llama.chat_format
        template = getattr(llama, "metadata", {}).get("tokenizer.chat_template")
        if name in (None, "chat_template.default") and template:
            vocab = llama._model
            formatter = module.Jinja2ChatFormatter(
                template=template,
                eos_token=vocab.token_get_text(vocab.token_eos()),
                bos_token=vocab.token_get_text(vocab.token_bos()),
            )
            response = formatter(messages=messages)
        else:
            format_fn = getattr(module, f"format_{str(name).replace('-', '_')}", None)
            if format_fn is None:
                raise ValueError(f"chat format {name!r} cannot be split into segments")
            response = format_fn(messages=messages)
        prompt: str = response.prompt
        self.add_bos = not response.added_special
        if prompt.count(SYSTEM_MARK) != 1 or prompt.count(USER_MARK) != 1 \
                or prompt.index(SYSTEM_MARK) > prompt.index(USER_MARK):
            raise ValueError(f"chat format {name!r} does not keep the system text before the "
                             "user text")
        self.head, rest = prompt.split(SYSTEM_MARK)
        self.middle, self.tail = rest.split(USER_MARK)


class SegmentScorer:
    """Scores options on one llama.cpp model, keeping the state of the shared segments."""

    def __init__(self, llama: Any, frame: Frame) -> None:
        self.llama = llama
        self.template = _Template(llama, frame)
        self.n_vocab: int = llama.n_vocab()
        self._kept: list[tuple[int, ...]] = []
        """Segments whose state the model holds, in order (positions 0..sum-1)."""
        self._kept_ids: np.ndarray | None = None

    # -- tokens and state ------------------------------------------------------------------
    def _tokens(self, text: str, *, bos: bool = False) -> tuple[int, ...]:
        return tuple(self.llama.tokenize(text.encode("utf-8"), add_bos=bos, special=True))

    def _holds_kept(self) -> bool:
        """True when the model still holds exactly the kept segments (no other call since)."""
        n = sum(len(s) for s in self._kept)
        if not self._kept or self._kept_ids is None or self.llama.n_tokens != n:
            return False
        return bool(np.array_equal(self.llama.input_ids[:n], self._kept_ids))

    def _truncate(self, n: int) -> None:
        self.llama._ctx.kv_cache_seq_rm(0, n, -1)
        self.llama.n_tokens = n

    def _decode(self, tokens: Sequence[int], all_rows: bool) -> np.ndarray:
        """Evaluate ``tokens`` after the current state, in ``n_batch`` chunks; the logits of
        every token (``all_rows``) or of the last one, shape (rows, n_vocab)."""
        llama = self.llama
        out: list[np.ndarray] = []
        step = int(llama.n_batch)
        for start in range(0, len(tokens), step):
            chunk = list(tokens[start:start + step])
            n_past = llama.n_tokens
            if n_past + len(chunk) > llama.n_ctx():
                raise ValueError(f"the prompt needs more than the context's {llama.n_ctx()} "
                                 "tokens")
            llama._batch.set_batch(batch=chunk, n_past=n_past, logits_all=all_rows)
            llama._ctx.decode(llama._batch)
            rows = len(chunk) if all_rows else 1
            logits = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(rows * self.n_vocab,))
            out.append(logits.reshape(rows, self.n_vocab).copy())  # the buffer is reused
            llama.input_ids[n_past:n_past + len(chunk)] = chunk
            llama.n_tokens += len(chunk)
        return np.concatenate(out) if all_rows else out[-1]

    def _hold(self, segments: list[tuple[int, ...]]) -> int:
        """Bring the model into the state of ``segments``; returns the tokens reused."""
        keep = 0
        if self._holds_kept():
            while keep < min(len(segments), len(self._kept)) \
                    and segments[keep] == self._kept[keep]:
                keep += 1
        reused = sum(len(s) for s in segments[:keep])
        self._truncate(reused)
        self._kept = segments[:keep]
        for segment in segments[keep:]:
            self._decode(segment, all_rows=False)
            self._kept.append(segment)
        n = sum(len(s) for s in self._kept)
        self._kept_ids = np.array(self.llama.input_ids[:n], copy=True)
        return reused

    # -- scoring ---------------------------------------------------------------------------
    def score(self, request: OptionsRequest, model: str) -> OptionsResult:
        started = time.perf_counter()
        t = self.template
        system = self._tokens(t.head + request.system + t.middle, bos=t.add_bos)
        context = self._tokens(request.context)
        try:
            reused = self._hold([system, context])
            base = len(system) + len(context)
            total = base
            out: list[tuple[tuple[float, ...], ...]] = []
            for question in request.questions:
                self._truncate(base)
                asked = self._tokens(question.text + t.tail + question.reply)
                last = log_softmax(self._decode(asked, all_rows=False))[0]
                after_question = base + len(asked)
                total += len(asked)
                scored: list[tuple[float, ...]] = []
                for option in question.options:
                    tokens = self._tokens(option)
                    if not tokens:
                        raise ValueError(f"option {option!r} has no tokens")
                    total += len(tokens)
                    values = [float(last[tokens[0]])]
                    if len(tokens) > 1:
                        rows = log_softmax(self._decode(tokens[:-1], all_rows=True))
                        values += [float(rows[i, tok]) for i, tok in enumerate(tokens[1:])]
                        self._truncate(after_question)
                    scored.append(tuple(values))
                out.append(tuple(scored))
            self._truncate(base)
        except BaseException:
            self.forget()
            raise
        return OptionsResult(logprobs=tuple(out), model=model, input_tokens=total,
                             cached_input_tokens=reused,
                             latency_s=time.perf_counter() - started)

    def forget(self) -> None:
        """Keep no state (after a failure, whose state is unknown)."""
        self._kept = []
        self._kept_ids = None
        self.llama.n_tokens = 0


_SCORERS: weakref.WeakKeyDictionary[Any, SegmentScorer] = weakref.WeakKeyDictionary()


def scorer_for(llama: Any, frame: Frame) -> SegmentScorer:
    """The scorer of a loaded model (one per model; call on the model's own thread)."""
    scorer = _SCORERS.get(llama)
    if scorer is None:
        scorer = SegmentScorer(llama, frame)
        _SCORERS[llama] = scorer
    return scorer


async def score_on(executor: Executor, llama: Any, frame: Frame, request: OptionsRequest,
                   provider: str, model: str, after: Callable[[], None]) -> OptionsResult:
    """Score ``request`` on ``llama`` on its own thread (``executor``); ``after`` runs there
    once the state is changed. Failures become a non-retryable :class:`CallError`."""
    if not isinstance(request, OptionsRequest):
        raise TypeError("score_options takes an OptionsRequest")

    def work() -> OptionsResult:
        try:
            return scorer_for(llama, frame).score(request, model)
        finally:
            after()

    try:
        return await asyncio.get_running_loop().run_in_executor(executor, work)
    except Exception as exc:  # llama.cpp reports bad input (context overflow) as errors
        raise CallError(f"{provider}: {type(exc).__name__}: {exc}", retryable=False) from None
