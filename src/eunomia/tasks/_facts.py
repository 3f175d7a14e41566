"""Answers that read right and are wrong: the reference with one kind of fact altered.

Built from each case deterministically (no model writes them), as the reference with edits
in place — every other character kept, so the answer has the reference's fluency, length and
form:

``numbers``  every number changed (:func:`changed_number`): ``30 days`` → ``45 days``,
             ``1.7-litre`` → ``2.6-litre``, ``70%`` → ``35%``, ``two coats`` → ``four coats``
``entity``   a name swapped: a weekday, month or currency for the next one; else the two most
             frequent names exchanged (``OLED`` ↔ ``LCD``, ``HDD`` ↔ ``SSD``, sizes ``L`` ↔
             ``M``); else the only name replaced by one from another case of the suite
``negated``  the key claim negated: a leading Yes/No flipped, else, in the most important
             sentence where it can be done, a negation removed (``cannot`` → ``can``,
             ``never`` → ``always``) or added (``is`` → ``is not``, ``keeps`` →
             ``does not keep``)
``dropped``  the most important sentence left out (with its list marker when it is an item)

The *most important* sentence shares the most with the request (its instruction and system
prompt): content words, numbers and names, the first sentence on a tie.

An alteration that cannot apply to a case (no number, no name, one sentence only...) is
:class:`Skipped` with the reason, never the reference copied; the builders also skip an edit
that leaves the text unchanged.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from eunomia.tasks._model import LoadedCase
from eunomia.tasks._text import (
    STOPWORDS,
    Sentence,
    content_words,
    english,
    name_counts,
    name_key,
    names,
    numbers,
    sentences,
    words,
)

AlteredKind = Literal["numbers", "entity", "negated", "dropped", "form"]
FACT_KINDS: tuple[AlteredKind, ...] = ("numbers", "entity", "negated", "dropped")
ALTERED_KINDS: tuple[AlteredKind, ...] = (*FACT_KINDS, "form")


@dataclass(frozen=True, slots=True)
class Built:
    """An altered answer: its kind, its text and what was changed (for the reader)."""

    kind: AlteredKind
    text: str
    how: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """An alteration that does not apply to the case, and why."""

    kind: AlteredKind
    reason: str


Altered = Built | Skipped

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_WORD_NUMBER = re.compile(r"\b(" + "|".join(NUMBER_WORDS[2:13]) + r")\b", re.I)
"""Spelled numbers changed (two to twelve: ``one`` is too often a pronoun)."""
CYCLES: tuple[tuple[str, ...], ...] = (
    ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    ("January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December"),
    ("EUR", "USD", "GBP", "CHF"),
    ("EU", "US", "UK", "Canada", "Australia", "Japan", "China", "India", "Germany", "France"),
)
"""Names swapped for the next one of their kind."""


def _edit(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` applied (non-overlapping)."""
    out, cursor = [], 0
    for start, end, new in sorted(spans):
        out.append(text[cursor:start])
        out.append(new)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _request(case: LoadedCase) -> str:
    return f"{case.case.system_prompt or ''}\n{case.case.instruction or ''}"


# -- numbers ---------------------------------------------------------------------------------
def changed_number(value: float, decimals: int, percent: bool = False, *,
                   year: bool = False) -> float:
    """A clearly different, plausible value: +2 below 4, half as much again from 4 (rounded
    half up to the same decimals), half of a percentage that would pass 100; a year three
    less; an identifier (a whole number from 1,000 that is not a multiple of 100: an order
    number) with its last digit one more (9: one less)."""
    if year:
        return value - 3
    if decimals == 0 and value >= 1000 and value % 100:
        return value + (1 if value % 10 != 9 else -1)
    scale = 10 ** decimals
    new = value + 2 if value < 4 and decimals == 0 else \
        math.floor(value * 1.5 * scale + 0.5) / scale
    if percent and new > 100:
        new = math.floor(value / 2 * scale + 0.5) / scale
    if new == value:
        new = value + 1 / scale
    return new


