"""The run store: every run, case, request, response, score, token count, cost and timing.

One SQLite file (WAL mode). Each finished case is committed with its blobs and cache
entry in one transaction, so a crash or Ctrl-C loses at most the cases in flight.
During a run (:meth:`RunStore.grouped`) the cases recorded together (those that finished
while the run was busy) share that transaction, committed as soon as the run is about to
wait for its next answers. Requests and responses are stored once each, content-addressed
and compressed (``blobs``), so repeats, re-runs and the response cache share them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from eunomia import __version__, defaults
from eunomia.errors import EunomiaError
from eunomia.store._blobs import blob_hash, compress, decompress, json_bytes, shared_beginning
from eunomia.store._lock import RunLocks
from eunomia.store._rows import CaseRow, RunInfo, RunTotals, SuiteInfo, case_row, now, status_text
from eunomia.store._schema import open_store, store_error

_CASE_SQL = (
    "INSERT OR REPLACE INTO cases(run_id, suite, target, case_name, repeat, status,"
    " error, attempts, latency_s, cached, score, input_tokens, output_tokens, cost,"
    " request, response, finished, seq, attempt_log)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_CACHE_SQL = "INSERT OR REPLACE INTO cache(key, response, latency_s, created) VALUES (?, ?, ?, ?)"
_BLOB_SQL = "INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)"
_IN_CHUNK = 500
"""Hashes per ``IN (...)`` query (below SQLite's variable limit)."""
_BEGINNINGS_KEPT = 8
"""Blobs that others begin with kept in memory once read (see :meth:`RunStore._beginning`)."""


@dataclass(slots=True, eq=False)
class _Batch:
    """Writes that are committed together."""

    blobs: dict[str, bytes] = field(default_factory=dict)
    """Blobs (uncompressed), by hash."""
    cache: dict[str, tuple[str, float | None, str]] = field(default_factory=dict)
    """Cache entries: key -> (response blob, latency, created)."""
    cases: list[tuple[Any, ...]] = field(default_factory=list)
    """Case rows (parameters of ``_CASE_SQL``)."""

    def __bool__(self) -> bool:
        return bool(self.cases or self.cache or self.blobs)




class RunStore:
    """Synchronous on purpose: a commit costs tens of microseconds.

    Outside :meth:`grouped`, every write is committed at once. Inside it (a run), finished
    cases, blobs and cache entries are collected and committed together (:meth:`flush`);
    everything that reads the store sees them (pending cache entries and blobs are
    answered from memory, other reads commit them first).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = open_store(path)
        self._seq: dict[int, int] = {}
        self._known: set[str] = set()
        """Blob hashes this process has stored: not compressed and inserted again."""
        self._beginnings: dict[str, bytes] = {}
        """The blobs others begin with, read last (:meth:`_beginning`)."""
        self._grouped = 0
        self._pending = _Batch()
        """Writes collected for the next group commit."""
        self._flush_handle: asyncio.TimerHandle | None = None
        self._failure: EunomiaError | None = None
        """A group commit that failed after its cases were handed over: raised by the next
        call, so the run stops clearly (those cases are not stored; resume asks again)."""
        self._locks = RunLocks(path)
        """The locks of the runs this store runs (created or resumed, not ended yet)."""

    def _error(self, what: str, exc: BaseException) -> EunomiaError:
        return store_error(self.path, what, exc)

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._db.close()
            self._locks.let_go_all()

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
            batch, self._pending = self._pending, _Batch()
            try:
                self._commit(batch)
            except EunomiaError:
                raise  # not stored (rolled back): resume asks for these cases again
            except BaseException:
                self._pending = batch  # interrupted (Ctrl-C): the next flush stores it
                raise

    def _commit(self, batch: _Batch) -> None:
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
                db.executemany(_CACHE_SQL, ((k, *v) for k, v in batch.cache.items()))
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
        self._commit(_Batch(blobs={digest: data}))
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

    # --- runs ---------------------------------------------------------------------------------
    def create_run(self, name: str, kind: str, targets: list[str],
                   settings: dict[str, Any]) -> RunInfo:
        """A new run, ``running`` and held by this store until :meth:`set_run_status` ends it
        (or :meth:`close`). An error when the name is taken, saying whether that run is
        running now (never then suggesting ``--resume``), was interrupted or is complete."""
        self._locks.hold(name)
        try:
            self._write(
                "INSERT INTO runs(name, kind, status, created, targets, settings, eunomia_version)"
                " VALUES (?, ?, 'running', ?, ?, ?, ?)",
                (name, kind, now(), json.dumps(targets), json.dumps(settings), __version__),
            )
        except EunomiaError as exc:
            self._locks.let_go(name)
            taken = self.get_run(name) if "UNIQUE" in str(exc) else None
            if taken is not None:
                raise self._name_taken(taken) from None
            raise
        run = self.get_run(name)
        assert run is not None
        return run

    def _name_taken(self, run: RunInfo) -> EunomiaError:
        where = f"a run named {run.name!r} already exists in {self.path}"
        if run.status == "interrupted":
            return EunomiaError(f"{where}: {status_text(run)}; or choose another name")
        return EunomiaError(f"{where} ({status_text(run)}); choose another name")

    def _run_info(self, row: Sequence[Any]) -> RunInfo:
        """A ``runs`` row as a :class:`RunInfo`; a run stored as ``running`` that no process
        holds (killed, or stopped by a full disk before it could say so) is ``interrupted``."""
        status, holder = self._locks.state(row[1], row[3])
        return RunInfo(row[0], row[1], row[2], status, row[4], row[5], json.loads(row[6]),
                       json.loads(row[7]), row[8], holder)

    def get_run(self, name: str) -> RunInfo | None:
        row = self._read(
            "SELECT id, name, kind, status, created, finished, targets, settings,"
            " eunomia_version FROM runs WHERE name=?", (name,)).fetchone()
        if row is None:
            return None
        return self._run_info(row)

    def require_run(self, name: str) -> RunInfo:
        run = self.get_run(name)
        if run is None:
            known = [r.name for r in self.list_runs()][-5:]
            hint = f" (recent: {', '.join(known)})" if known else ""
            raise EunomiaError(f"no run named {name!r} in {self.path}{hint}")
        return run

    def list_runs(self) -> list[RunInfo]:
        rows = self._read(
            "SELECT id, name, kind, status, created, finished, targets, settings,"
            " eunomia_version FROM runs ORDER BY id").fetchall()
        return [self._run_info(r) for r in rows]

    def set_run_status(self, run: RunInfo, status: str) -> None:
        """``running`` (a resumed run) takes the run's lock first: an error when another
        process runs it now. Any other status ends the run and gives the lock back."""
        if status == "running":
            self._locks.hold(run.name)
        try:
            self._write("UPDATE runs SET status=?, finished=? WHERE id=?",
                        (status, now(), run.id))
        finally:
            if status != "running":
                self._locks.let_go(run.name)

    def discard_run(self, run: RunInfo) -> bool:
        """Forget ``run`` if it stored no case (stopped before its first: a configuration
        error), so its name is free again; True when it was forgotten. Ends the run."""
        try:
            gone = self._write("DELETE FROM runs WHERE id=? AND NOT EXISTS"
                               " (SELECT 1 FROM cases WHERE run_id=?)", (run.id, run.id))
        finally:
            self._locks.let_go(run.name)
        return gone.rowcount == 1

    def add_setting(self, run: RunInfo, key: str, value: Any) -> None:
        """Append ``value`` to the list kept under ``key`` in the run's stored settings (what
        a run learns as it goes, e.g. each attempt's metered LLM totals)."""
        row = self._read("SELECT settings FROM runs WHERE id=?", (run.id,)).fetchone()
        settings = json.loads(row[0]) if row is not None else {}
        settings.setdefault(key, []).append(value)
        self._write("UPDATE runs SET settings=? WHERE id=?", (json.dumps(settings), run.id))

    def run_totals(self, run: RunInfo) -> RunTotals:
        row = self._read(
            "SELECT COUNT(*), SUM(status = 'failed'), AVG(score), SUM(cost), COUNT(cost),"
            " SUM(status = 'unscored'), SUM(status = 'invalid') FROM cases WHERE run_id=?",
            (run.id,)).fetchone()
        duration = None
        if run.finished:
            duration = (datetime.fromisoformat(run.finished)
                        - datetime.fromisoformat(run.created)).total_seconds()
        return RunTotals(row[0], row[1] or 0, row[2], row[3] if row[4] else None, duration,
                         unscored=row[5] or 0, invalid=row[6] or 0)

    # --- suites -------------------------------------------------------------------------------
    def add_suite(self, run: RunInfo, name: str, path: str, definition: Any,
                  prices: Any) -> None:
        d, p = self.put_json(definition), self.put_json(prices)
        self._write("INSERT OR REPLACE INTO suites(run_id, name, path, definition, prices)"
                    " VALUES (?, ?, ?, ?, ?)", (run.id, name, path, d, p))

    def suites(self, run: RunInfo) -> list[SuiteInfo]:
        rows = self._read(
            "SELECT name, path, definition, prices FROM suites WHERE run_id=? ORDER BY rowid",
            (run.id,)).fetchall()
        return [SuiteInfo(*r) for r in rows]

    # --- cases --------------------------------------------------------------------------------
    def _next_seq(self, run: RunInfo) -> int:
        if run.id not in self._seq:
            self._seq[run.id] = self._read(
                "SELECT COALESCE(MAX(seq), 0) FROM cases WHERE run_id=?", (run.id,)).fetchone()[0]
        self._seq[run.id] += 1
        return self._seq[run.id]

    def record_case(
        self,
        run: RunInfo,
        row: CaseRow,
        blobs: Sequence[tuple[str, bytes]] = (),
        cache: tuple[str, str, float | None] | None = None,
    ) -> None:
        """Store a finished case with its request/response blobs and cache entry, atomically.

        One transaction: either all of it is stored or none (a crash in between leaves the
        case unfinished, so ``--resume`` asks for it again). Within :meth:`grouped`, the
        transaction is shared with the other cases that finished in the same loop turn.
        """
        params = self._case_params(run, row)
        deferred = self._deferred()
        batch = self._pending if deferred else _Batch()
        for digest, data in blobs:
            if digest not in self._known:
                batch.blobs.setdefault(digest, data)
        if cache is not None:
            batch.cache[cache[0]] = (cache[1], cache[2], now())
        batch.cases.append(params)
        if not deferred:
            self.flush()
            self._commit(batch)

    def has_blob(self, digest: str) -> bool:
        if digest in self._pending.blobs:
            return True
        row = self._read("SELECT 1 FROM blobs WHERE hash=?", (digest,)).fetchone()
        return row is not None

    def _case_params(self, run: RunInfo, row: CaseRow) -> tuple[Any, ...]:
        return (run.id, row.suite, row.target, row.case_name, row.repeat, row.status, row.error,
                row.attempts, row.latency_s, int(row.cached), row.score, row.input_tokens,
                row.output_tokens, row.cost, row.request, row.response, row.finished,
                self._next_seq(run),
                orjson.dumps(list(row.attempt_log)).decode() if len(row.attempt_log) > 1
                else None)

    def finished_keys(self, run: RunInfo, *, include_failed: bool = True
                      ) -> set[tuple[str, str, str, int]]:
        """(suite, target, case, repeat) of the cases already stored for this run."""
        sql = "SELECT suite, target, case_name, repeat FROM cases WHERE run_id=?"
        if not include_failed:
            sql += " AND status IN ('scored', 'invalid')"
        return {(r[0], r[1], r[2], r[3]) for r in self._read(sql, (run.id,))}

    def iter_cases(self, run: RunInfo, suite: str | None = None,
                   target: str | None = None) -> Iterator[CaseRow]:
        sql = _CASE_COLUMNS + " FROM cases WHERE run_id=?"
        params: list[Any] = [run.id]
        if suite is not None:
            sql += " AND suite=?"
            params.append(suite)
        if target is not None:
            sql += " AND target=?"
            params.append(target)
        sql += " ORDER BY suite, target, case_name, repeat"
        for r in self._read(sql, params):
            yield case_row(r)

    def count_cases(self, run: RunInfo, suite: str, target: str | None = None) -> int:
        """How many cases of ``suite`` (of ``target``) the run has stored."""
        sql = "SELECT COUNT(*) FROM cases WHERE run_id=? AND suite=?"
        params: list[Any] = [run.id, suite]
        if target is not None:
            sql += " AND target=?"
            params.append(target)
        return int(self._read(sql, params).fetchone()[0])

    def targets_of(self, run: RunInfo, suite: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT DISTINCT target FROM cases WHERE run_id=? AND suite=? ORDER BY target",
            (run.id, suite))]

    # --- response cache --------------------------------------------------------------------
    def cache_get(self, key: str) -> tuple[str, float | None] | None:
        pending = self._pending.cache.get(key)
        if pending is not None:
            return pending[0], pending[1]
        row = self._db.execute("SELECT response, latency_s FROM cache WHERE key=?",
                               (key,)).fetchone()
        return (row[0], row[1]) if row else None

    def cached_answers(self, keys: Sequence[str]
                       ) -> dict[str, tuple[str, float | None, bytes | None]]:
        """The cache entries of ``keys`` that exist: key -> (response blob hash, latency, the
        blob uncompressed — None when it is missing). One query per few hundred keys, so a
        re-run looks its answers up in bulk."""
        out: dict[str, tuple[str, float | None, bytes | None]] = {}
        wanted = list(dict.fromkeys(keys))
        for key, response, latency, data in self._where_in(
                "SELECT c.key, c.response, c.latency_s, b.data FROM cache c"
                " LEFT JOIN blobs b ON b.hash = c.response WHERE c.key", wanted):
            out[key] = (response, latency,
                        None if data is None else decompress(data, self._beginning))
        pending = self._pending
        for key in wanted:
            entry = pending.cache.get(key)
            if entry is not None:
                out[key] = (entry[0], entry[1], pending.blobs.get(entry[0]))
        return out

    def cache_is_empty(self) -> bool:
        """Whether the response cache holds no entry at all (a first run on this store)."""
        if self._pending.cache:
            return False
        return self._read("SELECT 1 FROM cache LIMIT 1").fetchone() is None

    def cache_put(self, key: str, response: str, latency_s: float | None) -> None:
        if self._deferred():
            self._pending.cache[key] = (response, latency_s, now())
            return
        self._write(_CACHE_SQL, (key, response, latency_s, now()))

    def cache_put_json(self, key: str, value: Any, latency_s: float | None) -> str:
        """Store ``value`` (as a JSON blob) and a cache entry to it in one transaction;
        the blob's digest. Same result as :meth:`put_json` then :meth:`cache_put`, one commit."""
        data = json_bytes(value)
        digest = blob_hash(data)
        deferred = self._deferred()
        batch = self._pending if deferred else _Batch()
        if digest not in self._known:
            batch.blobs.setdefault(digest, data)
        batch.cache[key] = (digest, latency_s, now())
        if not deferred:
            self.flush()
            self._commit(batch)
        return digest

    # --- reading a run piece by piece (exports of large runs) -------------------------------
    def cases_named(self, run: RunInfo, suite: str, target: str,
                    names: Sequence[str]) -> list[CaseRow]:
        """The stored cases of ``names`` (of ``suite`` and ``target``), ordered by case and
        repeat: an indexed query per :data:`_NAMES_PER_QUERY` names, so an export can walk
        a suite in file order a chunk at a time."""
        out: list[CaseRow] = []
        for i in range(0, len(names), _NAMES_PER_QUERY):
            part = list(names[i:i + _NAMES_PER_QUERY])
            sql = (_CASE_COLUMNS + " FROM cases WHERE run_id=? AND suite=? AND target=?"
                   f" AND case_name IN ({','.join('?' * len(part))})"
                   " ORDER BY case_name, repeat")
            out += (case_row(r) for r in self._read(sql, [run.id, suite, target, *part]))
        return out

    def max_repeat(self, run: RunInfo, target: str | None = None) -> int | None:
        """The highest repeat index among the run's cases that are not invalid (of
        ``target``); None when there is none."""
        sql = "SELECT MAX(repeat) FROM cases WHERE run_id=? AND status != 'invalid'"
        params: list[Any] = [run.id]
        if target is not None:
            sql += " AND target=?"
            params.append(target)
        found = self._read(sql, params).fetchone()[0]
        return None if found is None else int(found)


_NAMES_PER_QUERY = 500
"""Case names per ``IN (...)`` query of :meth:`RunStore.cases_named`."""
_CASE_COLUMNS = ("SELECT suite, target, case_name, repeat, status, error, attempts, latency_s,"
                 " cached, score, input_tokens, output_tokens, cost, request, response, finished,"
                 " attempt_log")
