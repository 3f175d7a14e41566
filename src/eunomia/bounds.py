"""The ranges numbers and URLs may take where they enter Eunomia (files and options).

Every number a file gives is finite and in its range (``1e999`` loads as infinity, which
no request can carry), and every URL is an http(s) URL with a host: checked by pydantic at
the file boundary, so the error names the file, the key path and the line.
"""

from __future__ import annotations

import json
import math
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, Field

from eunomia import defaults

Finite = Annotated[float, Field(allow_inf_nan=False)]
"""Any finite number."""
Points = Annotated[float, Field(allow_inf_nan=False, ge=0, le=defaults.MAX_POINTS)]
"""An exercise's maximum or bonus points."""
Credits = Annotated[float, Field(allow_inf_nan=False, ge=-defaults.MAX_POINTS,
                                 le=defaults.MAX_POINTS)]
"""What one grading instruction gives (negative: a deduction)."""
Price = Annotated[float, Field(allow_inf_nan=False, ge=0, le=defaults.MAX_PRICE_PER_MILLION)]
"""Currency units per million tokens."""
TokenCount = Annotated[int, Field(ge=0, le=defaults.MAX_TOKEN_COUNT)]
"""A number of tokens an answer reports: whole, at least 0 (pydantic refuses ``1.5``,
``Infinity`` and ``NaN`` for an int)."""
Timeout = Annotated[float, Field(allow_inf_nan=False, gt=0, le=defaults.MAX_TIMEOUT_S)]
"""Seconds a request may take."""
Concurrency = Annotated[int, Field(ge=1, le=defaults.MAX_CONCURRENCY)]
Repeats = Annotated[int, Field(ge=1, le=defaults.MAX_REPEATS)]
Words = Annotated[int, Field(ge=0, le=defaults.MAX_WORDS)]


def check_url(value: str) -> str:
    """``value`` when it is an http(s) URL with a host; ValueError saying what is wrong."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"invalid URL {value!r}: only absolute http:// or https:// URLs")
    try:
        parts.port  # noqa: B018 (raises for a port out of range or not a number)
    except ValueError:
        raise ValueError(f"the port of {value!r} is not a number from 0 to 65535") from None
    return value


def check_url_or_empty(value: str) -> str:
    return value if value == "" else check_url(value)


Url = Annotated[str, AfterValidator(check_url)]
"""An http(s) URL with a host."""
OptionalUrl = Annotated[str, AfterValidator(check_url_or_empty)]
"""An http(s) URL, or empty (not given)."""


NULL_ID = "is empty (null): an id is text with at least one character"
"""What is wrong with an id written without a value."""


def check_text_id(value: object) -> object:
    """An id as a file gives it: text with something in it. A number, a boolean or nothing
    (null) is refused, saying what YAML read and how to write the id as text (``.nan`` would
    otherwise become the id "nan", ``010`` the id "8", ``yes`` the id "True")."""
    if value is None:
        raise ValueError(NULL_ID)
    if isinstance(value, bool):
        raise ValueError(f"YAML reads this id as the boolean {str(value).lower()}, not as "
                         "text: write it in quotes (YAML turns yes, no, on and off into "
                         "booleans)")
    if isinstance(value, int | float):
        raise ValueError(f"YAML reads this id as the number {_shown(value)}, not as text: "
                         "write it in quotes as it should read (YAML turns 010 into 8 and "
                         ".nan into NaN)")
    if isinstance(value, str) and not value.strip():
        raise ValueError("is empty: an id is text with at least one character other than "
                         "spaces")
    return value


TextId = Annotated[str, BeforeValidator(check_text_id)]
"""An id of a file (a criterion, an instruction, a test case...): text, not empty."""


def finite_in(name: str, value: float, low: float, high: float) -> str | None:
    """Why an option's ``value`` is out of ``[low, high]`` (or not finite); None if fine."""
    if math.isnan(value) or math.isinf(value):
        return f"{name} must be a finite number, got {value}"
    if not low <= value <= high:
        return f"{name} must be between {low:g} and {high:g}, got {value:g}"
    return None


def token_count(value: object, where: str) -> int:
    """A number of tokens an answer reports (``where``: its field, for the message): a whole
    JSON number from 0 to :data:`eunomia.defaults.MAX_TOKEN_COUNT` (``3.0`` reads as 3); a
    ValueError naming ``where`` and the value for anything else (``NaN``, ``Infinity``, ``-5``,
    ``1.5``, ``"12"``, ``true``), never a plausible number made of it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where} is {_shown(value)}, not a number of tokens")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {_shown(value)}: an impossible number of tokens")
    if value < 0 or value != int(value) or value > defaults.MAX_TOKEN_COUNT:
        raise ValueError(f"{where} is {_shown(value)}: an impossible number of tokens (a whole "
                         f"number from 0 to {defaults.MAX_TOKEN_COUNT:,})")
    return int(value)


def _shown(value: object) -> str:
    """A value as JSON writes it (``NaN``, ``Infinity``: what the answer said), shortened."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
