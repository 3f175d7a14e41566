"""The controlled answers a judge check scores, built from each case's reference answer (and
the other case's reference that ``baseline:reference`` answers with, :mod:`._baselines`).

``good``       the case's own expected response (a judge must score it high)
``other``      another case's expected response: fluent, on the suite's subject, wrong here
``truncated``  the expected response cut to its first third (at a word boundary)
``refusal``    "I cannot help with that."
``padded``     the expected response followed by fluent irrelevant text (verbosity bias)

and the answers that look right and are wrong (issue 28; :mod:`eunomia.tasks`, each one
documented in docs/judge-check.md), built when the case allows:

``content_free``  fluent, on the task's tone, says nothing checkable (the judge's floor)
``numbers`` ``entity`` ``negated`` ``dropped``  the reference with its facts altered
``form``      the reference in a form the case did not ask for

``other``, ``truncated`` and ``refusal`` are the bad answers; a judge that can judge scores
``good`` above them. ``padded`` is neither: a judge that scores it above ``good`` rewards
length. A case is checkable when it has an expected response and is single-turn (a
conversation's turns are judged against their evaluation points, not the reference).
The other case of a case is the previous checkable case of its suite (the first case takes
the second's): fixed by the suite alone, whatever cases are selected, so its answers (and
their cache keys) are the same from run to run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Literal

from eunomia.kinds import Selection
from eunomia.tasks import (
    Built,
    Entry,
    TaskSuite,
    altered_answers,
    content_free,
    iter_entries,
    loaded_case,
)

Control = Literal["good", "other", "truncated", "refusal", "padded", "content_free", "numbers",
                  "entity", "negated", "dropped", "form"]
EASY_CONTROLS: tuple[Control, ...] = ("good", "other", "truncated", "refusal", "padded")
FLOOR_CONTROLS: tuple[Control, ...] = ("content_free", "numbers", "entity", "negated",
                                       "dropped", "form")
"""The answers that look right and are wrong."""
CONTROLS: tuple[Control, ...] = (*EASY_CONTROLS, *FLOOR_CONTROLS)
BAD_CONTROLS: tuple[Control, ...] = ("other", "truncated", "refusal")
SEPARATOR = "#"
"""Between a case's name and its control in a stored row (``sum-01#truncated``)."""

REFUSAL = "I cannot help with that."
PADDING: tuple[str, ...] = (
    "On a different note, the history of tea is a fascinating subject in its own right. Tea "
    "was first cultivated in China thousands of years ago, and over the centuries it spread "
    "along trade routes to Japan, India and eventually Europe, where it became part of daily "
    "life. Today there are countless varieties, from delicate white teas to robust black "
    "blends, each with its own traditions of preparation and serving.",
    "Many people also enjoy walking in the mountains during the autumn months, when the air "
    "is cool and the forests change colour. Well-marked trails lead past lakes and meadows, "
    "small huts offer soup and a place to rest, and on a clear day the view from the higher "
    "ridges reaches far across the valleys to the snow-covered peaks on the horizon.",
    "The craft of bookbinding has changed surprisingly little over the centuries. A binder "
    "folds the printed sheets into sections, sews them together along the spine, glues on a "
    "strip of cloth for strength and finally fits the cover, which may be made of leather, "
    "linen or heavy paper, often decorated with patterns pressed into its surface.",
    "Lighthouses once depended on keepers who lived beside them all year round, trimming the "
    "wicks, polishing the great lenses and winding the clockwork that turned the light. Most "
    "are automatic now, yet many still stand on their rocky headlands, and some have become "
    "museums where visitors can climb the spiral stairs to the lantern room.",
)
"""Fluent text about nothing any task is about, a paragraph at a time."""


def reference(raw: dict[str, object]) -> str | None:
    """The reference answer of a case (its mapping as written), or None when the case is
    not checkable (no expected response, or a conversation)."""
    if raw.get("conversation"):
        return None
    text = raw.get("expected_response")
    if not isinstance(text, str | int | float) or isinstance(text, bool):
        return None
    text = str(text).strip()
    return text or None


def truncated(text: str) -> str | None:
    """The first third of ``text``, cut at the last word boundary within it; None when no
    whole word fits (a one-word reference cannot be cut)."""
    third = len(text) // 3
    ends = [i for i, ch in enumerate(text[: third + 1]) if ch.isspace()]
    cut = text[: ends[-1]].rstrip() if ends else ""
    return cut if cut and cut != text else None


