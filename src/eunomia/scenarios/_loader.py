"""Load a scenario folder: validate the manifest, map ids, compute expectations.

Problems are collected as diagnostics rather than raised one at a time, so
``eunomia validate`` lists them all. A scenario whose manifest is unusable is
returned as ``None``; a bad test case file is kept as an :class:`InvalidTestCase`
(reported as failed in the results) while the other cases still run.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

import orjson

from eunomia import defaults
from eunomia.errors import Diagnostic, Severity, error, has_errors, warning
from eunomia.scenarios._case_data import CaseDataReader
from eunomia.scenarios._labels import case_labels, labels_line, left_out_note, perfect_answer
from eunomia.scenarios._manifest import Manifest
from eunomia.scenarios._model import (
    Criterion,
    Exercise,
    Instruction,
    InvalidTestCase,
    Scenario,
    TestCase,
)
from eunomia.scenarios._mutations import UsableRule, check_rules, parse_rules
from eunomia.yamlfile import YamlDocument, YamlFileError, diag_at, read_yaml, validate_document


def exercise_id_for(name: str) -> int:
    """A stable positive exercise id derived from the scenario name."""
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF or 1


def inside(folder: Path, relative: str) -> Path | None:
    """``folder/relative`` if it stays inside ``folder`` (no ``..`` or absolute escapes)."""
    base = folder.resolve()
    candidate = (base / relative).resolve()
    return candidate if candidate.is_relative_to(base) else None


class _Build:
    """The steps of one load, sharing the document and the diagnostics list."""

    def __init__(self, folder: Path, doc: YamlDocument, manifest: Manifest) -> None:
        self.folder = folder
        self.doc = doc
        self.m = manifest
        self.diags: list[Diagnostic] = []

    def err(self, loc: tuple[int | str, ...], message: str) -> None:
        self.diags.append(diag_at(self.doc, loc, message))

    def warn(self, loc: tuple[int | str, ...], message: str) -> None:
        self.diags.append(diag_at(self.doc, loc, message, Severity.WARNING))

    def criteria(self) -> tuple[Criterion, ...]:
        criteria: list[Criterion] = []
        seen_criteria: dict[str, int] = {}
        seen_instructions: dict[str, tuple[int, int]] = {}
        next_instruction = 1
        for ci, c in enumerate(self.m.criteria):
            loc: tuple[int | str, ...] = ("criteria", ci)
            if c.id in seen_criteria:
                self.err(
                    (*loc, "id"),
                    f"duplicate criterion id {c.id!r} (also criteria[{seen_criteria[c.id]}])",
                )
            seen_criteria.setdefault(c.id, ci)
            for key in c.model_extra or {}:
                self.warn((*loc, key), f"unknown key {key!r} in a criterion is ignored")
            if not c.instructions:
                self.err((*loc, "instructions"), f"criterion {c.id!r} has no instructions")
            criterion_id = ci + 1
            instructions: list[Instruction] = []
            for ii, ins in enumerate(c.instructions or []):
                iloc = (*loc, "instructions", ii)
                if ins.id in seen_instructions:
                    a, b = seen_instructions[ins.id]
                    self.err(
                        (*iloc, "id"),
                        f"duplicate instruction id {ins.id!r} "
                        f"(also criteria[{a}].instructions[{b}])",
                    )
                else:
                    seen_instructions[ins.id] = (ci, ii)
                for key in ins.model_extra or {}:
                    self.warn((*iloc, key), f"unknown key {key!r} in an instruction is ignored")
                most = self.m.exercise.max_points + self.m.exercise.bonus_points
                if abs(ins.credits) > most:  # more than the whole exercise is worth
                    self.err((*iloc, "credits"),
                             f"instruction {ins.id!r} gives {ins.credits:g} credits, more than "
                             f"the exercise's max_points + bonus_points ({most:g})")
                instructions.append(
                    Instruction(
                        id=next_instruction,
                        textual_id=ins.id,
                        criterion_id=criterion_id,
                        credits=ins.credits,
                        grading_scale=ins.grading_scale,
                        instruction_description=ins.instruction_description,
                        feedback=ins.feedback,
                    )
                )
                next_instruction += 1
            criteria.append(Criterion(criterion_id, c.id, c.title, tuple(instructions)))
        return tuple(criteria)

    def example_solution(self) -> str | None:
        name = self.m.exercise.example_solution
        if not name:
            return None
        loc = ("exercise", "example_solution")
        target = inside(self.folder, name)
        if target is None:
            self.err(loc, f"{name!r} points outside the scenario folder; refused")
            return None
        try:
            return target.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            self.err(loc, f"file {name!r} not found in {self.folder}")
        except (OSError, UnicodeDecodeError) as exc:
            self.err(loc, f"cannot read {name!r}: {exc}")
        return None

    def expectations(
        self, by_textual: dict[str, Instruction], case_names: set[str]
    ) -> tuple[tuple[int, ...], dict[str, dict[int, int]]]:
        """Default expected ids, and per test case ``{default id: replacement id}``."""
        default: list[int] = []
        if self.m.default_expected is None:  # unlabelled: no expectation, so no diff either
            for original in self.m.test_case_diffs:
                self.err(("test_case_diffs", original), "test_case_diffs need default_expected "
                         "(this scenario has none: it is unlabelled)")
            return (), {}
        for i, tid in enumerate(self.m.default_expected):
            ins = by_textual.get(tid)
            if ins is None:
                self.err(("default_expected", i), f"unknown instruction id {tid!r}")
            elif ins.id in default:
                self.err(("default_expected", i), f"instruction {tid!r} listed twice")
            else:
                default.append(ins.id)
        if not self.m.default_expected:
            self.warn(("default_expected",), "default_expected is empty")

        diffs: dict[str, dict[int, int]] = {}
        for original, cases in self.m.test_case_diffs.items():
            loc: tuple[int | str, ...] = ("test_case_diffs", original)
            orig = by_textual.get(original)
            if orig is None:
                self.err(loc, f"unknown instruction id {original!r}")
            elif orig.id not in default:
                self.err(loc, f"instruction {original!r} is not in default_expected, so "
                              "no test case can replace it")
            for case_name, replacement in (cases or {}).items():
                cloc = (*loc, case_name)
                rep = by_textual.get(str(replacement))
                if rep is None:
                    self.err(cloc, f"unknown instruction id {replacement!r}")
                if case_name not in case_names:
                    self.warn(cloc, f"test case {case_name!r} has no file "
                                    f"{defaults.TEST_CASES_DIR}/{case_name}.json; diff ignored")
                if orig is None or rep is None or orig.id not in default:
                    continue
                if rep.criterion_id != orig.criterion_id:
                    self.warn(cloc, f"replacement {replacement!r} belongs to another criterion "
                                    f"than {original!r}")
                diffs.setdefault(str(case_name), {})[orig.id] = rep.id
        return tuple(default), diffs


def _parsed(text: str) -> Any:
    """The JSON text as the ``json`` module reads it, for the checks below (a mapping with a
    ``type`` and ``elements``): by orjson, several times faster, unless it refuses the text
    (NaN, invalid JSON: the ``json`` module then reads it, or names the error)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _read_cases(
    folder: Path, diags: list[Diagnostic]
) -> tuple[list[tuple[str, Path, str, str]], list[InvalidTestCase]] | None:
    cases_dir = folder / defaults.TEST_CASES_DIR
    if not cases_dir.is_dir():
        diags.append(error(cases_dir, "test_cases folder is missing"))
        return None
    good: list[tuple[str, Path, str, str]] = []
    bad: list[InvalidTestCase] = []
    # the folder is listed once (its entries' types come with the listing); only a
    # symbolic link, or a test_cases folder that is one, needs resolving to know where it
    # points
    linked_dir = inside(folder, cases_dir.name) is None
    files: list[Path] = []
    escaping: list[Path] = []
    with os.scandir(cases_dir) as listing:
        for entry in listing:
            if not entry.name.endswith(".json") or entry.name == ".json" \
                    or not entry.is_file():
                continue
            path = cases_dir / entry.name
            files.append(path)
            if (linked_dir or entry.is_symlink()) \
                    and inside(folder, f"{cases_dir.name}/{entry.name}") is None:
                escaping.append(path)
    files.sort(key=lambda p: p.name)  # one folder: the names' order is the paths' order
    if not files:
        diags.append(warning(cases_dir, "no test case files (*.json)"))
    for path in sorted(escaping):
        files.remove(path)  # a symbolic link out of the scenario folder is never read
        refused = "points outside the scenario folder (a symbolic link); refused"
        diags.append(error(path, f"{refused}; this test case is skipped and reported failed"))
        bad.append(InvalidTestCase(path.stem, path, refused))
    for path in files:
        reason: str | None = None
        diagram_type = ""
        try:
            # (bytes then decoded: ~15 µs a file, where read_text's decoder takes ~40)
            text = path.read_bytes().decode("utf-8-sig")
            data = _parsed(text)
        except UnicodeDecodeError as exc:
            reason = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        except json.JSONDecodeError as exc:
            reason = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        except OSError as exc:
            reason = f"cannot read file: {exc.strerror or exc}"
        else:
            if not isinstance(data, dict):
                reason = f"expected an Apollon diagram object, got a JSON {type(data).__name__}"
            else:
                diagram_type = str(data.get("type", ""))
                if diagram_type and "elements" not in data and "nodes" in data \
                        and "edges" in data:
                    diags.append(warning(path, "Apollon version 4 diagram (nodes and edges): "
                                               "the current Athena reads it, the legacy one "
                                               "does not, and Eunomia's report cannot draw "
                                               "it"))
                elif "elements" not in data or not diagram_type:
                    diags.append(warning(path, "does not look like an Apollon diagram "
                                               "(no 'type' or 'elements'); sent as is"))
                elif isinstance(data.get("elements"), list):
                    diags.append(warning(path, "Apollon version 2 diagram (arrays); "
                                               "Athena modules are known to fail on these"))
        if reason is None:
            good.append((path.stem, path, text, diagram_type))
        else:
            diags.append(error(path, f"{reason}; this test case is skipped and reported failed"))
            bad.append(InvalidTestCase(path.stem, path, reason))
    return good, bad


