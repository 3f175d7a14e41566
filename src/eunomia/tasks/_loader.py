"""Loading task suites: both published shapes, one clear diagnostic per problem.

A file that is not valid YAML gives exactly one error naming the file, the line and the
cause, and the other files still load. A case that cannot be used (a wrong field, no
instruction, an unknown category) is reported with its key path and line and left out;
the rest of its file still runs.

Suites are streamed: the file is parsed one case at a time (libyaml's events, each case
composed and checked on its own), so loading holds no more than one case and what it
reports. A loaded :class:`TaskSuite` keeps no case either: each pass over
:attr:`TaskSuite.cases` reads the file again (and fails clearly if it changed since).
Files of an unusual layout (``metadata`` after ``test_cases``, a key given twice, tags or
anchors on the top-level collections) are read whole instead, with the same results.
"""

from __future__ import annotations

import json
import os
import tempfile
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
import yaml
from pydantic import ValidationError

from eunomia import defaults
from eunomia.bounds import NULL_ID
from eunomia.errors import Diagnostic, EunomiaError, Severity, error, key_path
from eunomia.judge import Rubric
from eunomia.tasks._labels import human_scores, unknown_cases
from eunomia.tasks._model import Entry, LoadedCase, SuiteFile, TaskCase, TaskSuite
from eunomia.tasks._snapshot import loaded_case
from eunomia.tasks._stream import Fallback, ItemDoc, Loc, Stream
from eunomia.tasks.categories import TaskCategory, categories, category_for, category_for_file
from eunomia.tasks.checks import RESOLVE
from eunomia.yamlfile import YamlDocument, YamlFileError, read_yaml

Doc = YamlDocument | ItemDoc
_RESOLVE = {RESOLVE: True}


def _diag(doc: Doc, loc: Loc, message: str,
          severity: Severity = Severity.ERROR) -> Diagnostic:
    return Diagnostic(severity, doc.path, message, key_path(loc), doc.line_of(loc))


def _validation(doc: Doc, loc: Loc, exc: ValidationError) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for err in exc.errors(include_url=False):
        where = (*loc, *err["loc"])
        msg = err["msg"]
        if err["type"] == "value_error":  # our own validators say what they got
            msg = msg.removeprefix("Value error, ")
        elif err["type"] not in ("missing", "extra_forbidden"):
            shown = repr(err.get("input"))
            msg += f" (got {shown if len(shown) <= 60 else shown[:57] + '...'})"
        out.append(_diag(doc, where, msg))
    return out


def _known_categories() -> str:
    return ", ".join(k.title for k in categories())


def _rubric(doc: Doc, meta: dict[str, Any]) -> tuple[str | None, str | None,
                                                     list[Diagnostic]]:
    ref = meta.get("rubric")
    if ref is None:
        return None, None, []
    loc: Loc = ("metadata", "rubric")
    if not isinstance(ref, str) or not ref.strip():
        return None, None, [_diag(doc, loc, "rubric must be the path of a text file")]
    path = (doc.path.parent / ref).resolve()
    try:
        rubric = Rubric.load(path)
    except EunomiaError as exc:
        return None, None, [_diag(doc, loc, exc.message)]
    return rubric.template.text, str(path), []


