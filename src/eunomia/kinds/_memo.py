"""Summaries of a stored run, read once for every suite's group of a report: a few kept,
keyed by the run's state (a running run's summary is read again as its cases come in)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from eunomia.store import RunInfo, RunStore

T = TypeVar("T")


class RunMemo(Generic[T]):
    """The last ``kept`` values computed per (store, run, its state, ``parts``)."""

    def __init__(self, kept: int = 16) -> None:
        self._kept = kept
        self._values: dict[tuple[str, ...], T] = {}

    def get(self, store: RunStore, run: RunInfo, compute: Callable[[], T], *parts: str) -> T:
        key = (str(store.path), run.name, f"{run.finished}/{store.run_totals(run).cases}",
               *parts)
        found = self._values.get(key)
        if found is None:
            if len(self._values) >= self._kept:
                self._values.pop(next(iter(self._values)))
            found = self._values[key] = compute()
        return found
