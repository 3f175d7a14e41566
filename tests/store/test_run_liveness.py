"""A live run and a dead one are told apart: the lock the running process holds (store/_lock)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.store import RunStore, status_text
from eunomia.store._lock import lock_dir, lock_file


def _create(store: RunStore, name: str = "r") -> None:
    store.create_run(name, "scenarios", ["athena"], {})


def _status(path: Path, name: str) -> str:
    """The run's status as another process's store reads it."""
    other = RunStore(path)
    try:
        return other.require_run(name).status
    finally:
        other.close()


def test_a_run_held_by_another_store_is_running_with_its_holder(tmp_path: Path) -> None:
    path = tmp_path / "eunomia.db"
    runner, reader = RunStore(path), RunStore(path)
    try:
        _create(runner)
        seen = reader.require_run("r")
        assert seen.status == "running"
        assert f"process {os.getpid()}" in seen.holder
        assert status_text(seen).startswith(f"running (process {os.getpid()} on ")
        # its own store does not ask itself
        assert runner.require_run("r").status == "running"
        # nobody else may run it meanwhile, and the refusal never suggests --resume
        with pytest.raises(EunomiaError) as caught:
            reader.set_run_status(seen, "running")
        assert "is running now" in str(caught.value)
        assert "--resume" not in str(caught.value)
        with pytest.raises(EunomiaError) as caught:
            _create(reader)
        assert "is running now" in str(caught.value) and "--resume" not in str(caught.value)
    finally:
        runner.close()
        reader.close()


def test_a_run_whose_process_went_away_is_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "eunomia.db"
    runner = RunStore(path)
    _create(runner)
    runner.close()  # as at any end of its process, without writing a status
    reader = RunStore(path)
    try:
        run = reader.require_run("r")
        assert run.status == "interrupted"
        assert status_text(run, "run") == "interrupted — `eunomia run --resume r` continues it"
        assert status_text(run) == "interrupted — `--resume r` continues it"
        assert [r.status for r in reader.list_runs()] == ["interrupted"]
        reader.set_run_status(run, "running")  # resuming takes the lock
        assert _status(path, "r") == "running"
        reader.set_run_status(run, "complete")
        assert _status(path, "r") == "complete"
    finally:
        reader.close()
    assert lock_file(path, "r").parent == lock_dir(path)
    assert lock_file(path, "r").is_file()  # never deleted (see store/_lock.py)


def test_sigkill_leaves_an_interrupted_run(tmp_path: Path) -> None:
    path = tmp_path / "eunomia.db"
    code = ("import sys, time\n"
            "from pathlib import Path\n"
            "from eunomia.store import RunStore\n"
            "s = RunStore(Path(sys.argv[1]))\n"
            "s.create_run('victim', 'tasks', ['m'], {})\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        reader = RunStore(path)
        try:
            live = reader.require_run("victim")
            assert live.status == "running" and f"process {proc.pid}" in live.holder
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(10) == -signal.SIGKILL
            dead = reader.require_run("victim")
            assert dead.status == "interrupted"
            assert "`eunomia eval --resume victim` continues it" in status_text(dead, "eval")
        finally:
            reader.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_a_taken_name_says_what_became_of_that_run(tmp_path: Path) -> None:
    path = tmp_path / "eunomia.db"
    store = RunStore(path)
    try:
        _create(store, "done")
        store.set_run_status(store.require_run("done"), "complete")
        with pytest.raises(EunomiaError) as caught:
            _create(store, "done")
        message = str(caught.value)
        assert "already exists" in message and "(complete)" in message
        assert "--resume" not in message  # nothing to continue
    finally:
        store.close()
    killed = RunStore(path)
    _create(killed, "cut")
    killed.close()
    store = RunStore(path)
    try:
        with pytest.raises(EunomiaError) as caught:
            _create(store, "cut")  # a name the user gave: continuing it is a fair hint
        assert "interrupted — `--resume cut` continues it" in str(caught.value)
        # the refused attempt let the lock go: the run can be resumed by this store
        store.set_run_status(store.require_run("cut"), "running")
    finally:
        store.close()


def test_a_store_of_an_earlier_eunomia_shows_its_stale_running_run_as_interrupted(
        tmp_path: Path) -> None:
    path = tmp_path / "eunomia.db"
    store = RunStore(path)
    _create(store)
    store.close()
    for lock in lock_dir(path).iterdir():  # as before locks existed
        lock.unlink()
    lock_dir(path).rmdir()
    store = RunStore(path)
    try:
        assert store.require_run("r").status == "interrupted"
    finally:
        store.close()


def test_resuming_waits_out_someone_who_only_asks(tmp_path: Path) -> None:
    """A reader's shared lock lasts microseconds; a run starting meanwhile still gets its lock."""
    path = tmp_path / "eunomia.db"
    store = RunStore(path)
    _create(store)
    store.close()
    fd = os.open(lock_file(path, "r"), os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)
    started = time.monotonic()
    store = RunStore(path)
    try:
        threading.Timer(0.2, os.close, (fd,)).start()  # the reader lets go after 0.2 s
        store.set_run_status(store.require_run("r"), "running")
        assert 0.15 < time.monotonic() - started < 5
    finally:
        store.close()
