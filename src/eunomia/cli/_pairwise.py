"""``eunomia eval SUITE... --model A --model B --pairwise [--judge SPEC]``: which of two
candidates' answers does the judge prefer? Each pair is judged in both orders.

``eval`` hands its parsed options over (:func:`pairwise_eval`) when ``--pairwise`` is given;
an option of ``eval`` that means nothing for a comparison is refused by name. Also the
Python entry point :func:`run_pairwise`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import (
    check_positive,
    check_run_name,
    console,
    given,
    print_diagnostics,
    run_to_resume,
)
from eunomia.errors import EunomiaError, Severity

if TYPE_CHECKING:
    from eunomia.judge import PairwisePrompt
    from eunomia.kinds import Selection
    from eunomia.kinds.pairwise import PairwiseSummary
    from eunomia.models import ModelProvider, ModelSpec
    from eunomia.run import RunReport
    from eunomia.scheduler import RunOptions
    from eunomia.tasks import TaskSuite

KIND = "pairwise"

REFUSED: dict[str, str] = {
    "matrix": "a matrix file is not read with --pairwise: give the two candidates as "
              "--model A --model B",
    "judge_repeats": "each pair is judged once in each order: --judge-repeats is not "
                     "supported with --pairwise",
    "weights": "--weights weighs 0-5 scores by difficulty; a pairwise comparison has none",
    "rubric": "--rubric replaces the 0-5 rubric; --pairwise asks the judge with its own "
              "prompt (eunomia/judge/prompts/pairwise.txt)",
    "executor": "--pairwise makes its calls in this process: --executor ray is not "
                "supported with it",
    "ray_address": "--pairwise makes its calls in this process: --ray-address is not "
                   "supported with it",
}
"""``eval`` options refused with ``--pairwise``, and why (their defaults are accepted)."""
HARMLESS: dict[str, Any] = {"judge_repeats": 1, "executor": "local"}
"""Refused options whose value here changes nothing."""


class PairwiseArgs(BaseModel):
    """The ``eval`` options a pairwise run reads (the others are refused when given)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    paths: list[Path] = []
    model: list[str] = []
    judge: str = defaults.JUDGE_SPEC
    repeat: int = 1
    run_name: str | None = None
    results: Path = defaults.RESULTS_DIR
    store: Path | None = None
    case: list[str] = []
    max_cases: int | None = None
    concurrency: int = defaults.CONCURRENCY
    timeout: float = defaults.REQUEST_TIMEOUT_S
    retries: int = defaults.RETRIES
    retry_500: bool = False
    resume: str | None = None
    retry_failed: bool = False
    no_cache: bool = False
    cache: bool = False

    @field_validator("paths", "model", "case", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value


def _option(ctx: typer.Context, name: str) -> str:
    """How the user writes parameter ``name`` (``--judge-repeats``)."""
    found = next((p for p in ctx.command.params if p.name == name), None)
    opts = getattr(found, "opts", None) or [f"--{name.replace('_', '-')}"]
    return str(opts[0])


def refused(ctx: typer.Context, handled: set[str]) -> list[str]:
    """Why each option given with ``--pairwise`` that it does not read is refused."""
    out: list[str] = []
    for name, value in ctx.params.items():
        if name in handled or name == "pairwise" or not given(ctx, name):
            continue
        if name in HARMLESS and value == HARMLESS[name]:
            continue
        out.append(REFUSED.get(name) or f"{_option(ctx, name)} is not supported with "
                                        "--pairwise")
    return out


async def run_pairwise(
    suites: Sequence[TaskSuite],
    first: ModelSpec,
    second: ModelSpec,
    judge: ModelSpec,
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    names: Sequence[str] | None = None,
    repeats: int = 1,
    prompt: PairwisePrompt | None = None,
    selection: Selection | None = None,
    console: Console | None = None,
    store_path: Path | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    use_cache: bool = True,
    cache_systems: bool = False,
    settings: dict[str, Any] | None = None,
    providers: Mapping[str, ModelProvider] | None = None,
) -> RunReport[PairwiseSummary]:
    """Compare ``second`` (B) with ``first`` (A), named ``names`` (default their specs), on
    the selected cases of ``suites``, judged by ``judge`` in both orders; export and
    summarize (``report.summary`` is the :class:`eunomia.kinds.pairwise.PairwiseSummary`).
    ``providers`` (spec -> provider) are used instead of building them (left open)."""
    from eunomia.kinds._task_suites import Candidate
    from eunomia.kinds.pairwise import PairwisePlan
    from eunomia.run import run_evaluation

    labels = list(names) if names is not None else [first.spec, second.spec]
    if len(labels) != 2:
        raise EunomiaError("give one name per candidate (two)")
    plan = PairwisePlan(suites, Candidate(first, labels[0]), Candidate(second, labels[1]),
                        judge, prompt, providers)
    return await run_evaluation(
        plan, run_name=run_name, results_dir=results_dir, options=options,
        selection=selection, repeats=repeats, console=console, store_path=store_path,
        resume=resume, retry_failed=retry_failed, use_cache=use_cache, settings=settings,
        cache_systems=cache_systems)


def pairwise_eval(ctx: typer.Context) -> None:
    """``eval --pairwise``: the options ``eval`` parsed (``ctx.params``), checked, run."""
    import asyncio

    from eunomia.cli._prompts import default_run_name
    from eunomia.kinds import Selection
    from eunomia.kinds._task_suites import NO_JUDGE, selected_entries
    from eunomia.matrix import MatrixModel
    from eunomia.models import load_config, resolve_spec
    from eunomia.scheduler import RetryPolicy, RunOptions
    from eunomia.tasks import load_suites

    problems = refused(ctx, set(PairwiseArgs.model_fields))
    if problems:
        raise EunomiaError("; ".join(problems))
    try:
        args = PairwiseArgs.model_validate(ctx.params)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        name = str(first["loc"][0]) if first["loc"] else "?"
        raise EunomiaError(f"{_option(ctx, name)}: {first['msg']}") from None
    out = console()
    store_path = args.store or args.results / defaults.STORE_FILE
    for name, value in (("--concurrency", args.concurrency), ("--timeout", args.timeout),
                        ("--max-cases", args.max_cases), ("--repeat", args.repeat)):
        check_positive(name, value)
    check_positive("--retries", args.retries, allow_zero=True)
    if args.cache and args.no_cache:
        raise EunomiaError("--cache and --no-cache contradict each other: choose one")
    paths, judge, repeat, cache = list(args.paths), args.judge, args.repeat, args.cache
    patterns, max_cases, run_name = list(args.case), args.max_cases, args.run_name
    entries = [MatrixModel.model_construct(spec=m) for m in args.model]
    if args.resume is not None:
        st = run_to_resume(store_path, args.resume, KIND).settings
        run_name, paths = args.resume, [Path(p) for p in st.get("paths", [])]
        try:
            entries = [MatrixModel.model_validate(e) for e in st.get("models") or []]
        except ValidationError as exc:
            raise EunomiaError(f"run {args.resume!r}: its stored models cannot be read "
                               f"({exc.error_count()} problem(s)); start a new run") from None
        judge, repeat = str(st.get("judge", judge)), int(st.get("repeats", repeat))
        patterns = list(st.get("selection", {}).get("patterns", []))
        max_cases = st.get("selection", {}).get("max_cases")
        cache = bool(st.get("cache_systems", cache))
    if not paths:
        raise EunomiaError("give at least one task suite file or folder (or --resume RUN)")
    if len(entries) != 2:
        raise EunomiaError("--pairwise compares exactly two candidates: give --model A "
                           f"--model B (got {len(entries)} --model)")
    if judge.strip().lower() == NO_JUDGE:
        raise EunomiaError("--pairwise needs a judge model: --judge SPEC (not none)")
    suites, diagnostics = load_suites(paths)
    print_diagnostics(out, diagnostics)
    load_errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    if not any(s.cases for s in suites):
        raise EunomiaError("no runnable test case in the given suites")
    run_name = run_name or f"pairwise_{default_run_name()[4:]}"
    check_run_name(run_name)
    selection = Selection(tuple(patterns), max_cases)
    if patterns and not any(next(selected_entries(s, selection), None) is not None
                            for s in suites):
        raise EunomiaError(f"no test case matches {', '.join(patterns)}")
    config = load_config()
    (label_a, spec_a), (label_b, spec_b) = (e.resolve(config) for e in entries)
    judge_spec = resolve_spec(judge, config)
    settings = {"paths": [str(p) for p in paths], "models": [e.to_json() for e in entries],
                "cache_systems": cache}
    options = RunOptions(args.concurrency, RetryPolicy(
        retries=args.retries, timeout_s=args.timeout, retry_500=args.retry_500))
    report = asyncio.run(run_pairwise(
        suites, spec_a, spec_b, judge_spec, names=[label_a, label_b], run_name=run_name,
        results_dir=args.results, options=options, repeats=repeat, selection=selection,
        console=out, store_path=store_path, resume=args.resume is not None,
        retry_failed=args.retry_failed, use_cache=not args.no_cache, cache_systems=cache,
        settings=settings))
    code = 0
    if report.failed_cases:
        out.print(f"[red]{report.failed_cases} comparison(s) failed; see pairwise.json in "
                  f"{escape(str(report.folder))}[/]")
        code = 1
    if load_errors:
        out.print(f"[red]{load_errors} problem(s) in the suite files (listed above); the "
                  "other cases ran[/]")
        code = 1
    if code:
        raise typer.Exit(code)
