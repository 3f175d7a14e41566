"""Writing many small files in order: on the caller's thread while creating a file is cheap,
on one background thread once it is not."""

from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path

from eunomia import defaults
from eunomia.errors import EunomiaError

_WEIGHT = 1 / 16
"""Weight of the latest file in the running mean of the time a file takes."""


class FileWriter:
    """Writes files in order, first on the caller's thread (the event loop), then, once the
    mean time to write one exceeds :data:`eunomia.defaults.FILE_WRITE_INLINE_MAX_S`, on one
    background thread.

    Creating a file costs some 20 µs on tmpfs, 50-100 µs on a quiet ext4, and several times
    that on a busy ext4 without a journal (which scans recently deleted inodes): on the event
    loop, that stalls every request of a run between two cases. On a thread it costs the loop
    about 70 µs a file whatever the file system: the thread takes the GIL back after each of
    its system calls. The first failure is raised as an :class:`EunomiaError` naming the file
    by the next :meth:`write` and by :meth:`close`; the files after it are not written.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Path, bytes] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._failed: EunomiaError | None = None
        self._mean_s = 0.0
        self._slow = False
        """Writing a file was measured slow: every later one goes to the thread."""

    def write(self, path: Path, data: bytes) -> None:
        self._check()
        if not self._slow:
            started = time.perf_counter()
            self._write(path, data)
            self._mean_s += (time.perf_counter() - started - self._mean_s) * _WEIGHT
            self._slow = self._mean_s > defaults.FILE_WRITE_INLINE_MAX_S
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="eunomia-files",
                                            daemon=True)
            self._thread.start()
        self._queue.put((path, data))

    def close(self) -> None:
        """Wait for every file written so far; raise the first failure."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        self._check()

    def _check(self) -> None:
        if self._failed is not None:
            raise self._failed

    def _write(self, path: Path, data: bytes) -> None:
        try:
            _write_file(path, data)
        except OSError as exc:
            self._failed = EunomiaError(f"cannot write {path}: {exc.strerror or exc}")

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._failed is None:
                self._write(*item)


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)


def _write_file(path: Path, data: bytes) -> None:
    """``path.write_bytes(data)`` in fewer Python steps (each one the writer thread takes
    back from the event loop). Written directly, no temp file: these are exports,
    regenerated from the store."""
    fd = os.open(path, _CREATE, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
