"""The snapshot of a task suite in the run store, written and read in chunks.

A run stores each suite it ran (``suites.definition``) so its result files can be written
again from the store alone. The snapshot is a small header (what describes the file, its
unusable cases, the hashes of its chunks) and chunks of
:data:`eunomia.defaults.TASK_SNAPSHOT_CHUNK_CASES` cases each, every one a blob of its own:
writing and reading a suite of any size holds one chunk at a time.

Older stores hold the whole suite as one document (:class:`eunomia.tasks.StoredSuite`);
:func:`read_suite` reads both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from eunomia import defaults
from eunomia.store import RunInfo, RunStore, SuiteInfo
from eunomia.tasks._model import Entry, EntrySource, LoadedCase, SuiteFields, TaskCase, TaskSuite
from eunomia.tasks._records import CaseMeta

SNAPSHOT_FORMAT = "eunomia.task-suite.chunked/1"


class SuiteHeader(SuiteFields):
    """The stored header of a suite snapshot (``suites.definition``)."""

    format: Literal["eunomia.task-suite.chunked/1"]
    cases: int
    """Usable cases, over all chunks."""
    chunks: list[str]
    """Blob hashes of the chunks, in file order: each a JSON list of :data:`Entry`."""


def write_snapshot(store: RunStore, run: RunInfo, suite: TaskSuite, prices: Any) -> TaskSuite:
    """Store ``suite`` (one pass over its cases) and its price table for ``run``; the suite
    as read back from the store (its passes read the stored chunks, not the file)."""
    size = defaults.TASK_SNAPSHOT_CHUNK_CASES
    chunks: list[str] = []
    chunk: list[Entry] = []
    count = 0
    for entry in iter_entries(suite):  # copied, not built: each case was checked at loading
        chunk.append(entry)
        count += 1
        if len(chunk) >= size:
            chunks.append(store.put_json(chunk))
            chunk = []
    if chunk:
        chunks.append(store.put_json(chunk))
    header = SuiteHeader(
        format=SNAPSHOT_FORMAT, name=suite.name, path=suite.path, shape=suite.shape,
        top_level_json=suite.top_level_json, rubric=suite.rubric,
        rubric_path=suite.rubric_path, cases=count, invalid=list(suite.invalid),
        chunks=chunks)
    store.add_suite(run, suite.name, suite.path, header.model_dump(mode="json"), prices)
    return _from_header(store, header)


@dataclass(frozen=True, slots=True)
class StoredCases:
    """A pass over the cases of a stored snapshot (a :data:`eunomia.tasks.CaseSource`)."""

    store: RunStore
    chunks: tuple[str, ...]

    def entries(self) -> Iterator[Entry]:
        """The stored cases without building them: name, kind, index, line, JSON text."""
        for digest in self.chunks:
            for name, kind, index, line, raw in self.store.get_json(digest):
                entry: Entry = (name, kind, index, line, raw)
                yield entry

    def __call__(self) -> Iterator[LoadedCase]:
        for entry in self.entries():
            yield loaded_case(entry)


def loaded_case(entry: Entry) -> LoadedCase:
    name, kind, index, line, raw = entry
    # the JSON text as it was written (json.dumps of the loaded item): pydantic reads it
    # as json.loads would, in one step
    return LoadedCase(name=name, kind=kind, index=index, line=line,
                      case=TaskCase.model_validate_json(raw), raw_json=raw)


def _from_header(store: RunStore, header: SuiteHeader) -> TaskSuite:
    return TaskSuite(
        name=header.name, path=header.path, shape=header.shape,
        top_level_json=header.top_level_json, rubric=header.rubric,
        rubric_path=header.rubric_path, source=StoredCases(store, tuple(header.chunks)),
        case_count=header.cases, invalid=header.invalid)


def read_suite(store: RunStore, info: SuiteInfo) -> TaskSuite:
    """A suite as ``run`` stored it (either snapshot format)."""
    data = store.get_json(info.definition)
    if isinstance(data, dict) and data.get("format") == SNAPSHOT_FORMAT:
        return _from_header(store, SuiteHeader.model_validate(data))
    return TaskSuite.from_json(data)


def iter_entries(suite: TaskSuite) -> Iterator[Entry]:
    """The cases of ``suite`` as entries: without building them when it is stored."""
    if isinstance(suite.source, EntrySource):  # stored, or spooled by the loading pass
        yield from suite.source.entries()
        return
    for case in suite.cases:
        yield case.name, case.kind, case.index, case.line, case.raw_json


_META_FIELDS = ("category", "sub_category", "difficulty_level", "human_score")
"""The fields of a case its :class:`CaseMeta` is made of (with its kind)."""
_METAS_KEPT = 4096


def _hashable(value: Any) -> Any:
    """``value`` (a JSON value) as a key: its type kept (``1`` is not ``1.0`` or ``True``)."""
    if type(value) is list:
        return list, tuple((type(x), x) for x in value)
    return type(value), value


class EntryMetas:
    """The :class:`CaseMeta` of stored entries, each distinct one validated once.

    A meta depends on the entry's kind and four fields of the case, each validated by
    itself (no validator of :class:`TaskCase` looks at two fields): the cases that give
    the same values share one meta, made by validating those fields alone, so the whole
    case is neither parsed as a model nor validated for it (an export reads every case).
    Equal metas are shared (``shared``, as :meth:`CaseMeta.of`).
    """

    def __init__(self, shared: dict[CaseMeta, CaseMeta] | None = None) -> None:
        self.shared: dict[CaseMeta, CaseMeta] = {} if shared is None else shared
        self._known: dict[tuple[Any, ...], CaseMeta] = {}

    def of(self, entry: Entry, raw: dict[str, Any] | None = None) -> CaseMeta:
        """The meta of ``entry`` (``raw``: its case, parsed, when the caller has it)."""
        case = json.loads(entry[4]) if raw is None else raw
        try:
            key = (entry[1], *(_hashable(case.get(k)) for k in _META_FIELDS))
            found = self._known.get(key)
        except (TypeError, AttributeError):  # an unhashable value (invalid), not a mapping
            return CaseMeta.of(loaded_case(entry), self.shared)
        if found is None:
            fields = TaskCase.model_validate({k: case[k] for k in _META_FIELDS if k in case})
            found = CaseMeta.of(LoadedCase(name=entry[0], kind=entry[1], index=entry[2],
                                           line=entry[3], case=fields, raw_json=entry[4]),
                                self.shared)
            if len(self._known) >= _METAS_KEPT:
                self._known.clear()
            self._known[key] = found
        return found
