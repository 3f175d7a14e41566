"""``eunomia run`` and ``eunomia demo``: adapters over :func:`eunomia.api.run_command`."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from eunomia import defaults
from eunomia.cli._common import console, finish
from eunomia.cli._options import RUN_WORDS, run_options
from eunomia.errors import EunomiaError

if TYPE_CHECKING:
    from eunomia.api import ScenarioRequest
    from eunomia.run import RunRequest


@run_options(RUN_WORDS)
def run(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Scenario folders, or folders of scenarios (with llm_cost.yml beside them).",
        show_default=False)] = None,
    target: Annotated[list[str] | None, typer.Option(
        "--target", help=f"System under test: {defaults.TARGET_SPECS}. Repeat it to compare "
                         "several targets in one run.", show_default="athena")] = None,
    matrix: Annotated[Path | None, typer.Option(
        help="Matrix file (YAML): scenarios, targets and run options. Scenarios and "
             "--target given here are added to the file's; any other option given here "
             "replaces the file's value.", show_default=False)] = None,
    server_url: Annotated[str | None, typer.Option(
        help="Feedback URL for every scenario (default: each manifest's server_url).")] = None,
    secret_env: Annotated[str, typer.Option(
        help="Environment variable holding the Authorization secret.")
    ] = defaults.ATHENA_SECRET_ENV,
    x_server_url: Annotated[str, typer.Option(
        help="Value of the X-Server-URL header.")] = defaults.ATHENA_X_SERVER_URL,
    athena_id_base: Annotated[int | None, typer.Option(
        help="Start of the exercise and submission ids sent to Athena (kept below 2**53). "
             "Athena stores submissions by id: Eunomia's ids stay above any LMS's.",
        show_default="2**52")] = None,
    prompt_dir: Annotated[Path | None, typer.Option(
        help="Folder with prompt templates (system.txt, user.txt) overriding the built-in "
             "ones of llm:<model> targets.")] = None,
    llm_usage: Annotated[str | None, typer.Option(
        help="Meter the LLM calls of every athena and http: target at this `eunomia "
             "serve-model` (its URL): each case's cost is that of its calls, the run's LLM "
             "totals go to llm_usage.json (docs/serve-model.md). A target's ?llm_usage= "
             "overrides it; needs --executor local.", show_default=False)] = None,
    athena_graded: Annotated[str | None, typer.Option(
        metavar="true|false", help="isGraded of Athena requests: false sends the "
        "student-facing request (the current module rewrites its feedback in a second LLM "
        "call). A target's ?graded= overrides it.", show_default="true")] = None,
    *,
    run: "RunRequest",
) -> None:
    """Evaluate scenarios against feedback systems."""
    from eunomia.api import ScenarioRequest
    from eunomia.cli._prompts import ask_case_patterns, ask_run_name, interactive
    from eunomia.targets import parse_bool

    out = console()
    ask = interactive()
    _execute(ScenarioRequest(
        tuple(paths or ()), tuple(target or ()), server_url, secret_env, x_server_url,
        athena_id_base, prompt_dir, matrix, llm_usage=llm_usage,
        athena_graded=None if athena_graded is None
        else parse_bool(athena_graded, "--athena-graded"),
        ask_run_name=(lambda: ask_run_name(out)) if ask else None,
        ask_cases=(lambda loaded: ask_case_patterns(out, loaded)) if ask else None), run)


def demo(
    results: Annotated[Path, typer.Option(help="Folder for results.")] = defaults.RESULTS_DIR,
    run_name: Annotated[str | None, typer.Option(help="Name of this run.")] = None,
    target: Annotated[str, typer.Option(
        help="System under test; the default is the built-in LLM feedback engine on the "
             "embedded local model ('example' runs the rule-based example module instead).",
    )] = defaults.DEMO_TARGET,
    case: Annotated[list[str] | None, typer.Option(
        help="Only cases matching this glob (repeatable).")] = None,
) -> None:
    """Run the bundled example scenario end to end (the README's first command)."""
    from eunomia.api import ScenarioRequest
    from eunomia.run import RunRequest, default_run_name

    _execute(ScenarioRequest(paths=(examples_folder(),), targets=(target,)),
             RunRequest(run_name=run_name or default_run_name("demo"), results=results,
                        case=tuple(case or ()), ci_files=False))


def _execute(what: "ScenarioRequest", run: "RunRequest") -> None:
    from eunomia.api import run_command

    out = console()
    finish(out, run_command(what, run, out))


def examples_folder() -> Path:
    here = Path(__file__).resolve()
    for candidate in (Path.cwd() / "examples" / "scenarios",
                      here.parents[3] / "examples" / "scenarios"):
        if candidate.is_dir():
            return candidate
    raise EunomiaError("the bundled examples/scenarios folder was not found; run from the "
                       "Eunomia checkout")
