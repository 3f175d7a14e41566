"""Reading a reference answer as text: its sentences, numbers and names, as spans of the
original string — so an answer built from it (:mod:`eunomia.tasks._facts`,
:mod:`eunomia.tasks._form`) is the reference with one edit, every other character kept.

Plain rules, no language model and no tagger: deterministic, fast, and wrong now and then on
unusual text (the builders check that their edit changed the answer, and say when they
could not apply).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

LIST_ITEM = re.compile(r"^[ \t]*(?:[-*\u2022]|\d{1,2}[.)])[ \t]+", re.M)
"""A line that starts a list item: ``- ``, ``* ``, ``• ``, ``1. ``, ``2) ``."""
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d)\]]*\s+(?=[\"'\u201c(\[*]*[A-Z0-9])")
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "etc", "vs", "cu", "ft", "approx", "mr", "mrs", "ms", "dr", "st",
    "fig", "incl", "min", "max", "ca", "cf", "jr", "sr", "co", "inc", "ltd", "dept", "est"})
"""Words that end with a full stop without ending a sentence (``cu. ft.``, ``e.g.``)."""

NUMBER = re.compile(r"(?<![\w.,:/\-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?!\d|,\d)")
"""A number standing on its own or before a unit (``30``, ``1.7``, ``10,000``, ``16GB``,
``2-year``), not one inside a name or code (``IP67``, ``i7-1260P``, ``PX-4410``) nor the
minutes of a time (``14:00``)."""
WORD = re.compile(r"[A-Za-z\u00c0-\u024f][\w'\u2019+-]*[\w+]|[A-Za-z\u00c0-\u024f]")
STOPWORDS = frozenset({
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
    "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between",
    "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during",
    "each", "either", "else", "even", "ever", "every", "few", "for", "from", "further", "had",
    "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in",
    "into", "is", "it", "its", "itself", "just", "let", "may", "me", "might", "more", "most",
    "much", "must", "my", "neither", "no", "nor", "not", "of", "off", "often", "on", "once",
    "one", "only", "or", "other", "our", "ours", "out", "over", "own", "per", "please", "same",
    "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs",
    "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
    "until", "up", "upon", "us", "very", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "within", "without", "would", "yes", "yet",
    "you", "your", "yours",
})
"""Function words: never a fact, never a name."""
NOT_NAMES = frozenset({"I", "I'm", "I'd", "I'll", "I've", "OK", "A"})


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence of a text: ``[start, end)``, and the list item or paragraph it belongs to
    (``[item_start, item_end)``, the whole line(s) with the marker and the line end) when
    it is that item's only sentence — dropping it then drops the item."""

    start: int
    end: int
    item_start: int
    item_end: int
    alone: bool


