"""How a run schedules its calls: settings that change how fast it goes, never its answers."""

from __future__ import annotations

from dataclasses import dataclass, field

from eunomia import defaults
from eunomia.scheduler._retry import RetryPolicy


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Operational settings: never part of a cache key."""

    concurrency: int = defaults.CONCURRENCY
    policy: RetryPolicy = field(default_factory=RetryPolicy)
