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
    mean_score: float | None
    cost: float | None
    duration_s: float | None


def case_row(r: Sequence[Any]) -> CaseRow:
    log = tuple(str(x) for x in orjson.loads(r[16])) if r[16] else ()
    return CaseRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], bool(r[8]), r[9], r[10],
                   r[11], r[12], r[13], r[14], r[15], log)
