"""Loading task suites: both published shapes, one clear diagnostic per problem.

A file that is not valid YAML gives exactly one error naming the file, the line and the
cause, and the other files still load. A case that cannot be used (a wrong field, no
instruction, an unknown category) is reported with its key path and line and left out;
the rest of its file still runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eunomia import defaults
from eunomia.errors import Diagnostic, EunomiaError, Severity, error, key_path
from eunomia.judge import Rubric
from eunomia.tasks._model import LoadedCase, SuiteFile, TaskCase, TaskSuite
from eunomia.tasks.kinds import TaskKind, kind_for_category, kind_for_file, kinds
from eunomia.yamlfile import YamlDocument, YamlFileError, read_yaml

Loc = tuple[int | str, ...]


def _diag(doc: YamlDocument, loc: Loc, message: str,
          severity: Severity = Severity.ERROR) -> Diagnostic:
    return Diagnostic(severity, doc.path, message, key_path(loc), doc.line_of(loc))


def _validation(doc: YamlDocument, loc: Loc, exc: ValidationError) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for err in exc.errors(include_url=False):
        where = (*loc, *err["loc"])
        msg = err["msg"]
        if err["type"] not in ("missing", "extra_forbidden"):
            shown = repr(err.get("input"))
            msg += f" (got {shown if len(shown) <= 60 else shown[:57] + '...'})"
        out.append(_diag(doc, where, msg))
    return out


def _known_categories() -> str:
    return ", ".join(k.title for k in kinds())


def _rubric(doc: YamlDocument, meta: dict[str, Any]) -> tuple[str | None, str | None,
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


def load_suite(path: Path, name: str | None = None) -> tuple[TaskSuite | None, list[Diagnostic]]:
    """Read one suite file. Returns None (and the reason) when nothing in it can run."""
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
    file_kind = kind_for_category(str(meta.get("category") or "")) or kind_for_file(path)
    cases: list[LoadedCase] = []
    invalid: list[tuple[str, str]] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        loc: Loc = (*prefix, index)
        fallback = f"case_{index + 1}"
        if not isinstance(item, dict):
            problems.append(_diag(doc, loc, "a test case must be a mapping of fields"))
            invalid.append((fallback, "not a mapping"))
            continue
        try:
            case = TaskCase.model_validate(item)
        except ValidationError as exc:
            found = _validation(doc, loc, exc)
            problems += found
            invalid.append((str(item.get("case_id") or item.get("id") or fallback),
                            found[0].message))
            continue
        ident = case.case_id if case.case_id is not None else case.id
        case_name = str(ident).strip() if ident is not None and str(ident).strip() else fallback
        kind: TaskKind | None = kind_for_category(case.category) or file_kind
        reason: str | None = None
        if kind is None:
            reason = (f"unknown category {case.category!r} and no kind in the file name "
                      f"(known: {_known_categories()})")
            problems.append(_diag(doc, (*loc, "category"), reason))
        elif case.category and kind_for_category(case.category) is None:
            problems.append(_diag(doc, (*loc, "category"),
                                  f"unknown category {case.category!r}: run as "
                                  f"{kind.title} (from the file)", Severity.WARNING))
        if kind is not None and reason is None:
            reason = kind.requires(case)
            if reason is not None:
                problems.append(_diag(doc, loc, reason))
        if reason is None and case_name in seen:
            reason = f"duplicate case_id {case_name!r}"
            problems.append(_diag(doc, loc, reason))
        if reason is not None or kind is None:
            invalid.append((case_name, reason or "unusable"))
            continue
        seen.add(case_name)
        cases.append(LoadedCase(
            name=case_name, kind=kind.name, index=index, line=doc.line_of(loc), case=case,
            raw_json=json.dumps(item, ensure_ascii=False, default=str),
        ))
    if not cases and not invalid:
        problems.append(error(path, "the suite has no test cases"))
    suite = TaskSuite(
        name=name_of(path) if name is None else name, path=str(path), shape=shape,
        top_level_json=json.dumps(top_level, ensure_ascii=False, default=str),
        rubric=rubric_text, rubric_path=rubric_path, cases=cases, invalid=invalid,
    )
    return suite, problems


_SIMPLE_KEY = "could not find expected ':'"


def _clearer(diag: Diagnostic) -> Diagnostic:
    """Point a "could not find expected ':'" error at the line that causes it, and say why."""
    if _SIMPLE_KEY not in diag.message or diag.file is None:
        return diag
    import yaml

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
                    if f.is_file() and f.suffix.lower() in defaults.TASK_SUITE_EXTENSIONS)
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
