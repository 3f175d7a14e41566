"""The passes over a task suite's cases, item by item.

The loading pass checks each item of the case list (:meth:`CaseChecker.check`): a case that
cannot be used (a wrong field, no instruction, an unknown category, a duplicate id) is
reported with its key path and line and left out. A loaded suite keeps no case: every later
pass (:class:`CasePass`) builds the accepted ones again, from the spool the streaming loading
pass wrote (:class:`Spool`) or from the file, and refuses a file changed since it was loaded.
"""

from __future__ import annotations

import json
import os
import tempfile
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
from pydantic import ValidationError

from eunomia import defaults
from eunomia.bounds import NULL_ID
from eunomia.errors import Diagnostic, EunomiaError, Severity, key_path
from eunomia.tasks._model import Entry, LoadedCase, TaskCase
from eunomia.tasks._snapshot import loaded_case
from eunomia.tasks._stream import ItemDoc, Loc
from eunomia.tasks.categories import TaskCategory, categories, category_for
from eunomia.tasks.checks import RESOLVE
from eunomia.yamlfile import YamlDocument, YamlFileError, read_yaml

Doc = YamlDocument | ItemDoc
_RESOLVE = {RESOLVE: True}


def diag(doc: Doc, loc: Loc, message: str,
         severity: Severity = Severity.ERROR) -> Diagnostic:
    """A problem at ``loc`` of ``doc``: its file, key path and line."""
    return Diagnostic(severity, doc.path, message, key_path(loc), doc.line_of(loc))


def validation(doc: Doc, loc: Loc, exc: ValidationError) -> list[Diagnostic]:
    """One diagnostic per error pydantic found in what ``loc`` holds."""
    out: list[Diagnostic] = []
    for err in exc.errors(include_url=False):
        where = (*loc, *err["loc"])
        msg = err["msg"]
        if err["type"] == "value_error":  # our own validators say what they got
            msg = msg.removeprefix("Value error, ")
        elif err["type"] not in ("missing", "extra_forbidden"):
            shown = repr(err.get("input"))
            msg += f" (got {shown if len(shown) <= 60 else shown[:57] + '...'})"
        out.append(diag(doc, where, msg))
    return out


def _known_categories() -> str:
    return ", ".join(k.title for k in categories())


@dataclass(slots=True)
class CaseChecker:
    """Turns the items of a suite's case list into :class:`LoadedCase` objects, reporting
    (and leaving out) the unusable ones. The same code serves the loading pass (which
    reports) and every later pass (which skips the items the loading pass left out)."""

    prefix: Loc
    file_category: TaskCategory | None
    problems: list[Diagnostic] | None = None
    """Where diagnostics go (None: a later pass, which reports nothing)."""
    invalid: list[tuple[str, str]] = field(default_factory=list)
    skipped: set[int] = field(default_factory=set)
    """Indices of the items left out (the loading pass fills it; later passes use it)."""
    seen: set[str] = field(default_factory=set)
    count: int = 0
    human: dict[str, float] = field(default_factory=dict)
    """Human scores given with ``eunomia label`` (labels.yml beside the suite), by case."""

    def _report(self, found: Diagnostic | list[Diagnostic]) -> None:
        if self.problems is not None:
            if isinstance(found, list):
                self.problems += found
            else:
                self.problems.append(found)

    def _scored(self, doc: Doc | None, loc: Loc, name: str, case: TaskCase,
                item: dict[str, Any]) -> tuple[TaskCase, dict[str, Any]]:
        """The case with the human score labels.yml gives it (which wins over its own)."""
        score = self.human.get(name)
        if score is None:
            return case, item
        if doc is not None and case.human_score is not None and case.human_score != score:
            self._report(diag(doc, (*loc, "human_score"), f"human_score {case.human_score:g} "
                               f"here and {score:g} in {defaults.LABELS_FILE}: "
                               f"{defaults.LABELS_FILE}'s is used", Severity.WARNING))
        return case.model_copy(update={"human_score": score}), {**item, "human_score": score}

    def _skip(self, index: int, name: str, reason: str) -> None:
        self.invalid.append((name, reason))
        self.skipped.add(index)

    def check(self, doc: Doc, index: int, item: Any, line: int | None) -> LoadedCase | None:
        loc: Loc = (*self.prefix, index)
        fallback = f"case_{index + 1}"
        if not isinstance(item, dict):
            self._report(diag(doc, loc, "a test case must be a mapping of fields"))
            self._skip(index, fallback, "not a mapping")
            return None
        empty = next((k for k in ("case_id", "id") if k in item and item[k] is None), None)
        if empty is not None:  # written without a value: not "no id", an empty one
            found = [diag(doc, (*loc, empty), NULL_ID)]
            self._report(found)
            self._skip(index, _usable_name(item, fallback), found[0].message)
            return None
        try:  # (checks of your own are imported now, so a bad one is said here)
            case = TaskCase.model_validate(item, context=_RESOLVE)
        except ValidationError as exc:
            found = validation(doc, loc, exc)
            self._report(found)
            self._skip(index, _usable_name(item, fallback), found[0].message)
            return None
        ident = case.case_id if case.case_id is not None else case.id
        case_name = str(ident).strip() if ident is not None and str(ident).strip() else fallback
        runs_as: TaskCategory | None = category_for(case.category) or self.file_category
        reason: str | None = None
        if runs_as is None:
            reason = (f"unknown category {case.category!r} and no category in the file name "
                      f"(known: {_known_categories()})")
            self._report(diag(doc, (*loc, "category"), reason))
        elif case.category and category_for(case.category) is None:
            self._report(diag(doc, (*loc, "category"),
                               f"unknown category {case.category!r}: run as "
                               f"{runs_as.title} (from the file)", Severity.WARNING))
        if runs_as is not None and reason is None:
            reason = runs_as.requires(case)
            if reason is not None:
                self._report(diag(doc, loc, reason))
        if reason is None and case_name in self.seen:
            reason = f"duplicate case_id {case_name!r}"
            self._report(diag(doc, loc, reason))
        if reason is not None or runs_as is None:
            self._skip(index, case_name, reason or "unusable")
            return None
        self.seen.add(case_name)
        self.count += 1
        case, item = self._scored(doc, loc, case_name, case, item)
        return LoadedCase(
            name=case_name, kind=runs_as.name, index=index, line=line, case=case,
            raw_json=json.dumps(item, ensure_ascii=False, default=str),
        )

    def again(self, path: Path, index: int, item: Any, line: int | None) -> LoadedCase:
        """A later pass: the item the loading pass accepted at ``index``, built again."""
        if not isinstance(item, dict):
            raise _changed(path)
        try:
            case = TaskCase.model_validate(item)
        except ValidationError:
            raise _changed(path) from None
        ident = case.case_id if case.case_id is not None else case.id
        name = str(ident).strip() if ident is not None and str(ident).strip() \
            else f"case_{index + 1}"
        runs_as = category_for(case.category) or self.file_category
        if runs_as is None:
            raise _changed(path)
        case, item = self._scored(None, (), name, case, item)
        return LoadedCase(
            name=name, kind=runs_as.name, index=index, line=line, case=case,
            raw_json=json.dumps(item, ensure_ascii=False, default=str),
        )


