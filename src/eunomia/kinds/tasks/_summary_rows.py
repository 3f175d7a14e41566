"""Compact stores of per-case figures a task summary keeps: scores across repeats, speed.

A 100,000-case run keeps a few numbers per case in arrays rather than objects; these
sequences give them back as rows (:class:`RepeatStat`, :class:`SpeedRow`) on demand.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from statistics import fmean, stdev
from typing import Any, overload

from eunomia.stats import (
    distribution,
    flip_rate,
    icc,
    krippendorff_alpha,
)

_NAN = math.nan


@dataclass(frozen=True, slots=True)
class RepeatStat:
    """How one case's score moved across the candidate's ``--repeat`` runs."""

    suite: str
    case_name: str
    scores: tuple[float, ...]
    """Judge score of each scored repeat, in repeat order."""
    failed_repeats: int
    mean: float | None
    stdev: float | None
    low: float | None
    high: float | None
    flip_rate: float | None
    """Share of consecutive repeats whose (rounded) score changed."""
    distribution: dict[int, float]
    """Rounded score → share of the scored repeats."""


class _Rows:
    """Equality and ``repr`` of the compact row sequences: those of the list of rows."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (_Rows, list, tuple)):
            mine: Sequence[Any] = self  # type: ignore[assignment]
            theirs: Sequence[Any] = other  # type: ignore[assignment]
            return len(mine) == len(theirs) and all(
                a == b for a, b in zip(mine, theirs, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        rows: Sequence[Any] = self  # type: ignore[assignment]
        return f"{type(self).__name__}({list(rows)!r})"


def _repeat_stat(suite: str, name: str, row: Sequence[float | None]) -> RepeatStat:
    scores = tuple(x for x in row if x is not None and not math.isnan(x))
    labels = [round(x) for x in scores]
    return RepeatStat(
        suite=suite, case_name=name, scores=scores,
        failed_repeats=len(row) - len(scores),
        mean=fmean(scores) if scores else None,
        stdev=stdev(scores) if len(scores) > 1 else None,
        low=min(scores) if scores else None, high=max(scores) if scores else None,
        flip_rate=flip_rate(labels),
        distribution={k: v for k, v in distribution(labels).items() if isinstance(k, int)},
    )


class RepeatRows(_Rows, Sequence[RepeatStat]):
    """Every case's :class:`RepeatStat`, in (suite, case) order, built on access from a
    compact matrix of scores (cases × repeats, NaN where a repeat has no score)."""

    def __init__(self, repeats: int, suites: list[str], suite_of: array[int],
                 names: list[str], matrix: array[float]) -> None:
        self.repeats = repeats
        self._suites = suites
        self._suite_of = suite_of
        self._names = names
        self._matrix = matrix
        self._stdevs: array[float] | None = None

    def __len__(self) -> int:
        return len(self._names)

    def row(self, i: int) -> list[float | None]:
        k = self.repeats
        return [None if math.isnan(x) else x for x in self._matrix[i * k:(i + 1) * k]]

    def _stat(self, i: int) -> RepeatStat:
        return _repeat_stat(self._suites[self._suite_of[i]], self._names[i], self.row(i))

    @overload
    def __getitem__(self, index: int) -> RepeatStat: ...

    @overload
    def __getitem__(self, index: slice) -> list[RepeatStat]: ...

    def __getitem__(self, index: int | slice) -> RepeatStat | list[RepeatStat]:
        if isinstance(index, slice):
            return [self._stat(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("repeat row index out of range")
        return self._stat(index)

    def __iter__(self) -> Iterator[RepeatStat]:
        return (self._stat(i) for i in range(len(self)))

    def stdevs(self) -> array[float]:
        """Each case's standard deviation across its scored repeats (NaN: fewer than two)."""
        if self._stdevs is None:
            out = array("d")
            for i in range(len(self)):
                scores = [x for x in self.row(i) if x is not None]
                out.append(stdev(scores) if len(scores) > 1 else _NAN)
            self._stdevs = out
        return self._stdevs

    def unstable(self, limit: int | None = None) -> list[RepeatStat]:
        """Cases whose score changed (most spread first; ties in case order)."""
        sds = self.stdevs()
        moved = (i for i, sd in enumerate(sds) if not math.isnan(sd) and sd)
        order = heapq.nsmallest(limit, moved, key=lambda i: -sds[i]) if limit is not None \
            else sorted(moved, key=lambda i: -sds[i])
        return [self._stat(i) for i in order]

    def unstable_count(self) -> int:
        return sum(1 for sd in self.stdevs() if not math.isnan(sd) and sd)


@dataclass(frozen=True, slots=True)
class RepeatConsistency:
    """Agreement of the candidate with itself across ``--repeat`` (cases × repeats)."""

    repeats: int
    cases: Sequence[RepeatStat]
    alpha: float | None
    """Krippendorff's alpha (interval), repeats as coders; missing repeats allowed."""
    icc: float | None
    """ICC(2,1) over the cases scored in every repeat."""

    @property
    def unstable(self) -> list[RepeatStat]:
        """Cases whose score changed across repeats, most spread first."""
        if isinstance(self.cases, RepeatRows):
            return self.cases.unstable()
        return sorted((c for c in self.cases if c.stdev), key=lambda c: -(c.stdev or 0.0))

    def most_unstable(self, n: int) -> list[RepeatStat]:
        """The first ``n`` of :attr:`unstable` (without building the others)."""
        if isinstance(self.cases, RepeatRows):
            return self.cases.unstable(n)
        return self.unstable[:n]

    @property
    def unstable_count(self) -> int:
        if isinstance(self.cases, RepeatRows):
            return self.cases.unstable_count()
        return len(self.unstable)


class Repeats:
    """Collects, per case, its scores across repeats (for :class:`RepeatConsistency`)."""

    def __init__(self) -> None:
        self.suites: list[str] = []
        self._suite_index: dict[str, int] = {}
        self.suite_of = array("q")
        self.names: list[str] = []
        self.index: dict[tuple[str, str], int] | None = None
        """Case -> row, only when cases may come back (a plain list of records)."""
        self._case = array("q")
        self._repeat = array("q")
        self._score = array("d")
        self.max_repeat = -1

    def new_case(self, suite: str, name: str) -> int:
        if self.index is not None:
            found = self.index.get((suite, name))
            if found is not None:
                return found
        si = self._suite_index.get(suite)
        if si is None:
            si = self._suite_index[suite] = len(self.suites)
            self.suites.append(suite)
        self.suite_of.append(si)
        self.names.append(name)
        if self.index is not None:
            self.index[(suite, name)] = len(self.names) - 1
        return len(self.names) - 1

    def add(self, case: int, repeat: int, score: float | None) -> None:
        self._case.append(case)
        self._repeat.append(repeat)
        self._score.append(_NAN if score is None else score)
        self.max_repeat = max(self.max_repeat, repeat)

    def result(self) -> RepeatConsistency | None:
        repeats = 1 + max(self.max_repeat, 0)
        if repeats < 2:
            return None
        n = len(self.names)
        rows = [_NAN] * (n * repeats)
        for c, r, s in zip(self._case, self._repeat, self._score, strict=True):
            rows[c * repeats + r] = s  # a later record of the same repeat wins
        order = sorted(range(n), key=lambda i: (self.suites[self.suite_of[i]], self.names[i]))
        matrix = array("d")
        suite_of = array("q")
        names: list[str] = []
        for i in order:
            matrix.extend(rows[i * repeats:(i + 1) * repeats])
            suite_of.append(self.suite_of[i])
            names.append(self.names[i])
        del rows
        table = RepeatRows(repeats, self.suites, suite_of, names, matrix)
        units = [table.row(i) for i in range(n)]
        complete = [[float(x) for x in u if x is not None] for u in units
                    if all(x is not None for x in u)]
        alpha = krippendorff_alpha(units, "interval")
        del units
        return RepeatConsistency(repeats=repeats, cases=table, alpha=alpha,
                                 icc=icc(complete) if len(complete) >= 2 else None)


@dataclass(frozen=True, slots=True)
class SpeedRow:
    suite: str
    case_name: str
    repeat: int
    expected_words: int | None
    output_words: int
    output_tokens: int
    latency_s: float | None
    time_to_first_token_s: float | None
    words_per_second: float | None
    length_adherence: float | None


_SPEED_FIELDS = 7


class SpeedRows(_Rows, Sequence[SpeedRow]):
    """The inference-speed rows of a run, in record order, kept as compact numbers."""

    def __init__(self) -> None:
        self._suites: list[str] = []
        self._suite_of = array("q")
        self._names: list[str] = []
        self._repeats = array("q")
        self._values = array("d")

    def append(self, row: SpeedRow) -> None:
        if not self._suites or self._suites[-1] != row.suite:
            self._suites.append(row.suite)
        self._suite_of.append(len(self._suites) - 1)
        self._names.append(row.case_name)
        self._repeats.append(row.repeat)
        self._values.extend(_NAN if v is None else float(v) for v in (
            row.expected_words, row.output_words, row.output_tokens, row.latency_s,
            row.time_to_first_token_s, row.words_per_second, row.length_adherence))

    def __len__(self) -> int:
        return len(self._names)

    def _row(self, i: int) -> SpeedRow:
        v = [None if math.isnan(x) else x
             for x in self._values[i * _SPEED_FIELDS:(i + 1) * _SPEED_FIELDS]]
        return SpeedRow(self._suites[self._suite_of[i]], self._names[i], self._repeats[i],
                        None if v[0] is None else int(v[0]), int(v[1] or 0), int(v[2] or 0),
                        v[3], v[4], v[5], v[6])

    @overload
    def __getitem__(self, index: int) -> SpeedRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[SpeedRow]: ...

    def __getitem__(self, index: int | slice) -> SpeedRow | list[SpeedRow]:
        if isinstance(index, slice):
            return [self._row(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("speed row index out of range")
        return self._row(index)

    def __iter__(self) -> Iterator[SpeedRow]:
        return (self._row(i) for i in range(len(self)))

    def points(self) -> Iterator[tuple[float, float]]:
        """(output words, latency) of the rows with a (non-zero) latency, in order."""
        v = self._values
        for i in range(len(self)):
            latency = v[i * _SPEED_FIELDS + 3]
            if latency and not math.isnan(latency):
                yield v[i * _SPEED_FIELDS + 1], latency
