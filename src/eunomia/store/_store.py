"""The run store: every run, case, request, response, score, token count, cost and timing.

One SQLite file (WAL mode). Each finished case is committed at once, so a crash or
Ctrl-C loses at most the cases in flight. Requests and responses are stored once
each, content-addressed and compressed (``blobs``), so repeats, re-runs and the
response cache share them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from eunomia import __version__, defaults
from eunomia.errors import EunomiaError
from eunomia.store._schema import SCHEMA, SCHEMA_VERSION


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def blob_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def json_bytes(value: Any) -> bytes:
    """Canonical JSON (sorted keys, compact): equal values give equal bytes and hashes."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


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


@dataclass(frozen=True, slots=True)
class RunTotals:
    cases: int
    failed: int
    mean_score: float | None
    cost: float | None
    duration_s: float | None


class RunStore:
    """Synchronous on purpose: one small commit per finished case (tens of microseconds)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                path, timeout=defaults.STORE_BUSY_TIMEOUT_S, isolation_level=None,
                check_same_thread=False,
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
        except (sqlite3.Error, OSError) as exc:
            raise self._error("cannot open the run store", exc) from None
        version = self._db.execute(
            "SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        if int(version) > SCHEMA_VERSION:
            raise EunomiaError(f"run store {path} was written by a newer Eunomia "
                               f"(schema {version} > {SCHEMA_VERSION})")
        self._seq: dict[int, int] = {}
        self._known: set[str] = set()
        """Blob hashes this process has stored: not compressed and inserted again."""

    def _error(self, what: str, exc: BaseException) -> EunomiaError:
        detail = str(exc)
        if "locked" in detail:
            detail += " (another process is writing to it; try again when it has finished)"
        elif "disk" in detail or "full" in detail:
            detail += " (free some disk space; everything stored so far is kept)"
        return EunomiaError(f"{what} {self.path}: {detail}")

    def close(self) -> None:
        self._db.close()

    def _write(self, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise self._error("cannot write to the run store", exc) from None

    # --- blobs ------------------------------------------------------------------------------
    def put_blob(self, data: bytes) -> str:
        digest = blob_hash(data)
        self._write("INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)",
                    (digest, zlib.compress(data, 1)))
        return digest

    def put_json(self, value: Any) -> str:
        return self.put_blob(json_bytes(value))

    def get_blob(self, digest: str) -> bytes:
        row = self._db.execute("SELECT data FROM blobs WHERE hash=?", (digest,)).fetchone()
        if row is None:
            raise EunomiaError(f"run store {self.path} is missing blob {digest[:12]}")
        return zlib.decompress(row[0])

    def get_json(self, digest: str) -> Any:
        return orjson.loads(self.get_blob(digest))

    # --- runs ---------------------------------------------------------------------------------
    def create_run(self, name: str, kind: str, targets: list[str],
                   settings: dict[str, Any]) -> RunInfo:
        try:
            self._write(
                "INSERT INTO runs(name, kind, status, created, targets, settings, eunomia_version)"
                " VALUES (?, ?, 'running', ?, ?, ?, ?)",
                (name, kind, _now(), json.dumps(targets), json.dumps(settings), __version__),
            )
        except EunomiaError as exc:
            if "UNIQUE" in str(exc):
                raise EunomiaError(f"a run named {name!r} already exists in {self.path}; "
                                   "choose another name or --resume it") from None
            raise
        run = self.get_run(name)
        assert run is not None
        return run

    def get_run(self, name: str) -> RunInfo | None:
        row = self._db.execute(
            "SELECT id, name, kind, status, created, finished, targets, settings,"
            " eunomia_version FROM runs WHERE name=?", (name,)).fetchone()
        if row is None:
            return None
        return RunInfo(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]),
                       json.loads(row[7]), row[8])

    def require_run(self, name: str) -> RunInfo:
        run = self.get_run(name)
        if run is None:
            known = [r.name for r in self.list_runs()][-5:]
            hint = f" (recent: {', '.join(known)})" if known else ""
            raise EunomiaError(f"no run named {name!r} in {self.path}{hint}")
        return run

    def list_runs(self) -> list[RunInfo]:
        rows = self._db.execute(
            "SELECT id, name, kind, status, created, finished, targets, settings,"
            " eunomia_version FROM runs ORDER BY id").fetchall()
        return [RunInfo(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), json.loads(r[7]),
                        r[8]) for r in rows]

    def set_run_status(self, run: RunInfo, status: str) -> None:
        self._write("UPDATE runs SET status=?, finished=? WHERE id=?", (status, _now(), run.id))

    def run_totals(self, run: RunInfo) -> RunTotals:
        row = self._db.execute(
            "SELECT COUNT(*), SUM(status NOT IN ('scored')), AVG(score),"
            " SUM(cost), COUNT(cost), MIN(finished), MAX(finished) FROM cases WHERE run_id=?",
            (run.id,)).fetchone()
        duration = None
        if run.finished:
            duration = (datetime.fromisoformat(run.finished)
                        - datetime.fromisoformat(run.created)).total_seconds()
        return RunTotals(row[0], row[1] or 0, row[2], row[3] if row[4] else None, duration)

    # --- suites -------------------------------------------------------------------------------
    def add_suite(self, run: RunInfo, name: str, path: str, definition: Any,
                  prices: Any) -> None:
        d, p = self.put_json(definition), self.put_json(prices)
        self._write("INSERT OR REPLACE INTO suites(run_id, name, path, definition, prices)"
                    " VALUES (?, ?, ?, ?, ?)", (run.id, name, path, d, p))

    def suites(self, run: RunInfo) -> list[SuiteInfo]:
        rows = self._db.execute(
            "SELECT name, path, definition, prices FROM suites WHERE run_id=? ORDER BY rowid",
            (run.id,)).fetchall()
        return [SuiteInfo(*r) for r in rows]

    # --- cases --------------------------------------------------------------------------------
    def _next_seq(self, run: RunInfo) -> int:
        if run.id not in self._seq:
            self._seq[run.id] = self._db.execute(
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

        One transaction per case: either all of it is stored or none (a crash in between
        leaves the case unfinished, so ``--resume`` asks for it again).
        """
        try:
            self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise self._error("cannot write to the run store", exc) from None
        fresh = [(d, data) for d, data in blobs if d not in self._known]
        try:
            for digest, data in fresh:
                self._write("INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)",
                            (digest, zlib.compress(data, 1)))
            if cache is not None:
                self._write("INSERT OR REPLACE INTO cache(key, response, latency_s, created)"
                            " VALUES (?, ?, ?, ?)", (cache[0], cache[1], cache[2], _now()))
            self._insert_case(run, row)
            self._db.execute("COMMIT")
            self._known.update(d for d, _ in fresh)
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._error("cannot write to the run store", exc) from None
            raise

    def has_blob(self, digest: str) -> bool:
        row = self._db.execute("SELECT 1 FROM blobs WHERE hash=?", (digest,)).fetchone()
        return row is not None

    def _insert_case(self, run: RunInfo, row: CaseRow) -> None:
        self._write(
            "INSERT OR REPLACE INTO cases(run_id, suite, target, case_name, repeat, status,"
            " error, attempts, latency_s, cached, score, input_tokens, output_tokens, cost,"
            " request, response, finished, seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run.id, row.suite, row.target, row.case_name, row.repeat, row.status, row.error,
             row.attempts, row.latency_s, int(row.cached), row.score, row.input_tokens,
             row.output_tokens, row.cost, row.request, row.response, row.finished,
             self._next_seq(run)),
        )

    def finished_keys(self, run: RunInfo, *, include_failed: bool = True
                      ) -> set[tuple[str, str, str, int]]:
        """(suite, target, case, repeat) of the cases already stored for this run."""
        sql = "SELECT suite, target, case_name, repeat FROM cases WHERE run_id=?"
        if not include_failed:
            sql += " AND status IN ('scored', 'invalid')"
        return {(r[0], r[1], r[2], r[3]) for r in self._db.execute(sql, (run.id,))}

    def iter_cases(self, run: RunInfo, suite: str | None = None,
                   target: str | None = None) -> Iterator[CaseRow]:
        sql = ("SELECT suite, target, case_name, repeat, status, error, attempts, latency_s,"
               " cached, score, input_tokens, output_tokens, cost, request, response, finished"
               " FROM cases WHERE run_id=?")
        params: list[Any] = [run.id]
        if suite is not None:
            sql += " AND suite=?"
            params.append(suite)
        if target is not None:
            sql += " AND target=?"
            params.append(target)
        sql += " ORDER BY suite, target, case_name, repeat"
        for r in self._db.execute(sql, params):
            yield CaseRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], bool(r[8]), r[9],
                          r[10], r[11], r[12], r[13], r[14], r[15])

    def targets_of(self, run: RunInfo, suite: str) -> list[str]:
        return [r[0] for r in self._db.execute(
            "SELECT DISTINCT target FROM cases WHERE run_id=? AND suite=? ORDER BY target",
            (run.id, suite))]

    # --- response cache --------------------------------------------------------------------
    def cache_get(self, key: str) -> tuple[str, float | None] | None:
        row = self._db.execute("SELECT response, latency_s FROM cache WHERE key=?",
                               (key,)).fetchone()
        return (row[0], row[1]) if row else None

    def cache_put(self, key: str, response: str, latency_s: float | None) -> None:
        self._write("INSERT OR REPLACE INTO cache(key, response, latency_s, created)"
                    " VALUES (?, ?, ?, ?)", (key, response, latency_s, _now()))

    def cache_put_json(self, key: str, value: Any, latency_s: float | None) -> str:
        """Store ``value`` (as a JSON blob) and a cache entry to it in one transaction;
        the blob's digest. Same result as :meth:`put_json` then :meth:`cache_put`, one commit."""
        data = json_bytes(value)
        digest = blob_hash(data)
        try:
            self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise self._error("cannot write to the run store", exc) from None
        try:
            if digest not in self._known:
                self._write("INSERT OR IGNORE INTO blobs(hash, data) VALUES (?, ?)",
                            (digest, zlib.compress(data, 1)))
            self._write("INSERT OR REPLACE INTO cache(key, response, latency_s, created)"
                        " VALUES (?, ?, ?, ?)", (key, digest, latency_s, _now()))
            self._db.execute("COMMIT")
            self._known.add(digest)
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._error("cannot write to the run store", exc) from None
            raise
        return digest


def now() -> str:
    return _now()