def _format_like(original: str, value: float, decimals: int) -> str:
    text = f"{value:,.{decimals}f}" if "," in original else f"{value:.{decimals}f}"
    return text


def altered_numbers(reference: str) -> Altered:
    spans: list[tuple[int, int, str]] = []
    for m in numbers(reference):
        whole, fraction = m.group(1), m.group(2) or ""
        value = float(whole.replace(",", "") + (f".{fraction}" if fraction else ""))
        after = reference[m.end():m.end() + 3].lstrip()
        year = not fraction and "," not in whole and 1900 <= value <= 2099 \
            and not after[:1].isalpha()
        new = changed_number(value, len(fraction), after.startswith("%"), year=year)
        spans.append((m.start(), m.end(), _format_like(whole, new, len(fraction))))
    for m in _WORD_NUMBER.finditer(reference):
        value = NUMBER_WORDS.index(m.group(1).lower())
        new = int(changed_number(value, 0))
        word = NUMBER_WORDS[new] if new < len(NUMBER_WORDS) else str(new)
        spans.append((m.start(), m.end(), word.capitalize() if m.group(1)[0].isupper()
                      else word))
    if not spans:
        return Skipped("numbers", "the reference holds no number")
    text = _edit(reference, spans)
    shown = ", ".join(f"{reference[s:e]} → {new}" for s, e, new in sorted(spans)[:6])
    more = f" (and {len(spans) - 6} more)" if len(spans) > 6 else ""
    return Built("numbers", text, f"numbers changed: {shown}{more}")


# -- entity ----------------------------------------------------------------------------------
def _replace_name(reference: str, old: str, new: str) -> list[tuple[int, int, str]]:
    spans = []
    for n in names(reference):
        key, plural = name_key(n.text)
        if key == old:
            spans.append((n.start, n.end, new + plural))
    return spans


def _cycled(reference: str) -> tuple[str, str] | None:
    present = [n.text for n in names(reference)]
    for cycle in CYCLES:
        for name in present:
            if name in cycle:
                i = cycle.index(name)
                for step in range(1, len(cycle)):
                    candidate = cycle[(i + step) % len(cycle)]
                    if candidate not in present:
                        return name, candidate
    return None


def _code(name: str) -> str:
    """A code with its last digit one more (9: one less): ``IP67`` → ``IP68``."""
    digits = [i for i, ch in enumerate(name) if ch.isdigit()]
    i = digits[-1]
    d = int(name[i])
    return name[:i] + str(d + 1 if d < 9 else d - 1) + name[i + 1:]


def altered_entity(reference: str, others: Sequence[str] = (), seed: str = "") -> Altered:
    """``others``: the other references of the suite (names to borrow when this one has a
    single name); ``seed``: the case's id (which borrowed name)."""
    if not english(reference):
        return Skipped("entity", "the reference is not in English: its names cannot be told "
                       "from its nouns")
    found = names(reference)
    counts = name_counts(found)
    order = {name_key(n.text)[0]: i for i, n in reversed(list(enumerate(found)))}
    ranked = sorted(counts, key=lambda k: (-counts[k], order[k]))
    cycled = _cycled(reference)
    if cycled is not None:
        old, new = cycled
        return Built("entity", _edit(reference, _replace_name(reference, old, new)),
                     f"name swapped: {old} → {new}")
    for coded in (False, True):  # two names of the same shape: exchanged
        same = [k for k in ranked if any(ch.isdigit() for ch in k) == coded]
        if len(same) >= 2:
            a, b = same[0], same[1]
            spans = _replace_name(reference, a, b) + _replace_name(reference, b, a)
            return Built("entity", _edit(reference, spans), f"names exchanged: {a} ↔ {b}")
    codes = [k for k in ranked if any(ch.isdigit() for ch in k)]
    if codes:
        old = codes[0]
        return Built("entity", _edit(reference, _replace_name(reference, old, _code(old))),
                     f"code changed: {old} → {_code(old)}")
    if ranked:
        own = ranked[0]
        pool = sorted({k for other in others for n in names(other)
                       if len(k := name_key(n.text)[0]) >= 2 and not any(c.isdigit() for c in k)}
                      - {own} - set(words(reference)))
        pool = [p for p in pool if p.isupper() == own.isupper()] or pool
        if pool:
            pick = int(hashlib.blake2b(seed.encode(), digest_size=4).hexdigest(), 16)
            new = pool[pick % len(pool)]
            return Built("entity", _edit(reference, _replace_name(reference, own, new)),
                         f"name replaced: {own} → {new} (from another case)")
        return Skipped("entity", "the reference has one name and no other case has another")
    return Skipped("entity", "the reference names nothing (no capitalised name found)")


