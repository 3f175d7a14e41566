"""Group commits of the run store (issue 6): what a run records is committed together, seen
by every read meanwhile, never lost on the way out, and a failed commit stops the run."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import zlib
from pathlib import Path

import pytest

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.store import CaseRow, RunInfo, RunStore, blob_hash, json_bytes
from eunomia.store._blobs import compress, decompress


def _row(name: str, *, request: str | None = None, response: str | None = None) -> CaseRow:
    return CaseRow("s", "t", name, 0, "scored", None, 1, 0.1, False, 50.0, 10, 5, None,
                   request, response, "2026-01-01T00:00:00.000+00:00")


def _count(path: Path) -> int:
    """Committed cases, seen from another connection (as another process would)."""
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT COUNT(*) FROM cases").fetchone()[0])
    finally:
        db.close()


def _store(tmp_path: Path) -> tuple[RunStore, RunInfo]:
    store = RunStore(tmp_path / "eunomia.db")
    return store, store.create_run("r", "scenarios", ["t"], {})


async def test_cases_recorded_together_are_committed_together(tmp_path: Path) -> None:
    store, run = _store(tmp_path)
    path = store.path
    try:
        with store.grouped():
            for i in range(5):
                store.record_case(run, _row(f"c{i}"))
            assert _count(path) == 0  # pending: one transaction for the five
            store.flush()
            assert _count(path) == 5
            store.record_case(run, _row("c5"))
            await asyncio.sleep(0)
            assert _count(path) == 5  # not at once: the group collects for a while
            await asyncio.sleep(defaults.STORE_GROUP_DELAY_S * 2)  # then commits on its own
            assert _count(path) == 6
            store.record_case(run, _row("c6"))
        assert _count(path) == 7  # leaving the group commits what is pending
        assert [r.case_name for r in store.iter_cases(run)] == [f"c{i}" for i in range(7)]
    finally:
        store.close()


async def test_pending_writes_are_seen_by_every_read(tmp_path: Path) -> None:
    store, run = _store(tmp_path)
    try:
        with store.grouped():
            answer = {"feedback": [1, 2], "latency_s": 0.5}
            digest = store.cache_put_json("key", answer, 0.5)
            request = b'{"case": 1}'
            req_hash = blob_hash(request)
            store.record_case(run, _row("c0", request=req_hash, response=digest),
                              blobs=[(req_hash, request)])
            # answered from memory, not committed yet
            assert _count(store.path) == 0
            assert store.cache_get("key") == (digest, 0.5)
            assert store.get_json(digest) == answer
            assert store.has_blob(req_hash)
            assert store.cached_answers(["key", "other"]) == {
                "key": (digest, 0.5, json_bytes(answer))}
            # a read of the cases commits them first
            assert store.finished_keys(run) == {("s", "t", "c0", 0)}
            assert _count(store.path) == 1
            assert store.cached_answers(["key"]) == {"key": (digest, 0.5, json_bytes(answer))}
    finally:
        store.close()


async def test_a_failed_group_commit_is_raised_by_the_next_call(tmp_path: Path) -> None:
    store, run = _store(tmp_path)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages + 2}")
    big = os.urandom(1_000_000)  # does not compress: cannot fit
    try:
        with store.grouped():
            store.record_case(run, _row("c0"), blobs=[(blob_hash(big), big)])
            # the loop commits: SQLITE_FULL, kept for the next call
            await asyncio.sleep(defaults.STORE_GROUP_DELAY_S * 2)
            with pytest.raises(EunomiaError, match="full"):
                store.record_case(run, _row("c1"))
        assert _count(store.path) == 0
    finally:
        store.close()


async def test_an_interrupted_commit_keeps_its_cases_for_the_next(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    store, run = _store(tmp_path)
    real = store._commit
    calls = 0

    def interrupted_once(batch: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise KeyboardInterrupt
        real(batch)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "_commit", interrupted_once)
    try:
        with pytest.raises(KeyboardInterrupt), store.grouped():
            store.record_case(run, _row("c0"))
            store.flush()
        store.flush()  # Ctrl-C during the commit: the cases are still pending, then stored
        assert _count(store.path) == 1
    finally:
        store.close()


def test_without_an_event_loop_every_write_is_committed_at_once(tmp_path: Path) -> None:
    store, run = _store(tmp_path)
    try:
        with store.grouped():
            store.record_case(run, _row("c0"))
            assert _count(store.path) == 1
    finally:
        store.close()


def test_small_blobs_are_stored_raw_and_large_ones_with_zlib() -> None:
    for data in (b"", b"x", b"\x00\x78", b'{"a": 1}' * 10, bytes(range(256)) * 100):
        stored = compress(data)
        assert decompress(stored) == data
        if len(data) < defaults.STORE_RAW_BLOB_BYTES:
            assert stored == b"\x00" + data
        else:
            assert zlib.decompress(stored) == data  # an older store's blobs read the same way
    assert decompress(zlib.compress(b'{"a": 1}')) == b'{"a": 1}'


def test_blobs_read_in_bulk_are_those_read_one_by_one(tmp_path: Path) -> None:
    """Stored ones and those still waiting for their commit; a query per few hundred; a
    missing one is an error naming the store."""
    store, _run = _store(tmp_path)
    datas = [json_bytes({"i": i, "pad": "x" * (i % 3) * 700}) for i in range(1200)]
    stored = [store.put_blob(d) for d in datas[:1100]]
    with store.grouped():
        waiting = [store.put_blob(d) for d in datas[1100:]]
        got = store.get_blobs([*reversed(stored), *waiting, stored[0]])
        assert got == {blob_hash(d): d for d in datas}
        assert all(got[h] == store.get_blob(h) for h in (stored[7], waiting[3]))
    with pytest.raises(EunomiaError, match=r"eunomia\.db is missing blob 000000000000"):
        store.get_blobs([stored[1], "0" * 64])
    assert store.get_blobs([]) == {}
    store.close()


async def test_a_rerun_reads_its_cached_answers_in_bulk(
    examples_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-run of an unchanged scenario: no request, and the cache is read a chunk of
    cases at a time (one query), not case by case."""
    from tests.store.test_store_runs import _expected_reply, _loaded, _run
    from tests.support.scripted_server import ScriptedServer

    loaded = _loaded(examples_copy)
    server = ScriptedServer(default=_expected_reply(loaded[0].scenario))
    lookups: list[int] = []
    real = RunStore.cached_answers

    def counted(self: RunStore, keys: list[str]) -> object:
        lookups.append(len(keys))
        return real(self, keys)

    def one_by_one(self: RunStore, key: str) -> None:
        raise AssertionError("a case looked up alone")

    monkeypatch.setattr(RunStore, "cached_answers", counted)
    monkeypatch.setattr(RunStore, "cache_get", one_by_one)
    async with server:
        await _run(loaded, server.url, tmp_path / "res", "first")
        lookups.clear()
        again = await _run(loaded, server.url, tmp_path / "res", "again", cache_systems=True)
    assert len(server.requests) == 14 and again.cache_hits == 14
    assert sum(lookups) == 14 and len(lookups) <= 2  # chunks of 8, then 16


def test_the_memory_of_stored_blobs_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eunomia import defaults

    monkeypatch.setattr(defaults, "STORE_KNOWN_BLOBS_MAX", 4)
    store = RunStore(tmp_path / "s.db")
    try:
        payloads = [f"blob number {i}".encode() for i in range(12)]
        for _ in range(2):  # the second round finds some hashes forgotten: stored once anyway
            digests = [store.put_blob(p) for p in payloads]
            assert len(store._known) <= 4
        assert digests == [blob_hash(p) for p in payloads]
        assert [store.get_blob(d) for d in digests] == payloads
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "s.db") as db:
        assert db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 12
