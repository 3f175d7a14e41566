"""The score values' probabilities in a llama.cpp generation (``ChatRequest.score_logprobs``).

The local provider installs a logits processor that llama-cpp-python calls before each
sampled token with the tokens so far and the model's raw logits (before the grammar and the
temperature). :class:`ScoreReader` keeps, at every step until the score is written, the
probability of each *value token* — a vocabulary token that spells one of the values after
leading punctuation or spaces (``"4"``, ``" 4"``, ``"4,"``; Gemma 3 has two ids for the text
``"4"``, both count) — and, once the next token shows where the score is, keeps that step's.

It reads the same position as the OpenAI-compatible provider
(:func:`eunomia.models.providers._scores.score_distribution`): the first answer token whose
text, after leading punctuation, starts with a value's first character; alternatives count
when they have the same leading punctuation (spaces aside). With the judge's compact grammar
that is the token right after ``{"score":``. The probabilities are over the whole vocabulary
(the model puts most of its mass on a space there, which the grammar forbids); the
probability-weighted score renormalises over the values. Nothing extra is evaluated: the
logits are the ones the generation computes anyway (``logits_all`` stays off).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eunomia.models.providers._scores import split_lead, value_at

ValueTokens = tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]
"""(token ids, each one's value, each one's leading punctuation without spaces)."""

_TABLES: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], ValueTokens]] = \
    weakref.WeakKeyDictionary()
_TABLES_LOCK = threading.Lock()


def _token_text(llama: Any, token: int) -> str | None:
    try:
        return bytes(llama.detokenize([int(token)])).decode("utf-8")
    except UnicodeDecodeError:  # part of a multi-byte character: never a value
        return None


def value_tokens(llama: Any, values: tuple[str, ...]) -> ValueTokens:
    """The vocabulary tokens that spell one of ``values`` (see the module), found by one scan
    of the vocabulary per model and values (about a second), then kept."""
    with _TABLES_LOCK:
        known = _TABLES.setdefault(llama, {})
        table = known.get(values)
        if table is not None:
            return table
        ids: list[int] = []
        spelled: list[str] = []
        leads: list[str] = []
        starts = {v[0] for v in values if v}
        for token in range(int(llama.n_vocab())):
            text = _token_text(llama, token)
            if not text:
                continue
            lead, rest = split_lead(text)
            if not rest or rest[0] not in starts:
                continue
            value = value_at(rest, values)
            # what follows the value must be punctuation ("4," "4}"), not more words
            if value is None or any(ch.isalnum() for ch in rest[len(value):]):
                continue
            ids.append(token)
            spelled.append(value)
            leads.append(lead.strip())
        table = (np.asarray(ids, dtype=np.intp), tuple(spelled), tuple(leads))
        known[values] = table
        return table


@dataclass(slots=True)
class ScoreReader:
    """Reads the score values' probabilities during one generation; call :meth:`step` from
    the logits processor, read :attr:`distribution` afterwards."""

    llama: Any
    values: tuple[str, ...]
    table: ValueTokens
    prompt_tokens: int | None = None
    done: bool = False
    distribution: dict[str, float] | None = None
    _pending: np.ndarray | None = field(default=None, repr=False)
    """The value tokens' probabilities at the previous step (the last token's position)."""

    @classmethod
    def create(cls, llama: Any, values: Sequence[str] | None) -> ScoreReader | None:
        """A reader for ``values`` (``ChatRequest.score_logprobs``); None when none are asked."""
        if not values:
            return None
        asked = tuple(values)
        return cls(llama, asked, value_tokens(llama, asked))

    def step(self, input_ids: Any, logits: Any) -> None:
        """Before each sampled token: ``input_ids`` (prompt and answer so far), raw logits."""
        if self.done:
            return
        if self.prompt_tokens is None:
            self.prompt_tokens = len(input_ids)
        elif self._pending is not None and len(input_ids) > self.prompt_tokens:
            self._seen(int(input_ids[-1]))
            if self.done:
                return
        ids = self.table[0]
        if not len(ids):
            self.done = True
            return
        row = np.asarray(logits, dtype=np.float64)
        top = float(row.max())
        log_total = top + float(np.log(np.exp(row - top).sum()))
        self._pending = np.exp(row[ids] - log_total)

    def _seen(self, token: int) -> None:
        """The token sampled at the pending step: is it the score?"""
        text = _token_text(self.llama, token)
        if text is None:
            return
        lead, rest = split_lead(text)
        if not rest or rest[0] not in {v[0] for v in self.values if v}:
            return
        self.done = True
        if value_at(rest, self.values) is None or self._pending is None:
            return  # the answer's score is none of the values (e.g. "10")
        mass = dict.fromkeys(self.values, 0.0)
        _, spelled, leads = self.table
        want = lead.strip()
        for p, value, token_lead in zip(self._pending.tolist(), spelled, leads, strict=True):
            if token_lead == want:
                mass[value] += p
        self.distribution = mass
