"""A run store written by an earlier Eunomia (schema 1, no attempt log) is upgraded when opened:
its runs read as before, new cases keep their attempt log, and a newer store is refused."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.store import CaseRow, RunStore, blob_hash
from eunomia.store._schema import SCHEMA_VERSION


def _row(name: str, log: tuple[str, ...] = ()) -> CaseRow:
    return CaseRow("s", "t", name, 0, "scored", None, max(1, len(log)), 0.1, False, 50.0, 10,
                   5, None, None, None, "2026-01-01T00:00:00.000+00:00", log)


def _as_version_1(path: Path) -> None:
    """Make ``path`` what Eunomia wrote before the attempt log existed."""
    db = sqlite3.connect(path)
    try:
        db.execute("ALTER TABLE cases DROP COLUMN attempt_log")
        db.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
        db.commit()
    finally:
        db.close()


def _version(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return str(db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])
    finally:
        db.close()


def test_an_old_store_is_upgraded_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "eunomia.db"
    store = RunStore(path)
    store.record_case(store.create_run("old", "scenarios", ["t"], {}), _row("before"))
    store.close()
    _as_version_1(path)
    assert _version(path) == "1"

    store = RunStore(path)
    try:
        assert _version(path) == str(SCHEMA_VERSION)
        old = store.require_run("old")
        assert [(r.case_name, r.attempt_log) for r in store.iter_cases(old)] == [("before", ())]
        run = store.create_run("new", "scenarios", ["t"], {})
        store.record_case(run, _row("retried", ("HTTP 503", "connection reset", "ok")))
        store.record_case(run, _row("at once", ("ok",)))
        got = {r.case_name: r.attempt_log for r in store.iter_cases(run)}
    finally:
        store.close()
    # one attempt says nothing the count does not: not stored
    assert got == {"retried": ("HTTP 503", "connection reset", "ok"), "at once": ()}
    RunStore(path).close()  # opening an upgraded store again changes nothing
    assert _version(path) == str(SCHEMA_VERSION)


def test_a_version_2_store_keeps_its_zlib_blobs_readable(tmp_path: Path) -> None:
    """Before version 3 every blob was zlib, also the small ones now stored raw."""
    path = tmp_path / "eunomia.db"
    RunStore(path).close()
    small, large = b'{"answer": 42}', b'{"text": "' + b"ab " * 2000 + b'"}'
    db = sqlite3.connect(path)
    try:
        for data in (small, large):
            db.execute("INSERT INTO blobs(hash, data) VALUES (?, ?)",
                       (blob_hash(data), zlib.compress(data)))
        db.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
        db.commit()
    finally:
        db.close()
    store = RunStore(path)
    try:
        assert _version(path) == str(SCHEMA_VERSION) == "4"
        assert store.get_blob(blob_hash(small)) == small
        assert store.get_blob(blob_hash(large)) == large
        assert store.get_blob(store.put_blob(b"new")) == b"new"
    finally:
        store.close()


def test_a_store_of_a_newer_eunomia_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "eunomia.db"
    RunStore(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    db.commit()
    db.close()
    with pytest.raises(EunomiaError, match="newer Eunomia"):
        RunStore(path)

