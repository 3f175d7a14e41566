"""The run store (SQLite): runs, cases, requests, responses, the response cache; which runs
are alive (a lock the running process holds beside the store)."""

from eunomia.store._blobs import PrefixedBytes, blob_hash, json_bytes
from eunomia.store._cache import Hit, ResponseCache, cache_key
from eunomia.store._rows import (
    CaseRow,
    RunInfo,
    RunTotals,
    SuiteInfo,
    now,
    status_hint,
    status_text,
)
from eunomia.store._store import RunStore

__all__ = [
    "CaseRow",
    "Hit",
    "PrefixedBytes",
    "ResponseCache",
    "RunInfo",
    "RunStore",
    "RunTotals",
    "SuiteInfo",
    "blob_hash",
    "cache_key",
    "json_bytes",
    "now",
    "status_hint",
    "status_text",
]
