"""Storage failures: an unwritable results folder, a locked store, a full disk.

Each gives a clear error naming the path (exit code 2, no traceback), and what was
stored before stays readable (``eunomia runs``, ``eunomia export``) and resumable.
The tests run as root, which ignores permission bits, so "unwritable" is made with a
regular file where a folder is needed, and "disk full" with a tiny tmpfs (or, where
mounting is not allowed, SQLite's ``max_page_count``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.faults.test_fault_injection import make_scenario
from tests.support.cli import run_cli, run_statuses
from tests.support.scripted_server import RecordedRequest, Reply, ScriptedServer, feedback_reply

from eunomia.api import RunOptions, load_all, run_scenarios
from eunomia.errors import EunomiaError
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.store import RunStore
from eunomia.targets.athena import AthenaTarget

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
CASES = 150


def eunomia(*args: str | Path, cwd: Path, timeout: float = 60
            ) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, timeout=timeout)


def assert_clear_error(got: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert got.returncode == 2, got.stdout + got.stderr
    assert "Traceback" not in got.stdout + got.stderr
    text = " ".join(got.stderr.split())  # the console may wrap long paths
    for fragment in fragments:
        assert fragment in text or fragment in got.stderr.replace("\n", ""), (fragment, text)


@pytest.fixture
def server(threaded_server: ScriptedServer) -> ScriptedServer:
    def answer(request: RecordedRequest) -> Reply:
        return feedback_reply([1, 3, 6])

    threaded_server.default = answer
    return threaded_server


def _case_count(store_path: Path, run: str) -> int:
    con = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    try:
        return int(con.execute("SELECT COUNT(*) FROM cases c JOIN runs r ON r.id=c.run_id"
                               " WHERE r.name=?", (run,)).fetchone()[0])
    finally:
        con.close()


# --- an unwritable results folder ------------------------------------------------------------


def test_results_folder_is_a_file(server: ScriptedServer, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.write_text("not a folder", encoding="utf-8")
    got = eunomia("run", EXAMPLES, "--server-url", server.url, "--run-name", "r",
                  "--results", results, cwd=tmp_path)
    assert_clear_error(got, "cannot open the run store", str(results / "eunomia.db"))
    assert server.requests == []  # nothing was asked that could not be stored
    assert results.read_text(encoding="utf-8") == "not a folder"


def test_store_path_under_a_file(server: ScriptedServer, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    store = blocker / "sub" / "eunomia.db"
    got = eunomia("run", EXAMPLES, "--server-url", server.url, "--run-name", "r",
                  "--results", tmp_path / "results", "--store", store, cwd=tmp_path)
    assert_clear_error(got, "cannot open the run store", str(store))
    assert server.requests == []


def test_unwritable_results_fail_before_any_request(
    server: ScriptedServer, tmp_path: Path
) -> None:
    """The store is fine but the results folder cannot be made: nothing is asked for."""
    store = tmp_path / "store" / "eunomia.db"
    results = tmp_path / "results"
    results.write_text("not a folder", encoding="utf-8")
    got = eunomia("run", EXAMPLES, "--server-url", server.url, "--run-name", "kept",
                  "--results", results, "--store", store, cwd=tmp_path)
    assert_clear_error(got, "cannot", str(results / "kept"))
    assert server.requests == []
    assert _case_count(store, "kept") == 0
    listed = eunomia("runs", "--store", store, cwd=tmp_path)
    # stopped before its first case: no run is kept (issue #30, 5), its name stays free
    assert "kept" not in run_statuses(listed.stdout)

    results.unlink()  # the folder can be made now: the same command works
    again = eunomia("run", EXAMPLES, "--server-url", server.url, "--run-name", "kept",
                    "--results", results, "--store", store, cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(server.requests) == 14
    assert len(list((results / "kept" / "project_management" / "test_cases").glob("*"))) == 14


def test_results_disk_full_mid_run_keeps_the_store(server: ScriptedServer, tmp_path: Path) -> None:
    """The result files fill their disk mid-run: a clear error; every stored case is kept,
    exportable elsewhere, and the run resumes (into another results folder)."""
    folder = make_scenario(tmp_path, CASES)
    store = tmp_path / "store" / "eunomia.db"
    with tiny_tmpfs(tmp_path / "tiny_results", 128) as results:
        got = eunomia("run", folder, "--server-url", server.url, "--run-name", "half",
                      "--results", results, "--store", store, "--concurrency", "4",
                      cwd=tmp_path)
        assert_clear_error(got, "cannot write", str(results / "half"))
        written = len(list(results.rglob("test_cases/*.json")))
    stored = _case_count(store, "half")
    assert 0 < stored < CASES and stored >= written, (stored, written)
    asked = len(server.requests)
    assert stored <= asked <= stored + 4  # at most the cases in flight were lost

    out = tmp_path / "elsewhere"
    exported = eunomia("export", "half", "--store", store, "--output", out, cwd=tmp_path)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    files = list((out / "half" / "project_management" / "test_cases").glob("*.json"))
    assert len(files) == stored
    assert len(server.requests) == asked  # exporting asks nobody

    resumed = eunomia("run", "--resume", "half", "--results", tmp_path / "results2",
                      "--store", store, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert _case_count(store, "half") == CASES
    assert len(server.requests) == asked + CASES - stored  # the stored cases were not asked again
    final = tmp_path / "results2" / "half" / "project_management" / "test_cases"
    assert len(list(final.glob("*.json"))) == CASES


# --- a locked store ------------------------------------------------------------------------------


def test_locked_store_is_a_clear_error_and_the_stored_run_stays(
    server: ScriptedServer, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    store = results / "eunomia.db"
    first = eunomia("run", EXAMPLES, "--server-url", server.url, "--run-name", "first",
                    "--results", results, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    before = store.read_bytes()

    holder = sqlite3.connect(store, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        got = eunomia("run", EXAMPLES, "--server-url", server.url, "--run-name", "second",
                      "--results", results, cwd=tmp_path)
        assert_clear_error(got, str(store), "database is locked", "another process")
        holder.execute("ROLLBACK")
    finally:
        holder.close()
    assert len(server.requests) == 14  # the second run asked nothing
    assert store.read_bytes() == before

    listed = eunomia("runs", "--results", results, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "second" not in listed.stdout
    (line,) = [ln for ln in listed.stdout.splitlines() if "first" in ln]
    assert "complete" in line and " 14 " in line
    again = eunomia("export", "first", "--results", results, "--output", tmp_path / "out",
                    cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(list((tmp_path / "out" / "first" / "project_management" / "test_cases")
                    .glob("*.json"))) == 14


# --- a full disk -------------------------------------------------------------------------------


@contextlib.contextmanager
def tiny_tmpfs(where: Path, size_kib: int) -> Iterator[Path]:
    where.mkdir()
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs",
                          str(where)], capture_output=True, text=True, check=False)
    if got.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {got.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


DISK_CASES = 1000


def test_disk_full_then_free_space_and_resume(server: ScriptedServer, tmp_path: Path) -> None:
    folder = make_scenario(tmp_path, DISK_CASES)
    results = tmp_path / "results"
    # the WAL grows by a few pages per commit up to its 4 MiB checkpoint: 640 KiB free holds
    # the first commits of the run and not all of them (a request refers to its exercise,
    # stored once: a case takes a few KiB with the WAL's pages), 8 MiB the whole run
    with tiny_tmpfs(tmp_path / "tiny", 8192) as disk:
        store = disk / "eunomia.db"
        filler = disk / "filler"
        filler.write_bytes(os.urandom(7 * 1024 * 1024 + 384 * 1024))
        got = eunomia("run", folder, "--server-url", server.url, "--run-name", "full",
                      "--results", results, "--store", store, "--concurrency", "4", cwd=tmp_path)
        assert_clear_error(got, "cannot write to the run store", str(store), "full",
                           "free some disk space")
        stored = _case_count(store, "full")
        assert 0 < stored < DISK_CASES, stored

        listed = eunomia("runs", "--store", store, cwd=tmp_path)
        assert listed.returncode == 0, listed.stdout + listed.stderr
        assert "full" in listed.stdout and f" {stored} " in listed.stdout
        # the run could not write its end: stored as running, it reads as interrupted
        assert run_statuses(listed.stdout)["full"] == \
            "interrupted — `eunomia run --resume full` continues it"

        out = tmp_path / "exported"
        exported = eunomia("export", "full", "--store", store, "--output", out, cwd=tmp_path)
        assert exported.returncode == 0, exported.stdout + exported.stderr
        cases = list((out / "full" / "project_management" / "test_cases").glob("*.json"))
        assert len(cases) == stored

        requested = dict(server.counts)
        filler.unlink()  # free the space, then continue where the run stopped
        resumed = eunomia("run", "--resume", "full", "--results", results, "--store", store,
                          cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert _case_count(store, "full") == DISK_CASES
        store_view = RunStore(store)
        try:
            run = store_view.require_run("full")
            assert run.status == "complete"
            done = {r.case_name for r in store_view.iter_cases(run)}
        finally:
            store_view.close()
    assert len(done) == DISK_CASES
    # no case stored before the disk filled up was asked again. Scripted-server keys are
    # submission ids: the generated cases c0000... get ids 1, 2, ... in name order.
    stored_ids = {int(p.stem[1:5]) + 1 for p in cases}
    asked_again = [k for k in stored_ids if server.counts[k] != requested[k]]
    assert asked_again == []
    assert all(server.counts[k] >= 1 for k in range(1, DISK_CASES + 1))


async def test_sqlite_full_in_process(server: ScriptedServer, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLITE_FULL without a tmpfs: the store is capped with ``max_page_count``. The answers
    take 20 ms (4 in flight: ~10 cases per 50 ms commit group), so several groups are
    committed before the one that does not fit: those cases stay stored."""
    import eunomia.run._engine as session

    server.default = lambda request: feedback_reply([1, 3, 6], delay_s=0.02)

    class CappedStore(RunStore):
        def __init__(self, path: Path) -> None:
            super().__init__(path)
            pages = self._db.execute("PRAGMA page_count").fetchone()[0]
            self._db.execute(f"PRAGMA max_page_count={pages + 30}")

    monkeypatch.setattr(session, "RunStore", CappedStore)
    folder = make_scenario(tmp_path, 200)
    loaded, _ = load_all(discover([folder])[0])
    results = tmp_path / "results"
    with pytest.raises(EunomiaError) as caught:
        await run_scenarios(loaded, AthenaTarget(server.url), run_name="capped",
                            results_dir=results,
                            options=RunOptions(4, RetryPolicy(retries=0, timeout_s=10)))
    message = str(caught.value)
    assert str(results / "eunomia.db") in message
    assert "full" in message and "free some disk space" in message
    stored = _case_count(results / "eunomia.db", "capped")
    assert 0 < stored < 200
    view = RunStore(results / "eunomia.db")  # uncapped: everything stored is readable
    try:
        run = view.require_run("capped")
        assert run.status == "interrupted"  # not "running": its process let go of the run
        rows = list(view.iter_cases(run))
        assert len(rows) == stored
        assert all(r.status == "scored" and r.response for r in rows)
        assert all(r.response and view.get_json(r.response)["feedback"] for r in rows)
    finally:
        view.close()
