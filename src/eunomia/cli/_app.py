"""The ``eunomia`` command line."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from eunomia import __version__, defaults
from eunomia.errors import Diagnostic, EunomiaError, Severity, has_errors
from eunomia.runner import CaseSelection, RunOptions, load_all, run_scenarios
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.targets import FeedbackTarget

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Eunomia: how good, consistent, fast and expensive is your LLM-powered system?",
)

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def _console() -> Console:
    return Console(stderr=False, highlight=False)


def _print_diagnostics(console: Console, diagnostics: list[Diagnostic]) -> None:
    for d in diagnostics:
        colour = "red" if d.severity is Severity.ERROR else "yellow"
        console.print(f"[{colour}]{escape(str(d))}[/]", soft_wrap=True)


def _check_positive(name: str, value: float | None, allow_zero: bool = False) -> None:
    if value is None:
        return
    if value < 0 or (value == 0 and not allow_zero):
        raise EunomiaError(f"{name} must be {'non-negative' if allow_zero else 'positive'}, "
                           f"got {value:g}")


def _build_target(
    target: str, server_url: str | None, secret_env: str, x_server_url: str, concurrency: int,
    console: Console,
) -> FeedbackTarget:
    if target == "athena":
        from eunomia.targets.athena import AthenaTarget

        secret = os.environ.get(secret_env)
        if not secret:
            console.print(f"[yellow]note:[/] {secret_env} is not set; requests carry no "
                          "Authorization header")
        return AthenaTarget(server_url, secret=secret, x_server_url=x_server_url,
                            max_connections=concurrency)
    if target == "example":
        from eunomia.targets.example import ExampleServerTarget

        if server_url:
            raise EunomiaError("--server-url cannot be used with --target example")
        return ExampleServerTarget(max_connections=concurrency)
    raise EunomiaError(f"unknown target {target!r}: choose athena or example")


@app.command()
def run(
    paths: Annotated[list[Path], typer.Argument(
        help="Scenario folders, or folders of scenarios (with llm_cost.yml beside them).")],
    target: Annotated[str, typer.Option(
        help="System under test: athena (an Athena module over HTTP) or example "
             "(the built-in example server).")] = "athena",
    server_url: Annotated[str | None, typer.Option(
        help="Feedback URL for every scenario (default: each manifest's server_url).")] = None,
    run_name: Annotated[str | None, typer.Option(
        help="Name of this run (results/<run-name>/...). Asked for at a terminal.")] = None,
    results: Annotated[Path, typer.Option(help="Folder for results.")] = defaults.RESULTS_DIR,
    case: Annotated[list[str] | None, typer.Option(
        "--case", help="Only cases matching this glob (case or scenario/case); repeatable.")
    ] = None,
    max_cases: Annotated[int | None, typer.Option(
        help="At most this many cases per scenario.")] = None,
    concurrency: Annotated[int, typer.Option(
        help="Requests in flight at once.")] = defaults.CONCURRENCY,
    timeout: Annotated[float, typer.Option(
        help="Per-request timeout in seconds.")] = defaults.REQUEST_TIMEOUT_S,
    retries: Annotated[int, typer.Option(
        help="Retries after a failed attempt (connection errors, timeouts, 5xx, 429).")
    ] = defaults.RETRIES,
    secret_env: Annotated[str, typer.Option(
        help="Environment variable holding the Authorization secret.")
    ] = defaults.ATHENA_SECRET_ENV,
    x_server_url: Annotated[str, typer.Option(
        help="Value of the X-Server-URL header.")] = defaults.ATHENA_X_SERVER_URL,
) -> None:
    """Evaluate scenarios against a feedback system."""
    from eunomia.cli._prompts import ask_case_patterns, ask_run_name, default_run_name, interactive

    console = _console()
    _check_positive("--concurrency", concurrency)
    _check_positive("--timeout", timeout)
    _check_positive("--retries", retries, allow_zero=True)
    _check_positive("--max-cases", max_cases)

    sources, problems = discover(list(paths))
    if has_errors(problems):
        raise EunomiaError("nothing to run", problems)
    loaded, diagnostics = load_all(sources)
    _print_diagnostics(console, diagnostics)

    ask = interactive()
    if run_name is None:
        run_name = ask_run_name(console) if ask else default_run_name()
    if not _NAME_RE.match(run_name):
        raise EunomiaError(f"invalid run name {run_name!r}: use letters, digits, '.', '_' "
                           "and '-' (at most 100 characters)")
    patterns = tuple(case or ())
    if not patterns and ask:
        patterns = ask_case_patterns(console, loaded)
    selection = CaseSelection(patterns, max_cases)
    if patterns and not any(selection.apply(item.scenario) for item in loaded) and not any(
        selection.matches(item.scenario.name, b.name)
        for item in loaded for b in item.scenario.invalid_cases
    ):
        raise EunomiaError(f"no test case matches {', '.join(patterns)}")

    built = _build_target(target, server_url, secret_env, x_server_url, concurrency, console)
    if target == "athena":
        for item in loaded:  # fail before any request when a URL is missing or bad
            built.url_for(item.scenario)  # type: ignore[attr-defined]
    options = RunOptions(concurrency, RetryPolicy(retries=retries, timeout_s=timeout))
    report = asyncio.run(run_scenarios(
        loaded, built, run_name=run_name, results_dir=results, options=options,
        selection=selection, console=console,
    ))
    if report.failed_cases:
        console.print(f"[red]{report.failed_cases} case(s) failed; see failures.json in "
                      f"{escape(str(report.folder))}[/]")
        raise typer.Exit(1)


@app.command()
def validate(
    paths: Annotated[list[Path], typer.Argument(help="Scenario folders or folders of scenarios.")],
) -> None:
    """Check scenarios without calling anything; list every problem."""
    from eunomia.pricing import load_price_file
    from eunomia.scenarios import load_scenario

    console = _console()
    sources, problems = discover(list(paths))
    seen_prices: set[Path] = set()
    for source in sources:
        scenario, diags = load_scenario(source.folder)
        problems += diags
        if source.price_file and source.price_file not in seen_prices:
            seen_prices.add(source.price_file)
            problems += load_price_file(source.price_file)[1]
        if scenario is not None:
            console.print(f"{escape(scenario.name)}: {len(scenario.criteria)} criteria, "
                          f"{len(scenario.instructions)} instructions, "
                          f"{len(scenario.test_cases)} test cases"
                          + (f", {len(scenario.invalid_cases)} unusable"
                             if scenario.invalid_cases else ""))
    _print_diagnostics(console, problems)
    errors = sum(d.severity is Severity.ERROR for d in problems)
    warnings = len(problems) - errors
    console.print(f"{errors} error(s), {warnings} warning(s)")
    if errors:
        raise typer.Exit(1)


@app.command("serve-example")
def serve_example(
    host: Annotated[str, typer.Option(help="Address to bind.")] = defaults.EXAMPLE_SERVER_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = defaults.EXAMPLE_SERVER_PORT,
    secret_env: Annotated[str, typer.Option(
        help="If this environment variable is set, require it as Authorization.")
    ] = defaults.ATHENA_SECRET_ENV,
) -> None:
    """Serve the built-in rule-based example feedback module (Athena contract)."""
    from eunomia.example_server import serve_forever

    serve_forever(host, port, os.environ.get(secret_env) or None)


@app.command()
def demo(
    results: Annotated[Path, typer.Option(help="Folder for results.")] = defaults.RESULTS_DIR,
    run_name: Annotated[str | None, typer.Option(help="Name of this run.")] = None,
) -> None:
    """Run the bundled example scenario end to end (the README's first command)."""
    from eunomia.cli._prompts import default_run_name

    examples = _examples_folder()
    run(paths=[examples], target="example", server_url=None,
        run_name=run_name or f"demo_{default_run_name()[4:]}", results=results, case=["*"],
        max_cases=None, concurrency=defaults.CONCURRENCY, timeout=defaults.REQUEST_TIMEOUT_S,
        retries=defaults.RETRIES, secret_env=defaults.ATHENA_SECRET_ENV,
        x_server_url=defaults.ATHENA_X_SERVER_URL)


def _examples_folder() -> Path:
    here = Path(__file__).resolve()
    for candidate in (Path.cwd() / "examples" / "scenarios",
                      here.parents[3] / "examples" / "scenarios"):
        if candidate.is_dir():
            return candidate
    raise EunomiaError("the bundled examples/scenarios folder was not found; run from the "
                       "Eunomia checkout")


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)
