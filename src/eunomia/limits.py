"""The ranges an option of the command line (or of a matrix file) may take, checked where it
enters, before anything runs: every number finite, positive (or zero) and at most its limit;
a run name a folder name on every system. (A file's values are checked by pydantic at the
file boundary: ``eunomia.bounds``.) Light on purpose: every command imports it."""

from __future__ import annotations

import math
import re

from eunomia import defaults
from eunomia.errors import EunomiaError

LIMITS: dict[str, float] = {
    "--concurrency": defaults.MAX_CONCURRENCY, "--timeout": defaults.MAX_TIMEOUT_S,
    "--repeat": defaults.MAX_REPEATS, "--judge-repeats": defaults.MAX_REPEATS,
    "--retries": defaults.MAX_RETRIES,
    defaults.MAX_RESPONSE_OPTION: defaults.MAX_RESPONSE_MB_LIMIT,
}
"""The largest value of each numeric option (others: 1e9)."""

_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def check_run_name(name: str) -> None:
    """A run name is a folder name on every system: refuse anything else, saying why."""
    if not _RUN_NAME.match(name):
        raise EunomiaError(f"invalid run name {name!r}: use letters, digits, '.', '_' "
                           "and '-' (at most 100 characters)")


def check_positive(name: str, value: float | None, allow_zero: bool = False) -> None:
    """An option's number: finite, positive (or zero) and at most its :data:`LIMITS`."""
    most = LIMITS.get(name, 1e9)
    if value is None:
        return
    if math.isnan(value) or value < 0 or (value == 0 and not allow_zero):
        raise EunomiaError(f"{name} must be {'non-negative' if allow_zero else 'positive'}, "
                           f"got {value:g}")
    if math.isinf(value) or value > most:
        raise EunomiaError(f"{name} must be at most {most:g}, got {value:g}")
