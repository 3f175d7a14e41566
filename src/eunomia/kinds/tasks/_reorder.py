"""Values met in one order and wanted in another, in bounded memory.

An export reads a suite's stored cases once, in the suite's file order (for its YAML), and
writes the tables and the summary in the store's order: what those need of each record
(small plain values) waits here, by key, until the store's order asks for it. Up to
:data:`KEPT_IN_MEMORY` values are kept as they are; beyond, every value is written to a
temporary file (``marshal``) and only its key and place are kept (about 80 bytes a value
when the key's strings are shared), so a suite of any size holds little.
"""

from __future__ import annotations

import marshal
import tempfile
from array import array
from collections.abc import Iterator
from typing import IO, Any, Generic, TypeVar

K = TypeVar("K", bound=tuple[Any, ...])
"""A key: a tuple (hashable when its items are, ordered)."""

KEPT_IN_MEMORY = 10_000
"""Values held as objects (about 0.6 KB each in an export) before they go to a file."""


class Parked(Generic[K]):
    """Values by key, each key put once: given back in the order of their keys
    (:meth:`in_order`) or one by one (:meth:`take`)."""

    def __init__(self, kept: int | None = None) -> None:
        self._kept = KEPT_IN_MEMORY if kept is None else kept
        self._values: dict[K, Any] = {}
        self._file: IO[bytes] | None = None
        self._keys: list[K] = []
        """The keys of the values in the file, in the file's order."""
        self._ends = array("q")
        """Where each value in the file ends."""
        self._index: dict[K, int] | None = None
        """Key -> its place in ``_keys`` (built by the first :meth:`take`)."""
        self._size = 0
        self._at_end = True
        """Whether the file's position is its end (no value read since the last write)."""

    def __enter__(self) -> Parked[K]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self._values) + len(self._keys)

    def put(self, key: K, value: Any) -> None:
        """Keep ``value`` (plain values only: what ``marshal`` writes) under ``key``, a key
        not put before."""
        if self._file is None:
            self._values[key] = value
            if len(self._values) > self._kept:
                self._spill()
            return
        self._write(key, value)

    def in_order(self) -> Iterator[tuple[K, Any]]:
        """Every value not taken yet, with its key, in the order of the keys (then gone)."""
        if self._file is None:
            for key in sorted(self._values):
                yield key, self._values.pop(key)
            return
        keys, ends = self._keys, self._ends
        for i in sorted(range(len(keys)), key=keys.__getitem__):
            if ends[i] >= 0:
                yield keys[i], self._read(i)

    def take(self, key: K) -> Any | None:
        """The value put under ``key`` (None: none, or taken already), forgotten."""
        if self._file is None:
            return self._values.pop(key, None)
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self._keys)}
        i = self._index.pop(key, None)
        return None if i is None or self._ends[i] < 0 else self._read(i)

    def close(self) -> None:
        self._values.clear()
        self._keys.clear()
        self._index = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def _spill(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="eunomia-export-")  # noqa: SIM115 - closed by close()
        for key, value in self._values.items():
            self._write(key, value)
        self._values.clear()

    def _write(self, key: K, value: Any) -> None:
        assert self._file is not None
        if not self._at_end:
            self._file.seek(self._size)
            self._at_end = True
        self._size += self._file.write(marshal.dumps(value))
        if self._index is not None:
            self._index[key] = len(self._keys)
        self._keys.append(key)
        self._ends.append(self._size)

    def _read(self, i: int) -> Any:
        """The ``i``-th value of the file (then marked taken: its end negative; a value is
        never empty, so its end is past its start)."""
        assert self._file is not None
        ends = self._ends
        start = abs(ends[i - 1]) if i else 0
        end = ends[i]
        ends[i] = -end
        self._file.seek(start)
        self._at_end = False
        return marshal.loads(self._file.read(end - start))
