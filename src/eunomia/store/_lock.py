"""Telling a live run from a dead one: a lock the running process holds.

While a run is running, the process running it holds an exclusive ``flock`` on a small file
beside the store (``<store>-locks/<hash of the run name>.lock``), taken when the run is
created or resumed and given back when it ends. The kernel drops a ``flock`` when the last
descriptor of the open file is closed, and a process's descriptors are closed however it ends:
its normal end, an exception, Ctrl-C, SIGKILL, the OOM killer, a full disk that stops it
before it could write its status. So a run the store still calls ``running`` whose lock nobody
holds was interrupted, and ``--resume`` continues it. Nothing has to be cleaned up after a
crash, and no clock is involved (a heartbeat would need one, and a threshold to guess).

Another process asks with a shared lock it takes and drops at once (``LOCK_SH | LOCK_NB``,
which works on a file opened read-only); a run that starts while someone is asking retries
for :data:`eunomia.defaults.RUN_LOCK_WAIT_S`. The holder writes its process id, host and start
time into the file, so a refusal can say who runs the run. Lock files are never deleted
(removing a flock'ed file lets two processes lock two different files of the same name).

Limits: a process forked without ``exec`` shares the lock and keeps it while it lives; on a
network file system the lock is as good as the file system's locking (NFSv4: leases); where
``fcntl`` does not exist (Windows), liveness is not known and a stored ``running`` is shown as
it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.store._rows import now
from eunomia.store._schema import store_error

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None  # type: ignore[assignment]

LOCKS_SUFFIX = "-locks"


@dataclass(frozen=True, slots=True)
class Holder:
    """The process that holds a run's lock (what it wrote in the file; fields may be empty
    when it is being written)."""

    pid: int | None = None
    host: str = ""
    since: str = ""

    def __str__(self) -> str:
        where = f"process {self.pid}" if self.pid else "another process"
        if self.host:
            where += f" on {self.host}"
        if self.since:
            where += f", since {self.since[:19].replace('T', ' ')} UTC"
        return where


class RunBusy(Exception):
    """The run's lock is held by another process (or another store in this one)."""

    def __init__(self, holder: Holder) -> None:
        super().__init__(str(holder))
        self.holder = holder


def lock_dir(store_path: Path) -> Path:
    """The folder of a store's lock files: ``<store>-locks`` beside it."""
    return store_path.with_name(store_path.name + LOCKS_SUFFIX)


def lock_file(store_path: Path, run_name: str) -> Path:
    digest = hashlib.sha256(run_name.encode("utf-8")).hexdigest()[:24]
    return lock_dir(store_path) / f"{digest}.lock"


def locks_supported() -> bool:
    return fcntl is not None


def _read_holder(fd: int) -> Holder:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return Holder()
    if not isinstance(data, dict):
        return Holder()
    pid = data.get("pid")
    return Holder(pid if isinstance(pid, int) else None, str(data.get("host") or ""),
                  str(data.get("since") or ""))


class RunLock:
    """The lock of one run, held by this process until :meth:`release`."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def acquire(cls, store_path: Path, run_name: str) -> RunLock | None:
        """Take the run's lock; :class:`RunBusy` when another process holds it (after
        :data:`eunomia.defaults.RUN_LOCK_WAIT_S` of retries: someone may only be asking).
        None where locks are not supported. OSError when the file cannot be made."""
        if fcntl is None:  # pragma: no cover (Windows)
            return None
        path = lock_file(store_path, run_name)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + defaults.RUN_LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise RunBusy(holder) from None
                time.sleep(0.02)
            except OSError:
                os.close(fd)
                raise
        record = {"pid": os.getpid(), "host": socket.gethostname(), "since": now(),
                  "run": run_name}
        with contextlib.suppress(OSError):  # the lock is what counts; the text only informs
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(record).encode("utf-8"), 0)
        return cls(fd, path)

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the descriptor drops the lock


def holder_of(store_path: Path, run_name: str) -> Holder | bool | None:
    """Who holds the run's lock: a :class:`Holder`, None when nobody does (the run is not
    running anywhere), False when it cannot be told (no locks here, or the file cannot be
    read)."""
    if fcntl is None:  # pragma: no cover (Windows)
        return False
    try:
        fd = os.open(lock_file(store_path, run_name), os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(fd)
        except OSError:
            return False
        return None  # closing the descriptor drops the shared lock just taken
    finally:
        os.close(fd)


class RunLocks:
    """The locks one store holds (the runs it runs), and what it tells of the others."""

    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path
        self._held: dict[str, RunLock] = {}

    def hold(self, name: str) -> None:
        """Take the lock of run ``name``; an error when another process (or another store of
        this one) runs it now."""
        if name in self._held:
            return
        try:
            lock = RunLock.acquire(self.store_path, name)
        except RunBusy as busy:
            raise EunomiaError(
                f"run {name!r} of {self.store_path} is running now ({busy.holder}): two "
                "processes must not write one run; wait for it to end or stop it (a new run "
                "needs another name)") from None
        except OSError as exc:
            raise store_error(self.store_path, f"cannot lock run {name!r} of", exc) from None
        if lock is not None:
            self._held[name] = lock

    def let_go(self, name: str) -> None:
        lock = self._held.pop(name, None)
        if lock is not None:
            lock.release()

    def let_go_all(self) -> None:
        for name in list(self._held):
            self.let_go(name)

    def state(self, name: str, stored: str) -> tuple[str, str]:
        """(status, holder) of a run whose stored status is ``stored``: ``interrupted`` for a
        ``running`` one no process holds; the holder's description for one another process
        runs now."""
        if stored != "running" or name in self._held:
            return stored, ""
        found = holder_of(self.store_path, name)
        if found is None:
            return "interrupted", ""
        return stored, str(found) if isinstance(found, Holder) else ""
