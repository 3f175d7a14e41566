"""``eunomia import athena FILE --output DIR``: an Athena exercise export as a scenario."""

import shlex
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import console, print_diagnostics
from eunomia.errors import EunomiaError


class Source(StrEnum):
    """What ``eunomia import`` reads (one kind of export so far)."""

    athena = "athena"


def import_command(
    source: Annotated[Source, typer.Argument(
        metavar="SOURCE", help="What FILE is: athena (an Athena/Artemis exercise export).")],
    file: Annotated[Path, typer.Argument(
        metavar="FILE", help="The export (JSON): the exercise with its submissions, e.g. Athena's "
             "playground/data/example/exercise-6.json or sampled_exercise-14676.json.")],
    output: Annotated[Path, typer.Option(
        "--output", "-o", help="The scenario folder to write.")],
    server_url: Annotated[str, typer.Option(
        help="The manifest's server_url (the Athena module to ask).")
    ] = defaults.ATHENA_MODULE_URL,
    example_solution: Annotated[str, typer.Option(
        help="auto (the exercise's own, else the submission labelled 'Example Solution'), "
             "none, or the id of the submission to use.")] = "auto",
    feedback: Annotated[str, typer.Option(
        help="Whose feedback the export holds: auto (a system's when the file has "
             "baseline_info, else the tutors'), recorded (a system's) or tutor.")] = "auto",
    force: Annotated[bool, typer.Option(
        "--force", help="Replace the scenario already in --output.")] = False,
    source_label: Annotated[str | None, typer.Option(
        help="How README.md and the manifest name the source (default: FILE as given).",
        show_default=False)] = None,
    criteria_from_grading_instructions: Annotated[bool, typer.Option(
        help="For an export without criteria: one per numbered 'Give P point(s) if ..., 0 "
             "otherwise.' item of its grading instructions (met / not met), to label.")] = False,
) -> None:
    """Make a scenario from another system's data. athena: an Athena exercise export becomes
    a scenario, one test case per submission, the tutor's score and any recorded feedback
    kept, the grading criteria when it has them (docs/tutor-agreement.md)."""
    from eunomia.bounds import check_url
    from eunomia.importers import ImportOptions, read_export, write_scenario

    assert source is Source.athena  # (the only choice typer lets through)
    try:
        check_url(server_url)
    except ValueError as exc:
        raise EunomiaError(f"--server-url: {exc}") from None
    export, raw = read_export(file)
    command = shlex.join(["eunomia", *sys.argv[1:]])
    done = write_scenario(export, raw, file, output, ImportOptions(
        server_url=server_url, example_solution=example_solution, feedback=feedback,
        force=force, source_label=source_label, command=command,
        criteria_from_grading_instructions=criteria_from_grading_instructions))
    out = console()
    print_diagnostics(out, done.diagnostics)
    whose = {"recorded": "a system's, replayed by --target recorded",
             "tutor": "the tutors', replayed by --target recorded:tutor"}[done.feedback_role]
    items = f"{done.feedback_items} feedback items ({whose})" if done.feedback_items \
        else "no feedback items"
    out.print(escape(
        f"{done.folder}: {done.cases} test cases, {done.graded} with the tutor's score, "
        f"{items}, {done.criteria} criteria, example solution: {done.example_solution}"),
        soft_wrap=True)