def padded(text: str) -> str:
    """``text``, then paragraphs of :data:`PADDING` until they are at least as long."""
    words = len(text.split())
    extra: list[str] = []
    while not extra or sum(len(p.split()) for p in extra) < words:
        extra.append(PADDING[len(extra) % len(PADDING)])
    return "\n\n".join([text, *extra])


def answers(own: str, other: str | None, entry: Entry | None = None,
            others: Sequence[str] = ()) -> dict[Control, str]:
    """The controlled answers of a case with reference ``own`` (``other``: another case's),
    each control that can be built from them; with the case's ``entry``, the answers that
    look right and are wrong too (``others``: the suite's other references, names to
    borrow)."""
    out: dict[Control, str] = {"good": own}
    if other is not None and other.strip() != own:
        out["other"] = other
    cut = truncated(own)
    if cut is not None:
        out["truncated"] = cut
    out["refusal"] = REFUSAL
    out["padded"] = padded(own)
    if entry is not None:
        case = loaded_case(entry)
        out["content_free"] = content_free(case, own).text
        for got in altered_answers(case, own, others):
            if isinstance(got, Built):
                out[got.kind] = got.text
    return out


def row_name(case: str, control: Control) -> str:
    return f"{case}{SEPARATOR}{control}"


def split_row_name(name: str) -> tuple[str, str]:
    """(case, control) of a stored row's name."""
    case, _, control = name.rpartition(SEPARATOR)
    return case, control


def _first_two(suite: TaskSuite) -> tuple[str | None, str | None]:
    """The first two references of the suite (read until they are found)."""
    found: list[str] = []
    for entry in iter_entries(suite):
        own = reference(json.loads(entry[4]))
        if own is not None:
            found.append(own)
            if len(found) == 2:
                break
    return (found[0] if found else None), (found[1] if len(found) > 1 else None)


def with_others(suite: TaskSuite) -> Iterator[tuple[Entry, bool, str | None, str | None]]:
    """Every case of ``suite`` in file order: its entry, whether it is a conversation, its
    reference (None: not checkable) and the other case's: the previous reference of the
    suite (a case before the first reference takes the first; the first takes the second's;
    None when the suite has no other)."""
    first, second = _first_two(suite)
    previous: str | None = None  # the last reference before this case
    for entry in iter_entries(suite):
        raw = json.loads(entry[4])
        own = reference(raw)
        if previous is not None:
            other: str | None = previous
        elif own is None:
            other = first
        else:  # the first case with a reference takes the second's
            other = second
        yield entry, bool(raw.get("conversation")), own, other
        if own is not None:
            previous = own


def checkable(suite: TaskSuite) -> Iterator[tuple[Entry, str, str | None]]:
    """Every checkable case of ``suite`` in file order: its entry, its reference and the
    other case's reference (None when the suite has a single checkable case)."""
    for entry, _conversation, own, other in with_others(suite):
        if own is not None:
            yield entry, own, other


def _chosen(suite: TaskSuite, selection: Selection
            ) -> Iterator[tuple[Entry, str | None, str | None]]:
    """The cases of ``suite`` that ``selection`` takes, as ``eval`` takes them (``--case``,
    then the first ``--max-cases`` of them), with their reference and the other case's."""
    taken = 0
    for entry, _conversation, own, other in with_others(suite):
        if selection.max_cases is not None and taken >= selection.max_cases:
            return
        if selection.matches(suite.name, entry[0], entry[1]):
            taken += 1
            yield entry, own, other


def selected(suite: TaskSuite, selection: Selection
             ) -> Iterator[tuple[Entry, dict[Control, str]]]:
    """The checkable cases among those ``eval`` would select in ``suite`` (``--case``,
    ``--max-cases``), with their answers. The suite's references are read once first (the
    names an ``entity`` answer may borrow)."""
    refs: list[str] | None = None
    for entry, own, other in _chosen(suite, selection):
        if own is not None:
            if refs is None:
                refs = [r for _, r, _ in checkable(suite)]
            yield entry, answers(own, other, entry, [r for r in refs if r != own])


def unchecked(suite: TaskSuite, selection: Selection) -> int:
    """Selected cases of ``suite`` that cannot be checked (no reference, a conversation)."""
    return sum(1 for _entry, own, _other in _chosen(suite, selection) if own is None)


def selected_count(suites: Sequence[TaskSuite], selection: Selection) -> int:
    """How many checkable cases ``selection`` takes from ``suites``."""
    return sum(1 for suite in suites for _ in selected(suite, selection))
