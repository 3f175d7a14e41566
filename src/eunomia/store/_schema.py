"""The SQLite schema of the run store, and opening a store file at this schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from eunomia import defaults
from eunomia.errors import EunomiaError

SCHEMA_VERSION = 4
"""2 added ``cases.attempt_log``, 3 small blobs stored as they are (after a zero byte, see
:func:`eunomia.store._blobs.compress`), 4 blobs stored as a reference to the blob they begin
with and their own part (an Athena request: the exercise stored once); an older store is
upgraded when opened, and an older Eunomia refuses a newer store."""

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
    3: "SELECT 1",  # whole blobs stay readable: nothing to convert
}
"""The statement that brings a store from version N to N + 1."""


def store_error(path: Path, what: str, exc: BaseException) -> EunomiaError:
    """``what`` failed on the store at ``path``, said with what the user can do about it."""
    detail = str(exc)
    if "locked" in detail:
        detail += " (another process is writing to it; try again when it has finished)"
    elif "disk" in detail or "full" in detail:
        detail += " (free some disk space; everything stored so far is kept)"
    return EunomiaError(f"{what} {path}: {detail}")


def open_store(path: Path) -> sqlite3.Connection:
    """The store file at ``path`` (created if need be, upgraded from an older schema) in WAL
    mode; an error naming the file when it cannot be opened or is of a newer Eunomia."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=defaults.STORE_BUSY_TIMEOUT_S,
                             isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                   (str(SCHEMA_VERSION),))
    except (sqlite3.Error, OSError) as exc:
        raise store_error(path, "cannot open the run store", exc) from None
    version = int(db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise EunomiaError(f"run store {path} was written by a newer Eunomia "
                           f"(schema {version} > {SCHEMA_VERSION})")
    if version < SCHEMA_VERSION:
        _upgrade(db, path, version)
    return db


def _upgrade(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Bring a store written by an earlier Eunomia to this schema (in one transaction)."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:  # another process may have upgraded it meanwhile
            version = int(db.execute(
                "SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])
            for step in range(version, SCHEMA_VERSION):
                db.execute(UPGRADES[step])
            db.execute("UPDATE meta SET value=? WHERE key='schema_version'",
                       (str(SCHEMA_VERSION),))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise store_error(path, f"cannot upgrade (schema {version} to {SCHEMA_VERSION})",
                          exc) from None
