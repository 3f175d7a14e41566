"""Writing many small files off the event loop: one background thread, in order."""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path

from eunomia.errors import EunomiaError


class FileWriter:
    """Writes files in order on one background thread, started at the first file.

    Creating a file costs a tenth of a millisecond or more of kernel time (several times
    that on a busy ext4 without a journal, which scans recently deleted inodes): on the
    event loop that stalls every request of a run between two cases. The first failure
    is raised as an :class:`EunomiaError` naming the file by the next :meth:`write` and by
    :meth:`close`; the files after it are not written.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Path, bytes] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._failed: EunomiaError | None = None

    def write(self, path: Path, data: bytes) -> None:
        self._check()
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

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._failed is not None:
                continue
            path, data = item
            try:
                _write_file(path, data)
            except OSError as exc:
                self._failed = EunomiaError(f"cannot write {path}: {exc.strerror or exc}")


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
