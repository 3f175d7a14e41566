"""An answer that ignores the requested form: the reference's content, in a form the case
did not ask for. The first rule that applies to the case is used:

``json as prose``       the reference is JSON (or JSON is asked for): its values as sentences
``list as paragraph``   the reference is a list: one paragraph
``paragraph as list``   a paragraph is asked for: the sentences as a bulleted list
``too long``            a length limit is asked for (``at most 3 sentences``, ``brief``,
                        ``concise``, ``a title``, a ``max_words`` check, an expected length):
                        the reference, then its sentences said again and a closing paragraph,
                        three times its length at least
``too short``           a minimum is asked for (``at least N words``, a ``min_words`` check):
                        the reference's first sentence alone

Asked for means said in the system prompt or the instruction. A language asked for (a
reference not in English, "in the customer's language") cannot be ignored without
translating, which no rule here does: such a case gets one of the rules above or is skipped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from eunomia.tasks._facts import Altered, Built, Skipped, _same
from eunomia.tasks._model import LoadedCase
from eunomia.tasks._text import LIST_ITEM, english, is_json, sentences
from eunomia.tasks.checks import MaxWords, MinWords

_LIMIT = re.compile(
    r"\b(at most|no more than|maximum of|max\.?|up to|under|within|in)\s+(\w+)\s+"
    r"(sentences?|words?|lines?|paragraphs?)\b|\b(briefly|brief|concise|concisely|short|"
    r"one sentence|a sentence|one line|a title|the title|headline|tweet)\b", re.I)
_MINIMUM = re.compile(r"\b(at least|no fewer than|minimum of)\s+(\w+)\s+(words?|sentences?|"
                      r"paragraphs?)\b|\b(\w+)\s+paragraphs\b", re.I)
_PARAGRAPH = re.compile(r"\b(paragraph|prose)\b", re.I)
_LANGUAGE = re.compile(r"\b(customer's|user's|same|their|your|the) language\b|"
                       r"\b(in|into) (german|french|spanish|italian|dutch|english)\b", re.I)
RESTATE = "To put it another way: "
CLOSING = ("I hope this answer is helpful and gives you everything you need. If anything is "
           "unclear, or if you would like more detail on any of the points above, please let "
           "me know and I will be glad to explain further.")


def _request(case: LoadedCase) -> str:
    return f"{case.case.system_prompt or ''}\n{case.case.instruction or ''}"


def _words(text: str) -> int:
    return len(text.split())


def _prose(value: Any) -> str:
    """A JSON value as sentences: ``{"order_id": "88231"}`` → ``The order id is 88231.``"""
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            label = str(key).replace("_", " ").replace("-", " ").strip()
            said = _prose(item) if isinstance(item, dict | list) else str(item)
            parts.append(f"The {label} is {said.rstrip('.')}.")
        return " ".join(parts)
    if isinstance(value, list):
        return ", ".join(_prose(v) if isinstance(v, dict | list) else str(v) for v in value)
    return str(value)


def _items(reference: str) -> list[str]:
    """The text of each list item of ``reference`` (markers removed, lines joined)."""
    out: list[str] = []
    for line in reference.splitlines():
        m = LIST_ITEM.match(line)
        if m:
            out.append(line[m.end():].strip())
        elif out and line.strip():
            out[-1] += " " + line.strip()
    return out


def _is_list(reference: str) -> bool:
    return len(LIST_ITEM.findall(reference)) >= 2


def _as_paragraph(reference: str) -> str:
    parts = []
    for item in _items(reference):
        item = item.replace("**", "").strip()
        parts.append(item if item.endswith((".", "!", "?", ":")) else item + ".")
    intro = reference[:LIST_ITEM.search(reference).start()].strip()  # type: ignore[union-attr]
    return " ".join([intro, *parts] if intro else parts)


def _as_list(reference: str) -> str:
    return "\n".join(f"- {' '.join(reference[s.start:s.end].split())}"
                     for s in sentences(reference))


def _too_long(reference: str, limit_words: int | None) -> str:
    target = max(3 * _words(reference), 3 * (limit_words or 0), 80)
    pieces = [reference.strip()]
    said = [" ".join(reference[s.start:s.end].split()) for s in sentences(reference)]
    k = 0
    while _words("\n\n".join(pieces)) < target:
        if k < len(said):
            piece = said[k]
            pieces.append(RESTATE + piece)
        else:
            pieces.append(CLOSING)
        k = (k + 1) % (len(said) + 1)
    return "\n\n".join(pieces)


def _limit_words(case: LoadedCase) -> int | None:
    limits = [int(c.max_words) for c in case.case.checks or () if isinstance(c, MaxWords)]
    if case.case.expected_output_length is not None:
        limits.append(case.case.expected_output_length)
    return min(limits) if limits else None


def form_ignored(case: LoadedCase, reference: str) -> Altered:
    """The reference in a form ``case`` did not ask for (see the module), or why not."""
    request = _request(case)
    checks = case.case.checks or ()
    built: tuple[str, str] | None = None
    if is_json(reference):  # the reference shows the JSON asked for
        built = _prose(json.loads(reference)), "JSON asked for, written as prose"
    if built is None and _is_list(reference):
        built = _as_paragraph(reference), "the list written as one paragraph"
    if built is None and _PARAGRAPH.search(request) and not _is_list(reference) \
            and len(sentences(reference)) >= 2:
        built = _as_list(reference), "a paragraph asked for, written as a bulleted list"
    limit = _limit_words(case)
    if built is None and (limit is not None or _LIMIT.search(request)):
        built = _too_long(reference, limit), "a length limit asked for, three times as long"
    if built is None and (_MINIMUM.search(request)
                          or any(isinstance(c, MinWords) for c in checks)):
        first = sentences(reference)
        if len(first) >= 2:
            built = reference[first[0].start:first[0].end], "a minimum length asked for: " \
                "the first sentence alone"
    if built is None:
        if not english(reference) or _LANGUAGE.search(request):
            return Skipped("form", "only a language is asked for, and ignoring it needs a "
                           "translation")
        return Skipped("form", "the case asks for no form (length, format) to ignore")
    text, how = built
    if _same(text, reference):
        return Skipped("form", "the alteration left the text unchanged")
    return Built("form", text, f"form ignored: {how}")