def is_json(text: str) -> bool:
    """Whether ``text`` is a JSON object or array."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


def _items(text: str) -> list[tuple[int, int]]:
    """The list items and paragraphs of ``text``: a line that starts a list item or follows
    a blank line starts a new one; other lines continue the one before (hard-wrapped)."""
    starts = [0]
    for m in re.finditer(r"\n", text):
        at = m.end()
        rest = text[at:]
        if LIST_ITEM.match(rest) or (rest.strip() and text[:at].endswith("\n\n")):
            starts.append(at)
    bounds = [*starts[1:], len(text)]
    return [(s, e) for s, e in zip(starts, bounds, strict=True) if text[s:e].strip()]


def _ends_abbreviation(text: str, dot: int) -> bool:
    word = re.search(r"([A-Za-z.]+)$", text[:dot])
    if word is None:
        return False
    token = word.group(1).strip(".").lower()
    return token in ABBREVIATIONS or len(token) == 1


def sentences(text: str) -> list[Sentence]:
    """The sentences of ``text`` in order (a JSON answer is one sentence)."""
    if is_json(text):
        start = len(text) - len(text.lstrip())
        return [Sentence(start, len(text.rstrip()), 0, len(text), True)]
    out: list[Sentence] = []
    for item_start, item_end in _items(text):
        body = text[item_start:item_end]
        marker = LIST_ITEM.match(body)
        begin = item_start + (marker.end() if marker else 0)
        spans: list[tuple[int, int]] = []
        cursor = begin
        for m in _SENTENCE_END.finditer(text, begin, item_end):
            if _ends_abbreviation(text, m.start()):
                continue
            spans.append((cursor, m.start() + len(m.group(0).rstrip())))
            cursor = m.end()
        spans.append((cursor, item_end))
        trimmed = []
        for s, e in spans:
            piece = text[s:e]
            if piece.strip():
                s += len(piece) - len(piece.lstrip())
                e = s + len(piece.strip())
                trimmed.append((s, e))
        for s, e in trimmed:
            out.append(Sentence(s, e, item_start, item_end, len(trimmed) == 1))
    return out


def words(text: str) -> list[str]:
    return [m.group(0) for m in WORD.finditer(text)]


def content_words(text: str) -> set[str]:
    """The lowercased words of ``text`` that carry meaning (three letters or more, not a
    function word)."""
    return {w.lower() for w in words(text) if len(w) >= 3 and w.lower() not in STOPWORDS}


def numbers(text: str) -> list[re.Match[str]]:
    return list(NUMBER.finditer(text))


def _sentence_starts(text: str) -> set[int]:
    """Where sentences start, and where quoted text (a JSON string, a quotation), a bold
    heading or the text after a colon starts: a capital there says nothing about a name."""
    starts = {s.start for s in sentences(text)}
    for s in list(starts):  # a bold heading or a quotation opening the sentence
        m = re.match(r"[*\"'\u201c(\[]+", text[s:])
        if m:
            starts.add(s + m.end())
    starts.update(m.end() for m in re.finditer(r"[\"\u201c]|:\s+|\*\*\s*", text))
    return starts


def _acronym(word: str) -> bool:
    """``SSD``, ``SSDs``, ``HDMI``, ``IP67``, ``ShopWell``, ``mAh``: capitals not only first."""
    return sum(ch.isupper() for ch in word) >= 2 or (any(ch.isupper() for ch in word[1:]))


def name_key(word: str) -> tuple[str, str]:
    """(the name, its plural ending): ``SSDs`` → (``SSD``, ``s``)."""
    if len(word) > 2 and word.endswith("s") and word[:-1].isupper():
        return word[:-1], "s"
    return word, ""


@dataclass(frozen=True, slots=True)
class Name:
    """A name in a text (a run of capitalised words: ``Nordic Nest``, ``OLED``)."""

    text: str
    start: int
    end: int


def names(text: str) -> list[Name]:
    """The names of ``text``: runs of capitalised words, except a sentence's first word when
    it is an ordinary word (``The``, ``Choose``), a unit after a number (``3.7 V``) and
    :data:`NOT_NAMES`. Heuristic, on purpose: no tagger."""
    starts = _sentence_starts(text)
    found = list(WORD.finditer(text))
    tokens: list[tuple[int, int, str]] = []
    for i, m in enumerate(found):
        word = m.group(0)
        if word in NOT_NAMES or (not word[0].isupper() and not _acronym(word)):
            continue
        if len(word) == 1 and "/" in text[max(0, m.start() - 1):m.end() + 1]:
            continue  # I/O
        if re.search(r"\d[\d.,]*\s?$", text[max(0, m.start() - 12):m.start()]):
            continue  # a unit: 3.7 V, 10,000 mAh, 2200 W
        if m.start() in starts and not _acronym(word):
            # a sentence's first word is a name only as the start of several (Nordic Nest)
            after = found[i + 1] if i + 1 < len(found) else None
            if word.lower() in STOPWORDS or after is None \
                    or text[m.end():after.start()] != " " or not after.group(0)[0].isupper():
                continue
        tokens.append((m.start(), m.end(), word))
    out: list[Name] = []
    for start, end, _word in tokens:
        if out and text[out[-1].end:start] == " ":
            last = out[-1]
            out[-1] = Name(text[last.start:end], last.start, end)
        else:
            out.append(Name(text[start:end], start, end))
    return out


_FOREIGN = frozenset({
    "der", "das", "und", "ist", "nicht", "wir", "sie", "ihre", "ihr", "ein", "eine",
    "mit", "für", "auf", "dem", "den", "des", "zu", "bitte", "le", "la", "les", "et", "est",
    "une", "pour", "avec", "vous", "nous", "pas", "el", "los", "las", "y", "es", "una",
    "por", "para", "con", "usted", "het", "een", "van", "niet", "wij", "il", "che", "non",
    "sono",
})
"""Common words of German, French, Spanish, Dutch and Italian (none is an English word)."""


def english(text: str) -> bool:
    """Whether ``text`` reads as English: more English function words than those of the
    other common European languages (:data:`_FOREIGN`)."""
    found = [w.lower() for w in words(text)]
    ours = sum(w in STOPWORDS for w in found)
    theirs = sum(w in _FOREIGN for w in found)
    return ours >= theirs


def name_counts(found: Iterable[Name]) -> Counter[str]:
    """How often each name occurs (plurals counted with their singular)."""
    return Counter(name_key(n.text)[0] for n in found)
