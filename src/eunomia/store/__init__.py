"""The run store (SQLite): runs, cases, requests, responses, the response cache."""

from eunomia.store._store import (
    CaseRow,
    RunInfo,
    RunStore,
    RunTotals,
    SuiteInfo,
    blob_hash,
    json_bytes,
    now,
)

__all__ = [
    "CaseRow",
    "RunInfo",
    "RunStore",
    "RunTotals",
    "SuiteInfo",
    "blob_hash",
    "json_bytes",
    "now",
]
