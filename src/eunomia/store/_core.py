"""The run store's machinery: one SQLite connection, its grouped commits and the blobs.

Each finished case is committed with its blobs and cache entry in one transaction, so a
crash or Ctrl-C loses at most the cases in flight. During a run (:meth:`StoreCore.grouped`)
the cases recorded together (those that finished while the run was busy) share that
transaction, committed as soon as the run is about to wait for its next answers. Requests
and responses are stored once each, content-addressed and compressed (``blobs``), so
repeats, re-runs and the response cache share them. What the rows mean (runs, suites,
cases, the response cache) is :class:`eunomia.store.RunStore`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.store._blobs import blob_hash, compress, decompress, json_bytes, shared_beginning
from eunomia.store._schema import open_store, store_error

_CASE_SQL = (
    "INSERT OR REPLACE INTO cases(run_id, suite, target, case_name, repeat, status,"
    " error, attempts, latency_s, cached, score, input_tokens, output_tokens, cost,"
    " request, response, finished, seq, attempt_log)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
CACHE_SQL = "INSERT OR REPLACE INTO cache(key, response, latency_s, created) VALUES (?, ?, ?, ?)"
_BLOB_SQL = "INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)"
_IN_CHUNK = 500
"""Hashes per ``IN (...)`` query (below SQLite's variable limit)."""
_BEGINNINGS_KEPT = 8
"""Blobs that others begin with kept in memory once read (see
:meth:`StoreCore._beginning`)."""


@dataclass(slots=True, eq=False)
class Batch:
    """Writes that are committed together."""

    blobs: dict[str, bytes] = field(default_factory=dict)
    """Blobs (uncompressed), by hash."""
    cache: dict[str, tuple[str, float | None, str]] = field(default_factory=dict)
    """Cache entries: key -> (response blob, latency, created)."""
    cases: list[tuple[Any, ...]] = field(default_factory=list)
    """Case rows (parameters of ``_CASE_SQL``)."""

    def __bool__(self) -> bool:
        return bool(self.cases or self.cache or self.blobs)


class StoreCore:
    """Synchronous on purpose: a commit costs tens of microseconds.

    Outside :meth:`grouped`, every write is committed at once. Inside it (a run), finished
    cases, blobs and cache entries are collected and committed together (:meth:`flush`);
    everything that reads the store sees them (pending cache entries and blobs are
    answered from memory, other reads commit them first).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = open_store(path)
        self._known: set[str] = set()
        """Blob hashes this process has stored: not compressed and inserted again."""
        self._beginnings: dict[str, bytes] = {}
        """The blobs others begin with, read last (:meth:`_beginning`)."""
        self._grouped = 0
        self._pending = Batch()
        """Writes collected for the next group commit."""
        self._flush_handle: asyncio.TimerHandle | None = None
        self._failure: EunomiaError | None = None
        """A group commit that failed after its cases were handed over: raised by the next
        call, so the run stops clearly (those cases are not stored; resume asks again)."""

    def _error(self, what: str, exc: BaseException) -> EunomiaError:
        return store_error(self.path, what, exc)

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._db.close()

    def _write(self, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
        self.flush()
        try:
            return self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise self._error("cannot write to the run store", exc) from None

    # --- grouped commits ----------------------------------------------------------------------
    @contextlib.contextmanager
    def grouped(self) -> Iterator[None]:
        """Within it, writes made on a running event loop are collected and committed together:
        :data:`eunomia.defaults.STORE_GROUP_DELAY_S` after the first of them, when
        :data:`eunomia.defaults.STORE_GROUP_MAX_CASES` cases are pending, when :meth:`flush`
        is called, and before anything else reads or writes the store. What is pending is
        committed on the way out, also after an error or Ctrl-C. Without a running loop,
        writes are committed at once."""
        self._grouped += 1
        try:
            yield
        finally:
            self._grouped -= 1
            if not self._grouped:
                self.flush()

    def _deferred(self) -> bool:
        """True when this write may wait for the group's commit (scheduling that commit)."""
        if not self._grouped:
            return False
        if self._failure is not None or \
                len(self._pending.cases) >= defaults.STORE_GROUP_MAX_CASES:
            self.flush()  # (raises a failed group commit)
        if self._flush_handle is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return False
            self._flush_handle = loop.call_later(defaults.STORE_GROUP_DELAY_S,
                                                 self._commit_on_loop)
        return True

    def _commit_on_loop(self) -> None:
        self._flush_handle = None
        try:
            self.flush()
        except EunomiaError as exc:  # raised by the next call instead
            self._failure = self._failure or exc

    def flush(self) -> None:
        """Commit what is pending, in one transaction. The failure of a group commit made on
        the loop's own schedule (see :meth:`grouped`) is raised here, once."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        if self._pending:
            batch, self._pending = self._pending, Batch()
            try:
                self._commit(batch)
            except EunomiaError:
                raise  # not stored (rolled back): resume asks for these cases again
            except BaseException:
                self._pending = batch  # interrupted (Ctrl-C): the next flush stores it
                raise

    def _commit(self, batch: Batch) -> None:
        """Write ``batch`` in one transaction."""
        db = self._db
        for data in list(batch.blobs.values()):
            if (begins := shared_beginning(data)) is not None:  # stored once, referred to
                batch.blobs.setdefault(*begins)
        try:
            # IMMEDIATE: the write lock first, waiting for other processes' commits as long as
            # the busy timeout allows; a deferred transaction that reads first and then writes
            # fails at once ("database is locked") when another process committed meanwhile
            db.execute("BEGIN IMMEDIATE")
            fresh = self._absent(batch.blobs)
            if fresh:
                db.executemany(_BLOB_SQL, ((d, compress(batch.blobs[d])) for d in fresh))
            if batch.cache:
                db.executemany(CACHE_SQL, ((k, *v) for k, v in batch.cache.items()))
            if batch.cases:
                db.executemany(_CASE_SQL, batch.cases)
            db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._error("cannot write to the run store", exc) from None
            raise
        self._remember(batch.blobs)

    def _remember(self, digests: Iterable[str]) -> None:
        """Note stored blobs; forgetting is safe (a blob stored twice is ignored by SQLite)."""
        if len(self._known) >= defaults.STORE_KNOWN_BLOBS_MAX:
            self._known.clear()
        self._known.update(digests)

    def _absent(self, blobs: Iterable[str]) -> list[str]:
        """The hashes among ``blobs`` not stored yet (so only those are compressed)."""
        todo = [d for d in blobs if d not in self._known]
        if not todo:
            return todo
        stored = {r[0] for r in self._where_in("SELECT hash FROM blobs WHERE hash", todo)}
        return [d for d in todo if d not in stored]

    def _where_in(self, sql: str, keys: Sequence[str]) -> Iterator[Any]:
        """The rows of ``sql`` (a query ending in ``WHERE column``) for the rows whose column
        is one of ``keys``: a query per :data:`_IN_CHUNK` of them."""
        for i in range(0, len(keys), _IN_CHUNK):
            part = keys[i:i + _IN_CHUNK]
            yield from self._db.execute(f"{sql} IN ({','.join('?' * len(part))})", part)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        self.flush()
        return self._db.execute(sql, params)

    # --- blobs ------------------------------------------------------------------------------
    def put_blob(self, data: bytes) -> str:
        digest = blob_hash(data)
        if digest in self._known or digest in self._pending.blobs:
            return digest
        if self._deferred():
            self._pending.blobs[digest] = data
            return digest
        self.flush()
        self._commit(Batch(blobs={digest: data}))
        return digest

    def put_json(self, value: Any) -> str:
        return self.put_blob(json_bytes(value))

    def get_blob(self, digest: str) -> bytes:
        pending = self._pending.blobs.get(digest)
        if pending is not None:
            return pending
        row = self._db.execute("SELECT data FROM blobs WHERE hash=?", (digest,)).fetchone()
        if row is None:
            raise EunomiaError(f"run store {self.path} is missing blob {digest[:12]}")
        return decompress(row[0], self._beginning)

    def _beginning(self, digest: str) -> bytes:
        """The blob a stored blob begins with (the exercise of an Athena request): the last
        few read are kept, since the requests of a scenario share one."""
        data = self._beginnings.get(digest)
        if data is None:
            if len(self._beginnings) >= _BEGINNINGS_KEPT:
                self._beginnings.pop(next(iter(self._beginnings)))
            data = self._beginnings[digest] = self.get_blob(digest)
        return data

    def get_blobs(self, digests: Iterable[str]) -> dict[str, bytes]:
        """The blobs of ``digests``, a query per :data:`_IN_CHUNK` of them (an export reads a
        chunk of cases' answers at once); raises like :meth:`get_blob` for a missing one."""
        out: dict[str, bytes] = {}
        todo: list[str] = []
        pending = self._pending.blobs
        for digest in dict.fromkeys(digests):
            data = pending.get(digest)
            if data is None:
                todo.append(digest)
            else:
                out[digest] = data
        out.update((digest, decompress(data, self._beginning)) for digest, data in self._where_in(
            "SELECT hash, data FROM blobs WHERE hash", todo))
        missing = next((d for d in todo if d not in out), None)
        if missing is not None:
            raise EunomiaError(f"run store {self.path} is missing blob {missing[:12]}")
        return out

    def get_json(self, digest: str) -> Any:
        return orjson.loads(self.get_blob(digest))

    def has_blob(self, digest: str) -> bool:
        if digest in self._pending.blobs:
            return True
        row = self._read("SELECT 1 FROM blobs WHERE hash=?", (digest,)).fetchone()
        return row is not None
