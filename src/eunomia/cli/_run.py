"""``eunomia run`` and ``eunomia demo``."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import (
    RunOptionValues,
    check_positive,
    check_run_name,
    console,
    print_diagnostics,
    run_options_from_matrix,
    run_to_resume,
)
from eunomia.errors import EunomiaError, has_errors

if TYPE_CHECKING:
    from eunomia.run import CiOutputs



def execute_run(
    *,
    paths: list[Path],
    targets: list[str],
    server_url: str | None,
    run_name: str | None,
    results: Path,
    store: Path | None,
    cases: list[str],
    max_cases: int | None,
    concurrency: int,
    timeout: float,
    retries: int,
    repeat: int,
    resume: str | None,
    retry_failed: bool,
    no_cache: bool,
    cache: bool = False,
    retry_500: bool = False,
    athena_id_base: int | None = None,
    secret_env: str,
    x_server_url: str,
    prompt_dir: Path | None,
    ask: bool,
    executor: str | None = None,
    ray_address: str | None = None,
    outputs: "CiOutputs | None" = None,
) -> None:
    import asyncio

    from eunomia.athena import check_id_base
    from eunomia.cli._prompts import ask_case_patterns, ask_run_name, default_run_name
    from eunomia.executors import TargetRecipe, make_executor
    from eunomia.kinds import Selection
    from eunomia.kinds.scenarios import (
        ScenarioPlan,
        load_scenarios,
        selected_cases,
        selected_invalid,
    )
    from eunomia.run import CiOutputs, run_evaluation, write_report_outputs
    from eunomia.scenarios import discover
    from eunomia.scheduler import RetryPolicy, RunOptions
    from eunomia.targets import TargetConfig, build_target

    out = console()
    check_positive("--concurrency", concurrency)
    check_positive("--timeout", timeout)
    check_positive("--retries", retries, allow_zero=True)
    check_positive("--max-cases", max_cases)
    check_positive("--repeat", repeat)
    if cache and no_cache:
        raise EunomiaError("--cache and --no-cache contradict each other: choose one")
    store_path = store or results / defaults.STORE_FILE

    if resume is not None:
        # Everything that defines the run comes from the store; operational options
        # (concurrency, timeout, retries) may be changed.
        stored = run_to_resume(store_path, resume, "scenarios").settings
        run_name = resume
        paths = [Path(p) for p in stored.get("paths", [])]
        targets = list(stored.get("targets", ["athena"]))
        server_url = stored.get("server_url")
        cases = list(stored.get("selection", {}).get("patterns", []))
        max_cases = stored.get("selection", {}).get("max_cases")
        repeat = int(stored.get("repeats", 1))
        secret_env = stored.get("secret_env", secret_env)
        x_server_url = stored.get("x_server_url", x_server_url)
        prompt_dir = Path(stored["prompt_dir"]) if stored.get("prompt_dir") else None
        cache = bool(stored.get("cache_systems", cache))
        athena_id_base = stored.get("athena_id_base", athena_id_base)
        if executor is None:  # the stored executor unless --executor overrides it
            executor = stored.get("executor")
            ray_address = ray_address or stored.get("ray_address")
        ask = False
    if not paths:
        raise EunomiaError("give at least one scenario folder (or --resume RUN)")
    if athena_id_base is not None:
        try:
            check_id_base(athena_id_base)
        except ValueError as exc:
            raise EunomiaError(f"--athena-id-base: {exc}") from None
    calls_on = make_executor(executor or "local", ray_address=ray_address)  # fails fast

    sources, problems = discover(paths)
    if has_errors(problems):
        raise EunomiaError("nothing to run", problems)
    loaded, diagnostics = load_scenarios(sources)
    print_diagnostics(out, diagnostics)

    if run_name is None:
        run_name = ask_run_name(out) if ask else default_run_name()
    check_run_name(run_name)
    patterns = tuple(cases)
    if not patterns and ask:
        patterns = ask_case_patterns(out, loaded)
    selection = Selection(patterns, max_cases)
    if patterns and not any(
        selected_cases(item.scenario, selection) or selected_invalid(item.scenario, selection)
        for item in loaded
    ):
        raise EunomiaError(f"no test case matches {', '.join(patterns)}")

    if server_url and "athena" not in (targets or ["athena"]):
        raise EunomiaError("--server-url applies to --target athena only; "
                           "use --target athena:<url> to name a URL per target")
    config = TargetConfig(server_url=server_url, secret_env=secret_env,
                          x_server_url=x_server_url, max_connections=concurrency,
                          prompt_dir=prompt_dir, id_base=athena_id_base, id_seed=run_name)
    built = [build_target(spec, config) for spec in (targets or ["athena"])]
    for tgt in built:
        limit = getattr(tgt, "max_concurrency", None)
        if isinstance(limit, int) and calls_on.remote:
            out.print(f"[yellow]note:[/] {escape(tgt.name)} answers one request at a time "
                      "on each worker")
        elif isinstance(limit, int) and concurrency > limit:
            out.print(f"[yellow]note:[/] {escape(tgt.name)} answers one request at a time; "
                      f"concurrency lowered from {concurrency} to {limit}")
            concurrency = limit
        url_for = getattr(tgt, "url_for", None)
        if url_for is not None:  # fail before any request when a URL is missing or bad
            for item in loaded:
                url_for(item.scenario)
        check_ids = getattr(tgt, "check_ids", None)
        if check_ids is not None:  # two scenarios must never share Athena submission ids
            check_ids(item.scenario for item in loaded)
        warn = getattr(tgt, "warnings", None)
        if callable(warn):
            for text in warn([item.scenario for item in loaded]):
                out.print(f"[yellow]warning:[/] {escape(text)}")
    settings: dict[str, Any] = {
        "paths": [str(p) for p in paths],
        "targets": targets or ["athena"],
        "server_url": server_url,
        "secret_env": secret_env,
        "x_server_url": x_server_url,
        "prompt_dir": str(prompt_dir) if prompt_dir else None,
        "cache_systems": cache,
        "athena_id_base": athena_id_base,
        **calls_on.settings(),
    }
    recipes = {t.name: TargetRecipe(spec, config)
               for spec, t in zip(targets or ["athena"], built, strict=True)}
    options = RunOptions(concurrency, RetryPolicy(retries=retries, timeout_s=timeout,
                                                  retry_500=retry_500))
    try:
        # the plan and the engine, as eunomia.api.run_scenarios does (the API loads every kind)
        report = asyncio.run(run_evaluation(
            ScenarioPlan(loaded, built, recipes), run_name=run_name, results_dir=results,
            options=options, selection=selection, repeats=repeat, console=out,
            store_path=store_path, resume=resume is not None, retry_failed=retry_failed,
            use_cache=not no_cache, settings=settings, executor=calls_on,
            cache_systems=cache))
    finally:
        calls_on.close()
    for path in write_report_outputs(report, outputs or CiOutputs(), results):
        out.print(f"Written: {escape(str(path))}", soft_wrap=True)
    if report.failed_cases:
        out.print(f"[red]{report.failed_cases} case(s) failed; see failures.json in "
                  f"{escape(str(report.folder))}[/]")
        raise typer.Exit(1)


def run(
    ctx: typer.Context,
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
    run_name: Annotated[str | None, typer.Option(
        help="Name of this run (results/<run-name>/...). Asked for at a terminal.")] = None,
    results: Annotated[Path, typer.Option(help="Folder for results.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
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
        help="Retries after a failed attempt (connection errors, timeouts, 429, 502-504; "
             "500 only with --retry-500).")] = defaults.RETRIES,
    retry_500: Annotated[bool, typer.Option(
        "--retry-500", help="Also retry HTTP 500. Off by default: a 500 is mostly "
                            "deterministic, and each attempt may spend LLM tokens the system "
                            "never reports.")] = False,
    repeat: Annotated[int, typer.Option(
        help="Run every case this many times (consistency).")] = 1,
    resume: Annotated[str | None, typer.Option(
        help="Continue an interrupted run: finished cases are not requested again.")] = None,
    retry_failed: Annotated[bool, typer.Option(
        help="With --resume, also run again the cases that failed.")] = False,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Ask the target again even for answers already cached.")] = False,
    cache: Annotated[bool, typer.Option(
        "--cache", help="Also reuse cached answers of systems reached over HTTP (Athena, "
                        "http:<name>) from earlier runs; by default they are asked again, "
                        "since the system behind a URL may have changed.")] = False,
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
    executor: Annotated[str | None, typer.Option(
        help="Where the target calls are made: local (this process) or ray (a Ray "
             "cluster; pip install 'eunomia[ray]'). --resume keeps the run's own.",
        show_default="local")] = None,
    ray_address: Annotated[str | None, typer.Option(
        help="Address of the Ray cluster for --executor ray (default: start a local one, "
             "or RAY_ADDRESS).")] = None,
    junit: Annotated[Path | None, typer.Option(
        help="Also write JUnit XML here: a test case per case, repeat and target, failed "
             "when the case is not fully correct, an error when it failed.",
        show_default=False)] = None,
    summary_md: Annotated[Path | None, typer.Option(
        help="Also write a Markdown summary here (appended to $GITHUB_STEP_SUMMARY too "
             "when that is set).", show_default=False)] = None,
    jsonl: Annotated[Path | None, typer.Option(
        help="Also write JSON Lines here: one object per case, repeat and target "
             "(docs/ci.md).", show_default=False)] = None,
) -> None:
    """Evaluate scenarios against feedback systems."""
    from eunomia.cli._prompts import interactive
    from eunomia.run import ci_outputs

    outputs = ci_outputs(junit=junit, summary_md=summary_md, jsonl=jsonl)

    paths, target, cases = list(paths or []), list(target or []), list(case or [])
    if matrix is not None:
        from eunomia.matrix import load_scenario_matrix

        if resume is not None:
            raise EunomiaError("--matrix cannot be combined with --resume: a resumed run "
                               "keeps the targets, scenarios and settings it was started with")
        m = load_scenario_matrix(matrix)
        paths, target = [*m.scenario_paths(), *paths], [*m.targets, *target]
        run_name, cases, max_cases, repeat, concurrency, timeout, retries = \
            run_options_from_matrix(ctx, RunOptionValues(
                run_name, cases, max_cases, repeat, concurrency, timeout, retries), m)
    execute_run(
        paths=paths, targets=target, server_url=server_url,
        run_name=run_name, results=results, store=store, cases=cases,
        max_cases=max_cases, concurrency=concurrency, timeout=timeout, retries=retries,
        repeat=repeat, resume=resume, retry_failed=retry_failed, no_cache=no_cache,
        cache=cache, retry_500=retry_500, athena_id_base=athena_id_base,
        secret_env=secret_env, x_server_url=x_server_url, prompt_dir=prompt_dir,
        ask=interactive(), executor=executor, ray_address=ray_address, outputs=outputs,
    )


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
    from eunomia.cli._prompts import default_run_name

    execute_run(
        paths=[examples_folder()], targets=[target], server_url=None,
        run_name=run_name or f"demo_{default_run_name()[4:]}", results=results, store=None,
        cases=list(case or []), max_cases=None, concurrency=defaults.CONCURRENCY,
        timeout=defaults.REQUEST_TIMEOUT_S, retries=defaults.RETRIES, repeat=1, resume=None,
        retry_failed=False, no_cache=False, secret_env=defaults.ATHENA_SECRET_ENV,
        x_server_url=defaults.ATHENA_X_SERVER_URL, prompt_dir=None, ask=False,
    )


def examples_folder() -> Path:
    here = Path(__file__).resolve()
    for candidate in (Path.cwd() / "examples" / "scenarios",
                      here.parents[3] / "examples" / "scenarios"):
        if candidate.is_dir():
            return candidate
    raise EunomiaError("the bundled examples/scenarios folder was not found; run from the "
                       "Eunomia checkout")
