"""Feedback items with their texts bounded, for the files and pages made from them.

A system that answers a feedback item with a description of 9 MB (within the response limit)
is scored as any other: only its instruction ids and credits count. Its whole answer is kept
once, in the run store (the response's ``raw``, stored content-addressed); the items that the
result files (``test_cases/<case>.json``) and the report show carry each text cut at
:data:`eunomia.defaults.FEEDBACK_TEXT_MAX` characters, saying so, and a ``meta`` over that size
replaced by a note. Nothing else is changed: an item that fits is returned as it is.
"""

from __future__ import annotations

from typing import Any

import orjson

from eunomia import defaults
from eunomia.athena._contract import AthenaFeedback
from eunomia.cut import cut_text

_TEXTS = ("title", "description", "reference")


def _size(value: Any) -> int:
    """The size of ``value`` as JSON, in bytes."""
    try:
        return len(orjson.dumps(value, default=str))
    except (TypeError, orjson.JSONEncodeError):
        return len(str(value))


def _bounded_value(value: Any, limit: int) -> Any:
    """A value a server added to an item (``meta``, an unknown field): a long text cut, any
    other value over ``limit`` bytes replaced by a note; else the value itself."""
    if isinstance(value, str):
        return cut_text(value, limit)
    if isinstance(value, int | float | bool) or value is None:
        return value
    size = _size(value)
    if size <= limit:
        return value
    return {"cut_by_eunomia": f"{size:,} bytes of JSON, over {limit:,}: the whole answer is "
                              "kept in the run store"}


def bounded_item(item: AthenaFeedback, limit: int = defaults.FEEDBACK_TEXT_MAX
                 ) -> AthenaFeedback:
    """``item`` with every text over ``limit`` characters cut and a ``meta`` over ``limit``
    bytes replaced by a note, the same for the fields a server added (the item itself when
    nothing is too long)."""
    changes: dict[str, Any] = {}
    for name in _TEXTS:
        value = getattr(item, name)
        if isinstance(value, str) and len(value) > limit:
            changes[name] = cut_text(value, limit)
    if item.meta and (meta := _bounded_value(item.meta, limit)) is not item.meta:
        changes["meta"] = meta
    for name, value in (item.model_extra or {}).items():
        if (bounded := _bounded_value(value, limit)) is not value:
            changes[name] = bounded
    long_ids = [i for i in item.element_ids if len(i) > limit]
    if long_ids:
        changes["element_ids"] = [cut_text(i, limit) for i in item.element_ids]
    return item.model_copy(update=changes) if changes else item


def bounded_feedback(items: list[AthenaFeedback], answer_bytes: int | None = None,
                     limit: int = defaults.FEEDBACK_TEXT_MAX) -> list[AthenaFeedback]:
    """:func:`bounded_item` of every item; ``items`` themselves when the answer they came in
    (``answer_bytes`` long) is too short to hold anything over ``limit`` (the usual answer:
    nothing is looked at)."""
    if answer_bytes is not None and answer_bytes <= limit:
        return items
    return [bounded_item(i, limit) for i in items]