def _usable_name(item: dict[Any, Any], fallback: str) -> str:
    """The name of an item that could not be loaded: its id when that is one (text or a whole
    number), else ``fallback`` (never "nan", "False" or "")."""
    for key in ("case_id", "id"):
        value = item.get(key)
        if (isinstance(value, str) and value.strip()) or \
                (isinstance(value, int) and not isinstance(value, bool)):
            return str(value).strip()
    return fallback


def _changed(path: Path) -> EunomiaError:
    return EunomiaError(f"{path} changed since it was loaded; run again to load it anew")


def file_stat(path: Path) -> tuple[int, int]:
    """A file's size and modification time: a later pass refuses a changed file."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


@dataclass(frozen=True, slots=True)
class Layout:
    """What the loading pass learnt of a file, for the later passes."""

    prefix: Loc
    """Where the cases are: ``()`` (a list) or ``("test_cases",)`` (a mapping)."""
    size: int
    mtime_ns: int
    """The file as loaded: a later pass refuses a changed file."""


class Spool:
    """The usable cases of a streamed loading pass, one JSON line each in a temporary file
    (deleted with this object): the later passes read them back instead of parsing the
    YAML again, in bounded memory."""

    def __init__(self) -> None:
        fd, name = tempfile.mkstemp(prefix="eunomia-suite-", suffix=".jsonl")
        self.path = Path(name)
        self._out: IO[bytes] | None = os.fdopen(fd, "wb")
        self._cleanup = weakref.finalize(self, _remove, self.path)

    def add(self, case: LoadedCase) -> None:
        assert self._out is not None
        self._out.write(orjson.dumps([case.name, case.kind, case.index, case.line,
                                      case.raw_json]) + b"\n")

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def __iter__(self) -> Iterator[LoadedCase]:
        for entry in self.entries():
            yield loaded_case(entry)

    def entries(self) -> Iterator[Entry]:
        """The spooled cases as written, not built again."""
        with self.path.open("rb") as lines:
            for line in lines:
                name, kind, index, at, raw = orjson.loads(line)
                yield name, kind, index, at, raw


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class CasePass:
    """A new pass over a loaded suite's usable cases, from its file (a :data:`CaseSource`;
    the path made absolute at loading, so a change of working folder does not matter), or
    from the spool the loading pass wrote (the file is still checked for a change)."""

    path: Path
    layout: Layout
    file_category: TaskCategory | None
    skipped: frozenset[int]
    spool: Spool | None = None
    human: tuple[tuple[str, float], ...] = ()

    def _check(self) -> None:
        try:
            if file_stat(self.path) != (self.layout.size, self.layout.mtime_ns):
                raise _changed(self.path)
        except OSError:
            raise _changed(self.path) from None

    def entries(self) -> Iterator[Entry]:
        """The cases as :data:`Entry` s: from the spool without building them again."""
        if self.spool is None:
            for case in self():
                yield case.name, case.kind, case.index, case.line, case.raw_json
            return
        self._check()
        yield from self.spool.entries()

    def __call__(self) -> Iterator[LoadedCase]:
        self._check()
        if self.spool is not None:
            yield from self.spool
            return
        checker = CaseChecker(self.layout.prefix, self.file_category, human=dict(self.human))
        try:
            doc = read_yaml(self.path)
        except YamlFileError:
            raise _changed(self.path) from None
        data = doc.data
        items = data if isinstance(data, list) else \
            (data.get("test_cases") or []) if isinstance(data, dict) else []
        for index, item in enumerate(items):
            if index not in self.skipped:
                yield checker.again(self.path, index, item,
                                    doc.line_of((*self.layout.prefix, index)))