def _rules(folder: Path, doc: YamlDocument, manifest: Manifest, criteria: tuple[Criterion, ...],
           example: str | None, default: tuple[int, ...], diags: list[Diagnostic]
           ) -> dict[str, list[UsableRule]]:
    """The mutation rules, from the manifest or ``mutations.yml`` beside it, checked against
    the example solution; their problems go to ``diags`` (they never block a run)."""
    source, data = doc, manifest.mutations
    prefix: tuple[int | str, ...] = ("mutations",)
    beside = folder / defaults.MUTATIONS_FILE
    if beside.is_file():
        if manifest.mutations is not None:
            diags.append(diag_at(doc, prefix, f"mutation rules are both here and in "
                                              f"{beside.name}; keep them in one place"))
            return {}
        try:
            source = read_yaml(beside)
        except YamlFileError as exc:
            diags.append(exc.diagnostic)
            return {}
        data, prefix = source.data, ()

    def report(loc: tuple[int | str, ...], message: str) -> None:
        diags.append(diag_at(source, (*prefix, *loc), message))

    rules = parse_rules(data, report)
    return check_rules(rules, example=example, labelled=manifest.default_expected is not None,
                       criteria=criteria, default=default, report=report)


def load_scenario(folder: Path, *, labels: bool = True
                  ) -> tuple[Scenario | None, list[Diagnostic]]:
    """Load one scenario folder. ``None`` when the manifest has errors that block a run.

    ``labels``: read ``labels.yml`` (``eunomia.scenarios._labels``): a case its labels
    resolve expects what they say; in a scenario whose manifest has no expectations, the
    cases without resolved labels are then left out (correctness is measured on the
    labelled ones, and a warning says how many were left out), and what a perfect solution
    gets (``default_expected``, the answer of ``baseline:default``) is the instruction of
    each criterion that gives the most credits. ``labels=False``: the
    scenario as its manifest alone says (``eunomia label`` shows every case)."""
    manifest_path = folder / defaults.MANIFEST_FILE
    if not manifest_path.is_file():
        return None, [error(manifest_path, "manifest.yml not found")]
    try:
        doc = read_yaml(manifest_path)
    except YamlFileError as exc:
        return None, [exc.diagnostic]
    if not isinstance(doc.data, dict):
        return None, [error(manifest_path, "the manifest must be a mapping of keys "
                                           "(server_url, exercise, criteria, ...)")]
    manifest, problems = validate_document(doc, Manifest)
    if manifest is None:
        return None, problems

    build = _Build(folder, doc, manifest)
    criteria = build.criteria()
    by_textual = {i.textual_id: i for c in criteria for i in c.instructions}
    example = build.example_solution()
    read = _read_cases(folder, build.diags)
    case_names = {name for name, *_ in read[0]} if read else set()
    if read:
        case_names |= {bad.name for bad in read[1]}
    default, diffs = build.expectations(by_textual, case_names)
    found = case_labels(folder, criteria, sorted(case_names)) if labels else None
    chosen = found.expected if found is not None else {}
    if found is not None:
        build.diags += found.diagnostics
    in_manifest = manifest.default_expected is not None
    labelled = in_manifest or bool(chosen)
    if chosen and not in_manifest:  # what a perfect solution gets: full credit everywhere
        default = perfect_answer(criteria)

    every = {i.id for i in by_textual.values()}

    def expected_of(name: str) -> set[int]:
        if name in chosen:
            return set(chosen[name])
        if in_manifest:
            return {diffs.get(name, {}).get(i, i) for i in default}
        return every  # left out of runs: nothing to check its credit expectations against
    common, per_case = CaseDataReader(doc, manifest, by_textual, build.diags).read(
        case_names, expected_of if labelled else None)

    diags = build.diags
    if has_errors(d for d in diags if d.file == manifest_path) or read is None:
        return None, diags

    rule_diags: list[Diagnostic] = []
    rules = _rules(folder, doc, manifest, criteria, example, default, rule_diags)
    for name in manifest.generated_cases:
        if name not in case_names:
            rule_diags.append(diag_at(doc, ("generated_cases", name), f"generated case "
                                      f"{name!r} has no file {defaults.TEST_CASES_DIR}/"
                                      f"{name}.json", Severity.WARNING))
    diags.extend(rule_diags)

    good, bad = read
    test_cases: list[TestCase] = []
    left_out: list[TestCase] = []
    for index, (name, path, text, diagram_type) in enumerate(good, start=1):
        replaced = diffs.get(name, {})
        expected = tuple(replaced.get(i, i) for i in default)
        about = frozenset(replaced.values())
        unlabelled = bool(chosen) and not in_manifest and name not in chosen
        if name in chosen:  # what its labels say, whatever the manifest says
            expected = chosen[name]
            about = frozenset(i for i in expected if i not in default)
        elif unlabelled:  # left out of runs: it expects nothing yet
            expected, about = (), frozenset()
        data = per_case.get(name)
        made = manifest.generated_cases.get(name)
        (left_out if unlabelled else test_cases).append(
            TestCase(
                name=name,
                path=path,
                submission_id=index,
                submission=text,
                expected=expected,
                diff_instructions=about,
                diagram_type=diagram_type,
                expected_credits=common if data is None else data.expected_credits,
                tutor=None if data is None else data.tutor,
                recorded=None if data is None else data.recorded,
                mutations=() if made is None else tuple(
                    (m.op, m.description) for m in made.mutations),
            )
        )
    ex = manifest.exercise
    scenario = Scenario(
        name=folder.name,
        folder=folder,
        server_url=manifest.server_url,
        exercise=Exercise(
            id=exercise_id_for(folder.name),
            title=ex.title,
            type=ex.type,
            max_points=ex.max_points,
            bonus_points=ex.bonus_points,
            grading_instructions=ex.grading_instructions,
            problem_statement=ex.problem_statement,
            example_solution=example,
            meta=ex.meta,
        ),
        criteria=criteria,
        default_expected=default,
        labelled=labelled,
        test_cases=test_cases,
        invalid_cases=bad,
        diagnostics=diags,
        labels_note=labels_line(found, len(good) + len(bad))
        if found is not None and found.present else "",
        left_out=left_out,
        mutation_rules=rules,
    )
    if found is not None and found.present:
        note = left_out_note(found, len(good) + len(bad), [c.name for c in left_out], folder)
        if note is not None:
            diags.append(note)
    return scenario, diags
