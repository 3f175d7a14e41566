"""The SQLite schema of the run store."""

from __future__ import annotations

SCHEMA_VERSION = 3
"""2 added ``cases.attempt_log``, 3 small blobs stored as they are (after a zero byte, see
:func:`eunomia.store._blobs.compress`); an older store is upgraded when opened, and an older
Eunomia refuses a newer store."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    kind            TEXT NOT NULL,           -- scenarios | tasks
    status          TEXT NOT NULL,           -- running | complete | interrupted
    created         TEXT NOT NULL,
    finished        TEXT,
    targets         TEXT NOT NULL,           -- JSON list of target names
    settings        TEXT NOT NULL,           -- JSON: everything needed to resume
    eunomia_version TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS suites (
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    path       TEXT NOT NULL,
    definition TEXT NOT NULL,                -- blob hash of the suite snapshot
    prices     TEXT NOT NULL,                -- blob hash of the price table snapshot
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS cases (
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    suite         TEXT NOT NULL,
    target        TEXT NOT NULL,
    case_name     TEXT NOT NULL,
    repeat        INTEGER NOT NULL,
    status        TEXT NOT NULL,             -- scored | failed | invalid | unscored
    error         TEXT,
    attempts      INTEGER NOT NULL,
    latency_s     REAL,
    cached        INTEGER NOT NULL,
    score         REAL,                      -- the case's headline score (e.g. score %)
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost          REAL,                      -- NULL when unknown
    request       TEXT,                      -- blob hash of the request
    response      TEXT,                      -- blob hash of the normalised response
    finished      TEXT NOT NULL,
    seq           INTEGER NOT NULL,          -- order of completion within the run
    attempt_log   TEXT,                      -- JSON list of each attempt's outcome, when retried
    PRIMARY KEY (run_id, suite, target, case_name, repeat)
);
CREATE TABLE IF NOT EXISTS blobs (
    hash TEXT PRIMARY KEY,                   -- sha256 of the uncompressed bytes
    data BLOB NOT NULL                       -- zlib, or a zero byte then the bytes
);
CREATE TABLE IF NOT EXISTS cache (
    key       TEXT PRIMARY KEY,              -- sha256 over what changes the answer
    response  TEXT NOT NULL,                 -- blob hash
    latency_s REAL,
    created   TEXT NOT NULL
);
"""

UPGRADES: dict[int, str] = {
    1: "ALTER TABLE cases ADD COLUMN attempt_log TEXT",
    2: "SELECT 1",  # zlib blobs stay readable: nothing to convert
}
"""The statement that brings a store from version N to N + 1."""