# -- importance ------------------------------------------------------------------------------
def ranked_sentences(reference: str, request: str) -> list[Sentence]:
    """The reference's sentences, the most important first: the most content words,
    numbers and names shared with the request; the earlier on a tie."""
    asked = content_words(request)
    asked_facts = {m.group(0) for m in numbers(request)} | \
        {name_key(n.text)[0] for n in names(request)}

    def weight(s: Sentence) -> int:
        piece = reference[s.start:s.end]
        facts = {m.group(0) for m in numbers(piece)} | \
            {name_key(n.text)[0] for n in names(piece)}
        return len(content_words(piece) & asked) + 2 * len(facts & asked_facts)

    found = sentences(reference)
    return sorted(found, key=lambda s: (-weight(s), s.start))


# -- negation --------------------------------------------------------------------------------
_UNDO = (
    (r"\bcannot\b", "can"), (r"\bcan't\b", "can"), (r"\bwon't\b", "will"),
    (r"\bdon't\b", "do"), (r"\bdoesn't\b", "does"), (r"\bdidn't\b", "did"),
    (r"\bisn't\b", "is"), (r"\baren't\b", "are"), (r"\bwasn't\b", "was"),
    (r"\bshouldn't\b", "should"), (r"\bmustn't\b", "must"), (r"\bunable\b", "able"),
    (r"\bnever\b", "always"), (r"\bno longer\b", "still"), (r"\bnot\s+", ""),
)
"""A negation removed: the first of these in the sentence."""
_AUX = re.compile(r"\b(is|are|was|were|can|will|would|should|could|must|may|might|does|do|"
                  r"did|has|have|had)\b", re.I)
_PARTICIPLE = re.compile(r"^\s+(\w+(?:ed|en)|been|made|had|got|kept|left|sent|done|gone|"
                         r"brought|bought|found|paid|built|told|taken)\b")
VERBS = frozenset({
    "accept", "advise", "allow", "apply", "buy", "consider", "give", "know", "recommend",
    "suggest", "want", "arrive", "blend", "boil", "break", "charge", "check", "choose",
    "connect", "consume", "contain", "cost", "cover", "crack", "damage", "deceive", "deliver",
    "destroy", "enjoy", "ensure", "fit", "help", "hold", "improve", "include", "keep", "last",
    "lead", "leave", "let", "light", "lose", "lower", "make", "mean", "mislead", "move",
    "need", "offer", "protect", "provide", "raise", "reach", "reduce", "refund", "regulate",
    "rely", "remain", "replace", "require", "resist", "return", "run", "save", "send", "ship",
    "show", "spin", "stay", "store", "suit", "support", "survive", "switch", "take", "travel",
    "use", "wear", "wick", "work",
})
"""Verbs a sentence without an auxiliary is negated on (``keeps`` → ``does not keep``)."""
_IRREGULAR = {"made": "make", "took": "take", "left": "leave", "broke": "break",
              "kept": "keep", "led": "lead", "lost": "lose", "meant": "mean", "ran": "run",
              "sent": "send", "held": "hold", "wore": "wear", "let": "let", "chose": "choose"}


