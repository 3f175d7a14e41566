"""Long texts cut in the files and pages made from a run, saying so.

A system, a model or a judge may answer megabytes within the response limit
(``--max-response-mb``). Its whole answer is kept once, in the run store (content-addressed,
compressed: equal answers share one copy); the result files and pages show each text cut at
:data:`eunomia.defaults.FEEDBACK_TEXT_MAX` characters, followed by a note giving its full
length. A text that fits is returned as it is (looking costs one ``len``).
"""

from __future__ import annotations

from eunomia import defaults


def cut_text(text: str, limit: int = defaults.FEEDBACK_TEXT_MAX) -> str:
    """``text`` when it fits in ``limit`` characters, else its start and a note saying so."""
    if len(text) <= limit:
        return text
    return (f"{text[:limit]}… [cut by Eunomia at {limit:,} of {len(text):,} characters; the "
            "whole answer is kept in the run store]")


def cut_optional(text: str | None, limit: int = defaults.FEEDBACK_TEXT_MAX) -> str | None:
    """:func:`cut_text` of a text that may be absent."""
    return None if text is None else cut_text(text, limit)
