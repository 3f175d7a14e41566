"""The run store: every run, case, request, response, score, token count, cost and timing.

One SQLite file (WAL mode); how writes are committed (grouped during a run) and how
requests and responses are stored once each (``blobs``) is :mod:`eunomia.store._core`'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from eunomia import __version__
from eunomia.errors import EunomiaError
from eunomia.store._blobs import blob_hash, decompress, json_bytes
from eunomia.store._core import CACHE_SQL, Batch, StoreCore
from eunomia.store._lock import RunLocks
from eunomia.store._rows import CaseRow, RunInfo, RunTotals, SuiteInfo, case_row, now, status_text


class RunStore(StoreCore):
    """Runs, their suites and cases, the response cache, and which runs are alive; writes
    are committed as :class:`~eunomia.store._core.StoreCore` says (grouped in a run)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._seq: dict[int, int] = {}
        self._locks = RunLocks(path)
        """The locks of the runs this store runs (created or resumed, not ended yet)."""

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._locks.let_go_all()

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
        batch = self._pending if deferred else Batch()
        for digest, data in blobs:
            if digest not in self._known:
                batch.blobs.setdefault(digest, data)
        if cache is not None:
            batch.cache[cache[0]] = (cache[1], cache[2], now())
        batch.cases.append(params)
        if not deferred:
            self.flush()
            self._commit(batch)


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
        self._write(CACHE_SQL, (key, response, latency_s, now()))

    def cache_put_json(self, key: str, value: Any, latency_s: float | None) -> str:
        """Store ``value`` (as a JSON blob) and a cache entry to it in one transaction;
        the blob's digest. Same result as :meth:`put_json` then :meth:`cache_put`, one commit."""
        data = json_bytes(value)
        digest = blob_hash(data)
        deferred = self._deferred()
        batch = self._pending if deferred else Batch()
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
