"""Model names as price tables know them: provider prefixes and dated snapshot names.

Providers answer with dated snapshot names (``gpt-4o-mini-2024-07-18``,
``claude-sonnet-4-20250514``) while price lists name the model (``gpt-4o-mini``). A dated
name that is not priced itself is priced as its undated entry, and the cost line says so.
"""

from __future__ import annotations

import re

_DATED = re.compile(
    r"^(?P<base>.+?)[-@](?:"
    r"(?P<y1>20\d\d)-(?P<m1>\d\d)-(?P<d1>\d\d)"  # OpenAI: gpt-4o-2024-11-20
    r"|(?P<y2>20\d\d)(?P<m2>\d\d)(?P<d2>\d\d)"  # Anthropic: claude-3-5-haiku-20241022
    r"|(?P<m3>\d\d)(?P<d3>\d\d)"  # OpenAI's older snapshots: gpt-4-0613, gpt-3.5-turbo-0125
    r")$"
)


def provider_less(model: str) -> list[str]:
    """The name, then without a ``provider:`` or ``org/`` prefix."""
    names = [model]
    for sep in (":", "/"):
        if sep in model:
            names.append(model.split(sep, 1)[1])
    return names


def undated(model: str) -> str | None:
    """The model's name without its snapshot date, or None when it carries no date."""
    found = _DATED.match(model)
    if found is None:
        return None
    month = found["m1"] or found["m2"] or found["m3"]
    day = found["d1"] or found["d2"] or found["d3"]
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None  # a version number such as -2507 or -0000, not a date
    return found["base"]
