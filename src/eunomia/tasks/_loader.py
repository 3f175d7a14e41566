"""Loading task suites: both published shapes, one clear diagnostic per problem.

A file that is not valid YAML gives exactly one error naming the file, the line and the
cause, and the other files still load. A case that cannot be used (a wrong field, no
instruction, an unknown category) is reported with its key path and line and left out;
the rest of its file still runs (:mod:`eunomia.tasks._case_passes`).

Suites are streamed: the file is parsed one case at a time (libyaml's events, each case
composed and checked on its own), so loading holds no more than one case and what it
reports. A loaded :class:`TaskSuite` keeps no case either: each pass over
:attr:`TaskSuite.cases` reads the file again (and fails clearly if it changed since).
Files of an unusual layout (``metadata`` after ``test_cases``, a key given twice, tags or
anchors on the top-level collections) are read whole instead, with the same results.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from eunomia import defaults
from eunomia.errors import Diagnostic, EunomiaError, error
from eunomia.judge import Rubric
from eunomia.tasks._case_passes import (
    CaseChecker,
    CasePass,
    Doc,
    Layout,
    Spool,
    diag,
    file_stat,
    validation,
)
from eunomia.tasks._labels import human_scores, unknown_cases
from eunomia.tasks._model import SuiteFile, TaskSuite
from eunomia.tasks._stream import Fallback, ItemDoc, Loc, Stream
from eunomia.tasks.categories import TaskCategory, category_for, category_for_file
from eunomia.yamlfile import YamlFileError, read_yaml


def _rubric(doc: Doc, meta: dict[str, Any]) -> tuple[str | None, str | None,
                                                     list[Diagnostic]]:
    ref = meta.get("rubric")
    if ref is None:
        return None, None, []
    loc: Loc = ("metadata", "rubric")
    if not isinstance(ref, str) or not ref.strip():
        return None, None, [diag(doc, loc, "rubric must be the path of a text file")]
    path = (doc.path.parent / ref).resolve()
    try:
        rubric = Rubric.load(path)
    except EunomiaError as exc:
        return None, None, [diag(doc, loc, exc.message)]
    return rubric.template.text, str(path), []


def _load_streamed(path: Path, name: str) -> tuple[TaskSuite | None, list[Diagnostic]]:
    """The streaming loading pass; raises :class:`Fallback` (or a YAML error) when the
    file is to be read whole."""
    size, mtime = file_stat(path)
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
        checker = CaseChecker(prefix, file_category, problems, human=_human(path, problems))
        spool = Spool()
        for index, item, line in stream.items():
            case = checker.check(stream.item_doc((*prefix, index)), index, item, line)
            if case is not None:
                spool.add(case)
        spool.close()
        stream.finish()
        shape = stream.shape
        top_level = stream.top
    layout = Layout(prefix, size, mtime)
    return _suite(path, name, shape, top_level, (rubric_text, rubric_path), layout, file_category,
                  checker, problems, spool), problems


def _suite(path: Path, name: str, shape: str, top_level: dict[str, Any],
           rubric: tuple[str | None, str | None], layout: Layout,
           file_category: TaskCategory | None, checker: CaseChecker,
           problems: list[Diagnostic], spool: Spool | None = None) -> TaskSuite:
    """The loaded suite of either loading pass (``checker`` has seen every case)."""
    if checker.count == 0 and not checker.invalid:
        problems.append(error(path, "the suite has no test cases"))
    if checker.human:
        problems += unknown_cases(path, name_of(path), checker.seen)
    source = CasePass(path.absolute(), layout, file_category, frozenset(checker.skipped), spool,
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
        size, mtime = file_stat(path)
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
            return None, validation(doc, (), exc)
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
    checker = CaseChecker(prefix, file_category, problems, human=_human(path, problems))
    for index, item in enumerate(items):
        checker.check(doc, index, item, doc.line_of((*prefix, index)))
    return _suite(path, name, shape, top_level, (rubric_text, rubric_path),
                  Layout(prefix, size, mtime), file_category, checker,
                  problems), problems


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


def _clearer(found: Diagnostic) -> Diagnostic:
    """Point a "could not find expected ':'" error at the line that causes it, and say why."""
    if _SIMPLE_KEY not in found.message or found.file is None:
        return found
    try:
        yaml.safe_load(found.file.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.context_mark
        if mark is not None:
            return Diagnostic(
                found.severity, found.file,
                "invalid YAML: this line is read as a new key but has no ':' — a continuation "
                "line of a multi-line value must be indented more than its key (or quote the "
                "value, or use '>' / '|')", "", mark.line + 1, mark.column + 1)
    except (OSError, yaml.YAMLError):
        pass
    return found


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
