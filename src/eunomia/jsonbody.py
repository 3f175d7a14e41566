"""Decoding JSON bodies fast without reading them differently from the ``json`` module.

orjson is several times faster than ``json``, but reads a few bodies differently: integers
beyond 64 bits become floats, and it refuses what ``json`` accepts (NaN, invalid UTF-8 after
a lenient decode). :func:`loads_fast` uses orjson only where it gives the same value and
otherwise calls the caller's own ``json``-based reading (which also makes its errors).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

_LONG_NUMBER = re.compile(rb"\d{19}")
"""orjson reads integers beyond 64 bits as floats; the json module keeps them exact."""

T = TypeVar("T")


def loads_fast(body: bytes, reference: Callable[[], T], *, utf8: bool = True) -> Any | T:
    """``body`` decoded by orjson when that reads it as ``reference()`` would, else
    ``reference()`` (the ``json``-module reading, e.g. of the text in the body's charset).
    ``utf8``: whether the body is declared UTF-8 (orjson reads UTF-8 only)."""
    if utf8 and not _LONG_NUMBER.search(body):
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
    return reference()
