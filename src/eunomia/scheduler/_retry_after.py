"""Parsing of the ``Retry-After`` header (RFC 9110 §10.2.3)."""

from __future__ import annotations

import math
import time
from email.utils import parsedate_to_datetime


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait, from delay-seconds (``"3"``) or an HTTP-date; ``None`` if absent or bad."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        # NaN and infinity ("inf", "1e400") are not delay-seconds (RFC 9110: 1*DIGIT).
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
