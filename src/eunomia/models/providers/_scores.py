"""The probabilities of a judge's score values, read from token log-probabilities.

A provider that returns the log-probabilities of each answer token and of its top
alternatives (OpenAI-compatible ``logprobs``/``top_logprobs``; llama.cpp) can say how sure
the judge was of its score: at the position where the score was written, the probability of
every value ``"0"`` ... ``"5"``. The expectation over them is the probability-weighted
(G-Eval) score, finer than the sampled digit.

The position is the first answer token whose text, after leading punctuation and spaces
(``{"``, ``":``, `` ``), starts with the first character of a value — for the judge's
``{"score": <0-5>, "feedback": ...}`` (score first) that is the score. It counts only when
the value there is whole (``"4"``, ``"4,"``, not ``"45"``); otherwise there is no
distribution. An alternative counts for a value when it has the same leading punctuation
(spaces aside) and then spells the value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

Alternative = tuple[str, float]
"""A token's text and its natural-log probability."""
Position = tuple[str, Sequence[Alternative]]
"""An answer token's text and the top alternatives at its position (itself usually among)."""


def split_lead(text: str) -> tuple[str, str]:
    """(leading punctuation and spaces, the rest)."""
    for i, ch in enumerate(text):
        if ch.isalnum():
            return text[:i], text[i:]
    return text, ""


def value_at(rest: str, values: Sequence[str]) -> str | None:
    """The value ``rest`` spells whole at its start (the longest), or None."""
    best: str | None = None
    for value in values:
        if value and rest.startswith(value) and not rest[len(value):len(value) + 1].isalnum() \
                and (best is None or len(value) > len(best)):
            best = value
    return best


def score_distribution(positions: Iterable[Position], values: Sequence[str]
                       ) -> dict[str, float] | None:
    """Each of ``values``' probability at the score's position (see the module), or None
    when no token of the answer is a score."""
    starts = {v[0] for v in values if v}
    for text, alternatives in positions:
        lead, rest = split_lead(text)
        if not rest or rest[0] not in starts:
            continue
        if value_at(rest, values) is None:
            return None  # the score is not one of the values (e.g. "10")
        mass = dict.fromkeys(values, 0.0)
        seen: set[str] = set()
        for alt_text, logprob in alternatives:
            alt_lead, alt_rest = split_lead(alt_text)
            value = value_at(alt_rest, values)
            if value is None or alt_lead.strip() != lead.strip() or alt_text in seen:
                continue
            seen.add(alt_text)  # some servers list the chosen token twice
            if math.isfinite(logprob):
                mass[value] += math.exp(logprob)
        return mass
    return None


def logprob_entries(choice: dict[str, Any]) -> list[Any]:
    """The ``logprobs.content`` entries of a choice (or of a stream chunk's choice)."""
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    return content if isinstance(content, list) else []


def openai_positions(entries: list[Any]) -> list[Position]:
    """``[{token, logprob, top_logprobs: [{token, logprob}]}]`` as (token, alternatives)."""
    out: list[Position] = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            continue
        alternatives = [(str(a["token"]), float(a["logprob"]))
                        for a in entry.get("top_logprobs") or ()
                        if isinstance(a, dict) and isinstance(a.get("token"), str)
                        and isinstance(a.get("logprob"), int | float)]
        if not alternatives and isinstance(entry.get("logprob"), int | float):
            alternatives = [(entry["token"], float(entry["logprob"]))]
        out.append((entry["token"], alternatives))
    return out