def _base(word: str) -> tuple[str, str] | None:
    """(the verb's base form, the auxiliary that negates it) of a verb of :data:`VERBS`."""
    w = word.lower()
    if w in VERBS:
        return w, "do"
    if w in _IRREGULAR:
        return _IRREGULAR[w], "did"
    for suffix, repl, aux in (("ies", "y", "does"), ("es", "", "does"), ("s", "", "does"),
                              ("ied", "y", "did"), ("ed", "", "did"), ("ed", "e", "did"),
                              ("d", "", "did")):
        if w.endswith(suffix) and w[:-len(suffix)] + repl in VERBS:
            return w[:-len(suffix)] + repl, aux
    return None


def _negate(piece: str) -> tuple[str, str] | None:
    """``piece`` (a sentence) with its first negation removed or its first verb negated."""
    for pattern, repl in _UNDO:
        m = re.search(pattern, piece, re.I)
        if m:
            return piece[:m.start()] + repl + piece[m.end():], \
                f'negation removed: "{m.group(0).strip()}"'
    m = _AUX.search(piece)
    if m:
        word = m.group(1)
        after = piece[m.end():]
        if word.lower() in ("has", "have") and not _PARTICIPLE.match(after):
            do = "does" if word.lower() == "has" else "do"
            new = f"{do} not have" if word.islower() else f"{do.capitalize()} not have"
        elif word.lower() == "can":
            new = word + "not"
        else:
            new = f"{word} not"
        return piece[:m.start()] + new + after, f'"{word}" → "{new}"'
    for w in re.finditer(r"[A-Za-z]+", piece):
        if w.group(0).lower() in STOPWORDS:
            continue
        base = _base(w.group(0))
        if base is None or (w.start() == 0 and base[1] != "do"):
            continue
        verb, aux = base
        new = f"{aux} not {verb}" if w.start() > 0 else f"Do not {verb}"  # an imperative
        return piece[:w.start()] + new + piece[w.end():], f'"{w.group(0)}" → "{new}"'
    return None


def altered_negation(reference: str, request: str) -> Altered:
    lead = re.match(r"\s*(Yes|No)\b", reference)
    if lead is not None:
        flipped = "No" if lead.group(1) == "Yes" else "Yes"
        text = reference[:lead.start(1)] + flipped + reference[lead.end(1):]
        return Built("negated", text, f"answer flipped: {lead.group(1)} → {flipped}")
    for s in ranked_sentences(reference, request):
        done = _negate(reference[s.start:s.end])
        if done is not None:
            text = reference[:s.start] + done[0] + reference[s.end:]
            if not _same(text, reference):
                return Built("negated", text, f"key claim negated: {done[1]}")
    return Skipped("negated", "no sentence has a verb or negation the rules can turn")


# -- dropped ---------------------------------------------------------------------------------
def altered_drop(reference: str, request: str) -> Altered:
    found = sentences(reference)
    if len(found) < 2:
        return Skipped("dropped", "the reference is a single sentence")
    top = ranked_sentences(reference, request)[0]
    if top.alone:
        start, end = top.item_start, top.item_end
    else:
        start, end = top.start, top.end
        while end < len(reference) and reference[end] in " \t":
            end += 1
    text = reference[:start] + reference[end:]
    if not text.strip():
        return Skipped("dropped", "nothing would be left")
    said = _short(reference[top.start:top.end])
    return Built("dropped", text, f'most important sentence dropped: "{said}"')


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def fact_altered(case: LoadedCase, reference: str, others: Sequence[str] = ()
                 ) -> list[Altered]:
    """The four fact alterations of ``case``'s reference, in :data:`FACT_KINDS` order
    (``others``: the other references of its suite, for a borrowed name)."""
    request = _request(case)
    builders: tuple[Callable[[], Altered], ...] = (
        lambda: altered_numbers(reference),
        lambda: altered_entity(reference, others, case.name),
        lambda: altered_negation(reference, request),
        lambda: altered_drop(reference, request),
    )
    out: list[Altered] = []
    for build in builders:
        got = build()
        if isinstance(got, Built) and _same(got.text, reference):
            got = Skipped(got.kind, "the alteration left the text unchanged")
        out.append(got)
    return out