# --- one case -------------------------------------------------------------------------------
@dataclass(slots=True)
class _Checker:
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
            self._report(_diag(doc, (*loc, "human_score"), f"human_score {case.human_score:g} "
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
            self._report(_diag(doc, loc, "a test case must be a mapping of fields"))
            self._skip(index, fallback, "not a mapping")
            return None
        empty = next((k for k in ("case_id", "id") if k in item and item[k] is None), None)
        if empty is not None:  # written without a value: not "no id", an empty one
            found = [_diag(doc, (*loc, empty), NULL_ID)]
            self._report(found)
            self._skip(index, _usable_name(item, fallback), found[0].message)
            return None
        try:  # (checks of your own are imported now, so a bad one is said here)
            case = TaskCase.model_validate(item, context=_RESOLVE)
        except ValidationError as exc:
            found = _validation(doc, loc, exc)
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
            self._report(_diag(doc, (*loc, "category"), reason))
        elif case.category and category_for(case.category) is None:
            self._report(_diag(doc, (*loc, "category"),
                               f"unknown category {case.category!r}: run as "
                               f"{runs_as.title} (from the file)", Severity.WARNING))
        if runs_as is not None and reason is None:
            reason = runs_as.requires(case)
            if reason is not None:
                self._report(_diag(doc, loc, reason))
        if reason is None and case_name in self.seen:
            reason = f"duplicate case_id {case_name!r}"
            self._report(_diag(doc, loc, reason))
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


def _stat(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _load_streamed(path: Path, name: str) -> tuple[TaskSuite | None, list[Diagnostic]]:
    """The streaming loading pass; raises :class:`Fallback` (or a YAML error) when the
    file is to be read whole."""
    size, mtime = _stat(path)
    problems: list[Diagnostic] = []
    with Stream(path) as stream:
        if not stream.start():
            raise Fallback  # empty: said by the whole reading
        top_doc = ItemDoc(path, lambda: stream.lines)
        if stream.shape == "mapping":
            try:
                SuiteFile.model_validate({**stream.top, "test_cases": []})
            except ValidationError:
                raise Fallback from None
        # without metadata so far, none may come after the cases: finish() checks it
        meta = stream.top.get("metadata") if isinstance(stream.top.get("metadata"), dict) \
            else {}
        assert isinstance(meta, dict)
        rubric_text, rubric_path, rubric_problems = _rubric(top_doc, meta)
        if rubric_problems:  # the suite asked for its own rubric: never judge it with another
            return None, rubric_problems
        file_category = category_for(str(meta.get("category") or "")) or category_for_file(path)
        prefix: Loc = ("test_cases",) if stream.shape == "mapping" else ()
        checker = _Checker(prefix, file_category, problems, human=_human(path, problems))
        spool = Spool()
        for index, item, line in stream.items():
            case = checker.check(stream.item_doc((*prefix, index)), index, item, line)
            if case is not None:
                spool.add(case)
        spool.close()
        stream.finish()
        shape = stream.shape
        top_level = stream.top
    layout = _Layout(prefix, size, mtime)
    return _suite(path, name, shape, top_level, (rubric_text, rubric_path), layout, file_category,
                  checker, problems, spool), problems


def _suite(path: Path, name: str, shape: str, top_level: dict[str, Any],
           rubric: tuple[str | None, str | None], layout: _Layout,
           file_category: TaskCategory | None, checker: _Checker,
           problems: list[Diagnostic], spool: Spool | None = None) -> TaskSuite:
    """The loaded suite of either loading pass (``checker`` has seen every case)."""
    if checker.count == 0 and not checker.invalid:
        problems.append(error(path, "the suite has no test cases"))
    if checker.human:
        problems += unknown_cases(path, name_of(path), checker.seen)
    source = _Pass(path.absolute(), layout, file_category, frozenset(checker.skipped), spool,
                   tuple(checker.human.items()))
    return TaskSuite(
        name=name, path=str(path), shape=shape,  # type: ignore[arg-type]
        top_level_json=json.dumps(top_level, ensure_ascii=False, default=str),
        rubric=rubric[0], rubric_path=rubric[1], source=source,
        case_count=checker.count, invalid=checker.invalid,
    )


def _load_whole(path: Path, name: str) -> tuple[TaskSuite | None, list[Diagnostic]]:
    """Read the file whole (files the streaming reader leaves to it, and every error)."""
    try:
        size, mtime = _stat(path)
    except OSError:
        size, mtime = -1, -1
    try:
        doc = read_yaml(path)
    except YamlFileError as exc:
        return None, [_clearer(exc.diagnostic)]
    data = doc.data
    problems: list[Diagnostic] = []
    top_level: dict[str, Any] = {}
    prefix: Loc = ()
    if isinstance(data, list):
        shape = "list"
        items: list[Any] = data
    elif isinstance(data, dict) and "test_cases" in data:
        shape = "mapping"
        try:
            SuiteFile.model_validate(data)
        except ValidationError as exc:
            return None, _validation(doc, (), exc)
        items = data["test_cases"] or []
        prefix = ("test_cases",)
        top_level = {k: v for k, v in data.items() if k != "test_cases"}
    elif data is None:
        return None, [error(path, "the file is empty: expected a list of test cases")]
    else:
        return None, [error(path, "not a task suite: expected a list of test cases or a "
                                  "mapping with 'metadata' and 'test_cases'", line=1)]
    meta = top_level.get("metadata") if isinstance(top_level.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    rubric_text, rubric_path, rubric_problems = _rubric(doc, meta)
    if rubric_problems:  # the suite asked for its own rubric: never judge it with another
        return None, rubric_problems
    file_category = category_for(str(meta.get("category") or "")) or category_for_file(path)
    checker = _Checker(prefix, file_category, problems, human=_human(path, problems))
    for index, item in enumerate(items):
        checker.check(doc, index, item, doc.line_of((*prefix, index)))
    return _suite(path, name, shape, top_level, (rubric_text, rubric_path),
                  _Layout(prefix, size, mtime), file_category, checker,
                  problems), problems


@dataclass(frozen=True, slots=True)
class _Layout:
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
class _Pass:
    """A new pass over a loaded suite's usable cases, from its file (a :data:`CaseSource`;
    the path made absolute at loading, so a change of working folder does not matter), or
    from the spool the loading pass wrote (the file is still checked for a change)."""

    path: Path
    layout: _Layout
    file_category: TaskCategory | None
    skipped: frozenset[int]
    spool: Spool | None = None
    human: tuple[tuple[str, float], ...] = ()

    def _check(self) -> None:
        try:
            if _stat(self.path) != (self.layout.size, self.layout.mtime_ns):
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
        checker = _Checker(self.layout.prefix, self.file_category, human=dict(self.human))
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


def _human(path: Path, problems: list[Diagnostic]) -> dict[str, float]:
    """The human scores of the suite ``path`` from the labels.yml beside it."""
    scores, found = human_scores(path, name_of(path))
    problems += found
    return scores


def load_suite(path: Path, name: str | None = None) -> tuple[TaskSuite | None, list[Diagnostic]]:
    """Read one suite file. Returns None (and the reason) when nothing in it can run."""
    name = name_of(path) if name is None else name
    try:
        return _load_streamed(path, name)
    except (Fallback, yaml.YAMLError, UnicodeDecodeError, OSError, ValueError):
        return _load_whole(path, name)


_SIMPLE_KEY = "could not find expected ':'"


def _clearer(diag: Diagnostic) -> Diagnostic:
    """Point a "could not find expected ':'" error at the line that causes it, and say why."""
    if _SIMPLE_KEY not in diag.message or diag.file is None:
        return diag
    try:
        yaml.safe_load(diag.file.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.context_mark
        if mark is not None:
            return Diagnostic(
                diag.severity, diag.file,
                "invalid YAML: this line is read as a new key but has no ':' — a continuation "
                "line of a multi-line value must be indented more than its key (or quote the "
                "value, or use '>' / '|')", "", mark.line + 1, mark.column + 1)
    except (OSError, yaml.YAMLError):
        pass
    return diag


def name_of(path: Path) -> str:
    return path.stem


def discover(paths: Iterable[Path]) -> tuple[list[Path], list[Diagnostic]]:
    """Suite files: each path is a YAML file or a folder of them (not recursive)."""
    files: list[Path] = []
    problems: list[Diagnostic] = []
    for p in paths:
        try:
            if p.is_file():
                files.append(p)
            elif p.is_dir():
                found = sorted(
                    f for f in p.iterdir()
                    if f.is_file() and f.suffix.lower() in defaults.TASK_SUITE_EXTENSIONS
                    and f.name != defaults.LABELS_FILE)  # human scores, not a suite
                if not found:
                    problems.append(error(p, "no .yaml or .yml files in this folder"))
                files += found
            else:
                problems.append(error(p, "no such file or folder"))
        except OSError as exc:  # e.g. a name too long for the file system
            problems.append(error(p, f"cannot read: {exc.strerror or exc}"))
    unique: list[Path] = []
    for f in files:
        if f.resolve() not in {u.resolve() for u in unique}:
            unique.append(f)
    return unique, problems


def load_suites(paths: Sequence[Path]) -> tuple[list[TaskSuite], list[Diagnostic]]:
    """Every suite under ``paths``, with unique names, and every problem found."""
    files, problems = discover(paths)
    suites: list[TaskSuite] = []
    used: set[str] = set()
    for f in files:
        name = name_of(f)
        if name in used:
            name = f"{f.parent.name}_{name}"
        base, n = name, 2
        while name in used:
            name, n = f"{base}_{n}", n + 1
        suite, found = load_suite(f, name)
        problems += found
        if suite is not None:
            used.add(name)
            suites.append(suite)
    return suites, problems
