"""The rows the run store hands out (runs, suites, cases, totals) and its timestamps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson


def now() -> str:
    """The store's timestamp: UTC, ISO 8601, milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class RunInfo:
    id: int
    name: str
    kind: str
    status: str
    created: str
    finished: str | None
    targets: list[str]
    settings: dict[str, Any]
    eunomia_version: str
    holder: str = ""
    """For a run running in another process: which one (``process 12 on host, since ...``).
    ``status`` is ``interrupted`` for a run stored as running that no process runs any more
    (see :mod:`eunomia.store._lock`)."""


def status_hint(run: RunInfo, command: str | None = None) -> str:
    """What to know beside the run's status: for an interrupted run, how to continue it
    (```eunomia run --resume NAME`` continues it`; ``command``: the command of the run's kind,
    when known); for one another process runs now, which process; else nothing."""
    if run.status == "interrupted":
        how = f"eunomia {command} --resume {run.name}" if command else f"--resume {run.name}"
        return f"`{how}` continues it"
    if run.status == "running" and run.holder:
        return run.holder
    return ""


def status_text(run: RunInfo, command: str | None = None) -> str:
    """The run's status as people read it: ``complete``; ``running (process 12 on host, since
    ...)``; ``interrupted — `eunomia run --resume NAME` continues it``."""
    hint = status_hint(run, command)
    if not hint:
        return run.status
    return f"{run.status} — {hint}" if run.status == "interrupted" else f"{run.status} ({hint})"


@dataclass(frozen=True, slots=True)
class SuiteInfo:
    name: str
    path: str
    definition: str
    prices: str


@dataclass(frozen=True, slots=True)
class CaseRow:
    suite: str
    target: str
    case_name: str
    repeat: int
    status: str
    error: str | None
    attempts: int
    latency_s: float | None
    cached: bool
    score: float | None
    input_tokens: int
    output_tokens: int
    cost: float | None
    request: str | None
    response: str | None
    finished: str
    attempt_log: tuple[str, ...] = ()
    """Each attempt's outcome (``("HTTP 503", "ok")``) when the case took more than one
    attempt; empty otherwise."""


@dataclass(frozen=True, slots=True)
class RunTotals:
    cases: int
    failed: int
    """Cases (each repeat) whose status is ``failed``: no answer after the retries."""
    mean_score: float | None
    cost: float | None
    duration_s: float | None
    unscored: int = 0
    """Answered, and nothing could score them (no check and no judge, an unusable judge
    answer, a baseline that cannot answer): not failed."""
    invalid: int = 0
    """Cases whose file is unusable."""

    @property
    def scored(self) -> int:
        return self.cases - self.failed - self.unscored - self.invalid


def case_row(r: Sequence[Any]) -> CaseRow:
    log = tuple(str(x) for x in orjson.loads(r[16])) if r[16] else ()
    return CaseRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], bool(r[8]), r[9], r[10],
                   r[11], r[12], r[13], r[14], r[15], log)
