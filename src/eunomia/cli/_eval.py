"""``eunomia eval``: judged task suites (candidate model on YAML test cases, judge model)."""

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import (
    RunOptionValues,
    check_positive,
    check_run_name,
    console,
    from_matrix,
    print_diagnostics,
    run_options_from_matrix,
    run_to_resume,
)
from eunomia.errors import EunomiaError, Severity


def parse_weights(text: str | None) -> dict[str, float]:
    """``easy=1,medium=2,hard=3`` → weights (unnamed difficulties keep their defaults)."""
    weights = dict(defaults.DIFFICULTY_WEIGHTS)
    if not text:
        return weights
    for part in text.split(","):
        name, sep, value = part.partition("=")
        name = name.strip().lower()
        if not sep or name not in weights:
            raise EunomiaError(f"invalid --weights {text!r}: write easy=1,medium=2,hard=3")
        try:
            weights[name] = float(value)
        except ValueError:
            raise EunomiaError(f"invalid weight {value.strip()!r} for {name} in --weights") \
                from None
        if weights[name] < 0:
            raise EunomiaError(f"--weights: the weight of {name} must not be negative")
    return weights


def eval_command(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Task suite YAML files, or folders of them.", show_default=False)] = None,
    model: Annotated[list[str] | None, typer.Option(
        "--model", help="Candidate model spec, e.g. local:qwen2.5-coder-0.5b, "
                        "openai:gpt-4o-mini. Repeat it to compare several models in one run "
                        "(a leaderboard at the end).", show_default=False)] = None,
    matrix: Annotated[Path | None, typer.Option(
        help="Matrix file (YAML): suites, models and run options. Suites and --model given "
             "here are added to the file's; any other option given here replaces the "
             "file's value.", show_default=False)] = None,
    judge: Annotated[str, typer.Option(
        help="Judge model spec (default: the embedded qwen2.5-coder-1.5b); 'none' makes no judge "
             "call and scores each case by its deterministic checks only "
             "(round(5 x passed / total); a case without checks is unscored).")
    ] = defaults.JUDGE_SPEC,
    judge_repeats: Annotated[int, typer.Option(
        help="Score each answer this many times; >1 reports the judge's self-agreement.")
    ] = defaults.JUDGE_REPEATS,
    repeat: Annotated[int, typer.Option(help="Run every case this many times.")] = 1,
    weights: Annotated[str | None, typer.Option(
        help="Difficulty weights of the weighted mean.",
        show_default="easy=1,medium=2,hard=3")] = None,
    rubric: Annotated[Path | None, typer.Option(
        help="Rubric prompt file replacing the bundled one (a suite's metadata.rubric wins).")
    ] = None,
    run_name: Annotated[str | None, typer.Option(
        help="Name of this run (results/<run-name>/...).")] = None,
    results: Annotated[Path, typer.Option(help="Folder for results.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
    case: Annotated[list[str] | None, typer.Option(
        "--case", help="Only cases matching this glob (case, suite/case or kind/case); "
                       "repeatable.")] = None,
    max_cases: Annotated[int | None, typer.Option(
        help="At most this many cases per suite.")] = None,
    concurrency: Annotated[int, typer.Option(
        help="Requests in flight at once (1 with a local model).")] = defaults.CONCURRENCY,
    timeout: Annotated[float, typer.Option(
        help="Per-request timeout in seconds.")] = defaults.REQUEST_TIMEOUT_S,
    retries: Annotated[int, typer.Option(
        help="Retries after a failed attempt (connection errors, timeouts, 429, 502-504, an "
             "unusable judge answer; 500 only with --retry-500).")] = defaults.RETRIES,
    retry_500: Annotated[bool, typer.Option(
        "--retry-500", help="Also retry HTTP 500. Off by default: a 500 is mostly "
                            "deterministic, and each attempt may spend LLM tokens the system "
                            "never reports.")] = False,
    resume: Annotated[str | None, typer.Option(
        help="Continue an interrupted run: finished cases are not run again.")] = None,
    retry_failed: Annotated[bool, typer.Option(
        help="With --resume, also run again the cases that failed or were unscored.")] = False,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Ask the models again even for answers already cached.")] = False,
    cache: Annotated[bool, typer.Option(
        "--cache", help="Also reuse cached answers of systems reached over HTTP (Athena, "
                        "http:<name>) from earlier runs; by default they are asked again, "
                        "since the system behind a URL may have changed.")] = False,
    executor: Annotated[str | None, typer.Option(
        help="Where the model calls are made: local (this process) or ray (a Ray cluster; "
             "pip install 'eunomia[ray]'). --resume keeps the run's own.",
        show_default="local")] = None,
    ray_address: Annotated[str | None, typer.Option(
        help="Address of the Ray cluster for --executor ray (default: start a local one, "
             "or RAY_ADDRESS).")] = None,
    junit: Annotated[Path | None, typer.Option(
        help="Also write JUnit XML here: a test case per case, repeat and model, failed "
             "when its score is below --pass-score, an error when it failed, skipped when "
             "the judge could not score it.", show_default=False)] = None,
    summary_md: Annotated[Path | None, typer.Option(
        help="Also write a Markdown summary here (appended to $GITHUB_STEP_SUMMARY too "
             "when that is set).", show_default=False)] = None,
    jsonl: Annotated[Path | None, typer.Option(
        help="Also write JSON Lines here: one object per case, repeat and model "
             "(docs/ci.md).", show_default=False)] = None,
    pass_score: Annotated[float | None, typer.Option(
        help="A case passes (JUnit, JSON Lines, summary) when its mean judge score is at "
             "least this (0-5).", show_default="3")] = None,
    judge_check: Annotated[bool, typer.Option(
        "--judge-check", help="First check the judge on these suites (eunomia judge-check, "
                              "once per suite whatever the candidates; cached like every "
                              "call) and show its verdict beside the scores: a judge that "
                              "cannot tell good from bad answers is said so "
                              "(docs/judge-check.md).")] = False,
    pairwise: Annotated[bool, typer.Option(
        "--pairwise", help="Compare exactly two candidates (--model A --model B): the judge "
                           "says which answer is better, each pair asked in both orders "
                           "(docs/pairwise.md).")] = False,
) -> None:
    """Evaluate candidate models on YAML task suites, scored 0-5 by a judge model."""
    import asyncio

    from pydantic import ValidationError

    from eunomia.cli._prompts import default_run_name
    from eunomia.judge import Rubric
    from eunomia.kinds import Selection
    from eunomia.kinds._task_suites import NO_JUDGE, Candidate, selected_entries
    from eunomia.kinds.judge_check import SETTING as STORED_CHECK
    from eunomia.kinds.tasks import TaskPlan
    from eunomia.kinds.tasks._records_out import check_pass_score
    from eunomia.matrix import MatrixModel, load_task_matrix
    from eunomia.models import load_config, resolve_spec
    from eunomia.run import ci_outputs, run_evaluation, write_report_outputs
    from eunomia.scheduler import RetryPolicy, RunOptions
    from eunomia.tasks import load_suites

    if pairwise and judge_check:
        raise EunomiaError("--judge-check checks the judge's 0-5 scores; with --pairwise, "
                           "check the judge with 'eunomia judge-check' on the same suites")
    if pairwise:
        from eunomia.cli._pairwise import pairwise_eval

        pairwise_eval(ctx)
        return
    out = console()
    outputs = ci_outputs(junit=junit, summary_md=summary_md, jsonl=jsonl,
                         pass_score=check_pass_score(pass_score))
    store_path = store or results / defaults.STORE_FILE
    paths = list(paths or [])
    # not validated here: resolving the spec below says what is wrong with a bad one
    entries = [MatrixModel.model_construct(spec=m) for m in model or []]
    patterns = list(case or [])
    weight_map = parse_weights(weights)
    config = load_config()
    if matrix is not None:
        if resume is not None:
            raise EunomiaError("--matrix cannot be combined with --resume: a resumed run "
                               "keeps the models, suites and settings it was started with")
        m = load_task_matrix(matrix, config)
        paths, entries = [*m.suite_paths(), *paths], [*m.models, *entries]
        judge = from_matrix(ctx, "judge", judge, m.judge)
        judge_repeats = from_matrix(ctx, "judge_repeats", judge_repeats, m.judge_repeats)
        if m.weights is not None and weights is None:
            weight_map.update({str(k): v for k, v in m.weights.items()})
        rubric = from_matrix(ctx, "rubric", rubric, m.rubric_path())
        run_name, patterns, max_cases, repeat, concurrency, timeout, retries = \
            run_options_from_matrix(ctx, RunOptionValues(
                run_name, patterns, max_cases, repeat, concurrency, timeout, retries), m)
    for name, value in (("--concurrency", concurrency), ("--timeout", timeout),
                        ("--max-cases", max_cases), ("--repeat", repeat),
                        ("--judge-repeats", judge_repeats)):
        check_positive(name, value)
    check_positive("--retries", retries, allow_zero=True)
    if cache and no_cache:
        raise EunomiaError("--cache and --no-cache contradict each other: choose one")
    if resume is not None:
        info = run_to_resume(store_path, resume, "tasks")
        st = info.settings
        run_name, paths = resume, [Path(p) for p in st.get("paths", [])]
        try:
            entries = [MatrixModel.model_validate(e) for e in st["models"]] \
                if st.get("models") \
                else [MatrixModel(spec=t) for t in info.targets]  # stored before matrix runs
        except ValidationError as exc:
            raise EunomiaError(f"run {resume!r}: its stored models cannot be read "
                               f"({exc.error_count()} problem(s)); start a new run") from None
        judge = str(st.get("judge", judge))
        judge_repeats = int(st.get("judge_repeats", judge_repeats))
        repeat = int(st.get("repeats", repeat))
        weight_map = {k: float(v) for k, v in (st.get("weights") or weight_map).items()}
        rubric = Path(st["rubric_option"]) if st.get("rubric_option") else None
        patterns = list(st.get("selection", {}).get("patterns", []))
        cache = bool(st.get("cache_systems", cache))
        max_cases = st.get("selection", {}).get("max_cases")
        if judge_check and STORED_CHECK not in st:
            raise EunomiaError(f"run {resume!r} was started without --judge-check, so its "
                               "results have no place for the check: run 'eunomia "
                               "judge-check' on its suites, or start a new eval")
        judge_check = STORED_CHECK in st  # a run started with the check keeps it
        if executor is None:  # the stored executor unless --executor overrides it
            executor = st.get("executor")
            ray_address = ray_address or st.get("ray_address")
    if judge_check and judge.strip().lower() == NO_JUDGE:
        raise EunomiaError("--judge-check checks the judge, and --judge none has no judge "
                           "(each case is scored by its checks only): give --judge SPEC, or "
                           "leave --judge-check out")
    if not paths:
        raise EunomiaError("give at least one task suite file or folder (or --resume RUN)")
    from eunomia.executors import make_executor

    calls_on = make_executor(executor or "local", ray_address=ray_address)  # fails fast
    if not entries:
        raise EunomiaError("give the candidate model: --model SPEC (e.g. local, "
                           "openai:gpt-4o-mini), repeated to compare several, or --matrix FILE")
    suites, problems = load_suites(paths)
    print_diagnostics(out, problems)
    load_errors = sum(d.severity is Severity.ERROR for d in problems)
    if not any(s.cases for s in suites):
        raise EunomiaError("no runnable test case in the given suites")
    if run_name is None:
        run_name = f"eval_{default_run_name()[4:]}"
    check_run_name(run_name)
    selection = Selection(tuple(patterns), max_cases)
    if patterns and not any(next(selected_entries(s, selection), None) is not None
                            or any(selection.matches(s.name, n) for n, _ in s.invalid)
                            for s in suites):
        raise EunomiaError(f"no test case matches {', '.join(patterns)}")
    candidates = [e.resolve(config) for e in entries]
    judge_spec = None if judge.strip().lower() == NO_JUDGE else resolve_spec(judge, config)
    rubric_obj = Rubric.load(rubric) if rubric is not None else None
    settings = {"paths": [str(p) for p in paths],
                "rubric_option": str(rubric) if rubric is not None else None,
                "models": [e.to_json() for e in entries], "cache_systems": cache,
                **({"matrix": str(matrix)} if matrix is not None else {}),
                **calls_on.settings()}
    options = RunOptions(concurrency, RetryPolicy(retries=retries, timeout_s=timeout,
                                                  retry_500=retry_500))
    check = None
    try:
        if judge_check and judge_spec is not None:  # once for the judge, whatever the models
            from eunomia.cli._judge_check import check_before_eval

            check = check_before_eval(
                suites, judge_spec, eval_run=run_name, results_dir=results,
                store_path=store_path, options=options, judge_repeats=judge_repeats,
                rubric=rubric_obj, selection=selection, console=out, use_cache=not no_cache,
                resume=resume is not None)
            settings[STORED_CHECK] = check.to_settings()
        # the plan and the engine, as eunomia.api.run_tasks does (the API loads every kind)
        plan = TaskPlan(suites, [Candidate(spec, name) for name, spec in candidates],
                        judge_spec, judge_repeats,
                        dict(weight_map or defaults.DIFFICULTY_WEIGHTS), rubric_obj)
        report = asyncio.run(run_evaluation(
            plan, run_name=run_name, results_dir=results, options=options,
            selection=selection, repeats=repeat, console=out, store_path=store_path,
            resume=resume is not None, retry_failed=retry_failed, use_cache=not no_cache,
            settings=settings, executor=calls_on, cache_systems=cache))
    finally:
        calls_on.close()
    for path in write_report_outputs(report, outputs, results):
        out.print(f"Written: {escape(str(path))}", soft_wrap=True)
    code = 0
    if report.failed_cases:
        out.print(f"[red]{report.failed_cases} case(s) failed; see failures.json in "
                  f"{escape(str(report.folder))}[/]")
        code = 1
    if check is not None and check.failed:
        out.print(f"[red]{check.failed} answer(s) of the judge check could not be judged; "
                  f"see run {escape(check.run)}[/]")
        code = 1
    if load_errors:
        out.print(f"[red]{load_errors} problem(s) in the suite files (listed above); the "
                  "other cases ran[/]")
        code = 1
    if code:
        raise typer.Exit(code)
