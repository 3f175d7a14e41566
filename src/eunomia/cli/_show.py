"""``eunomia show SCENARIO[/CASE]``: look at a test case without a run.

``SCENARIO`` is a scenario folder (the one with ``manifest.yml``); ``SCENARIO/CASE`` names
one of its test cases (``SCENARIO/test_cases/CASE.json`` works too). A case is drawn as SVG
(the report's drawing) to ``--output`` (default ``<case>.svg`` in the working folder), and
its text rendering (what the LLM engine reads) and expected instructions are printed. A
scenario alone lists its cases.
"""

import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import console, print_diagnostics
from eunomia.errors import EunomiaError, Severity

if TYPE_CHECKING:
    from eunomia.scenarios import Scenario, TestCase


def _locate(target: str) -> tuple[Path, str | None]:
    """The scenario folder and the case name (``None``: the whole scenario)."""
    path = Path(target)
    if (path / defaults.MANIFEST_FILE).is_file():
        return path, None
    parent = path.parent
    if parent.name == defaults.TEST_CASES_DIR and \
            (parent.parent / defaults.MANIFEST_FILE).is_file():
        return parent.parent, path.name.removesuffix(".json")
    if (parent / defaults.MANIFEST_FILE).is_file():
        return parent, path.name.removesuffix(".json")
    hint = "expected a scenario folder (with manifest.yml) or SCENARIO/CASE"
    if path.is_dir():
        inside = sorted(p.name for p in path.iterdir()
                        if (p / defaults.MANIFEST_FILE).is_file())
        if inside:
            hint = f"a folder of scenarios; name one of them: {', '.join(inside)}"
    elif not parent.exists():
        hint = f"no folder {parent}"
    raise EunomiaError(f"{target}: no scenario here: {hint}")


def _load(folder: Path, out: Console) -> "Scenario":
    from eunomia.scenarios import load_scenario

    scenario, problems = load_scenario(folder)
    manifest = folder / defaults.MANIFEST_FILE
    if scenario is None:
        raise EunomiaError(f"cannot load the scenario {manifest}",
                           [d for d in problems if d.severity is Severity.ERROR])
    print_diagnostics(out, problems)
    return scenario


def _case(scenario: "Scenario", name: str) -> "TestCase":
    case = scenario.case_named(name) or next((c for c in scenario.left_out if c.name == name), None)
    if case is not None:
        return case
    manifest = scenario.folder / defaults.MANIFEST_FILE
    bad = next((b for b in scenario.invalid_cases if b.name == name), None)
    if bad is not None:
        raise EunomiaError(f"the test case {name!r} of {manifest} is unusable: {bad.path}: "
                           f"{bad.reason}")
    names = [c.name for c in scenario.test_cases]
    close = difflib.get_close_matches(name, names, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise EunomiaError(f"no test case {name!r} in the scenario {scenario.name!r} "
                       f"({manifest}){hint} Its cases: {', '.join(names) or 'none'}")


def _list(scenario: "Scenario", out: Console) -> None:
    out.print(f"Scenario {escape(scenario.name)} ({escape(str(scenario.folder))}): "
              f"{len(scenario.test_cases)} test case(s)", soft_wrap=True)
    for case in scenario.test_cases:
        about = ", ".join(scenario.instructions[i].textual_id
                          for i in sorted(case.diff_instructions))
        made = "  [dim]generated[/]" if case.generated else ""
        out.print(f"  {escape(case.name)}" + (f"  [dim]({escape(about)})[/]" if about else "")
                  + made, soft_wrap=True)
    for bad in scenario.invalid_cases:
        out.print(f"  [red]{escape(bad.name)}: unusable: {escape(bad.reason)}[/]",
                  soft_wrap=True)
    out.print(f"Show one: eunomia show {escape(str(scenario.folder / '<case>'))}",
              soft_wrap=True)


def _expected(scenario: "Scenario", case: "TestCase", out: Console) -> None:
    out.print("Expected instructions ([bold]*[/]: what this case is about):")
    if case in scenario.left_out:  # (labels.yml labels other cases, not this one)
        return out.print("   [dim]none yet: no label in labels.yml, so runs leave it out[/]")
    expected = set(case.expected)
    for criterion in scenario.criteria:
        chosen = [i for i in criterion.instructions if i.id in expected]
        for ins in chosen:
            star = "*" if ins.id in case.diff_instructions else " "
            out.print(f" {star} {escape(criterion.textual_id)}: {escape(ins.textual_id)} "
                      f"({ins.credits:g} pts) — {escape(ins.instruction_description)}",
                      soft_wrap=True)
        if not chosen:
            out.print(f"   {escape(criterion.textual_id)}: [dim]none[/]")


def _changes(scenario: "Scenario", case: "TestCase", diagram: object, out: Console) -> None:
    """What the case changes in the example solution (matched by name and type), and the
    mutations that made it when ``eunomia mutate`` did."""
    from eunomia.apollon import DiagramError, diff_diagrams

    for op, what in case.mutations:
        out.print(f"Generated by eunomia mutate: {escape(op)}: {escape(what)}", soft_wrap=True)
    if scenario.exercise.example_solution is None:
        return
    try:
        diff = diff_diagrams(json.loads(scenario.exercise.example_solution), diagram)
    except (ValueError, DiagramError) as exc:
        out.print(f"[yellow]No diff: the example solution is not a diagram ({escape(str(exc))})",
                  soft_wrap=True)
        return
    lines = diff.lines()
    out.print("Changes against the example solution:" + ("" if lines else " none"))
    for line in lines:
        out.print(f"  {escape(line)}", soft_wrap=True)


def show(
    target: Annotated[str, typer.Argument(
        metavar="SCENARIO[/CASE]",
        help="A scenario folder (lists its cases) or SCENARIO/CASE (one test case).")],
    output: Annotated[Path | None, typer.Option(
        help="SVG file to write the case's diagram to.",
        show_default="<case>.svg in the working folder")] = None,
) -> None:
    """Look at a test case without a run: write its diagram as SVG, print it as text with
    the instructions it expects; a scenario alone lists its cases."""
    from pydantic import ValidationError

    from eunomia.apollon import parse_diagram, render_diagram, render_svg
    from eunomia.files import write_text_atomic

    out = console()
    folder, name = _locate(target)
    scenario = _load(folder, out)
    if name is None:
        _list(scenario, out)
        return
    case = _case(scenario, name)
    try:
        data = json.loads(case.submission)
        diagram = parse_diagram(data)
    except ValueError as exc:  # JSONDecodeError and pydantic's ValidationError
        first = str(exc).splitlines()[0] if isinstance(exc, ValidationError) else str(exc)
        raise EunomiaError(f"{case.path}: not an Apollon diagram: {first}") from None
    path = output if output is not None else Path.cwd() / f"{case.name}.svg"
    write_text_atomic(path, render_svg(diagram, title=f"{scenario.name}/{case.name}") + "\n")
    out.print(f"Case {escape(case.name)} ({escape(str(case.path))})", soft_wrap=True)
    out.print(escape(render_diagram(diagram).rstrip("\n")), soft_wrap=True)
    _expected(scenario, case, out)
    _changes(scenario, case, data, out)
    out.print(f"Drawing: {escape(str(path))}", soft_wrap=True)
