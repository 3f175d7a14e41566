"""``eunomia eval``: an adapter over :func:`eunomia.api.eval_command` (and, with
``--pairwise``, :func:`eunomia.api.pairwise_command`)."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from eunomia import defaults
from eunomia.cli._common import console, finish
from eunomia.cli._options import EVAL_WORDS, run_options
from eunomia.errors import EunomiaError

if TYPE_CHECKING:
    from eunomia.run import RunRequest


@run_options(EVAL_WORDS)
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
        help="Judge model spec (default: the embedded qwen2.5-coder-1.5b, scoring by "
             "likelihood: a local judge reads its score's probabilities instead of writing, "
             "unless --judge-feedback or generate:local:...); 'none' makes no judge call and "
             "scores each case by its deterministic checks only (round(5 x passed / total); "
             "a case without checks is unscored).")
    ] = defaults.JUDGE_SPEC,
    judge_repeats: Annotated[int, typer.Option(
        help="Score each answer this many times; >1 reports the judge's self-agreement.")
    ] = defaults.JUDGE_REPEATS,
    weights: Annotated[str | None, typer.Option(
        help="Difficulty weights of the weighted mean.",
        show_default="easy=1,medium=2,hard=3")] = None,
    judge_feedback: Annotated[bool, typer.Option(
        "--judge-feedback", help="A local judge also writes its feedback for each answer "
                                 "(likelihood+feedback: the same score, about 5x slower).")
    ] = False,
    rubric: Annotated[Path | None, typer.Option(
        help="Rubric prompt file replacing the bundled one (a suite's metadata.rubric wins).")
    ] = None,
    pass_score: Annotated[float | None, typer.Option(
        help="A case passes (JUnit, JSON Lines, summary) when its mean judge score is at "
             "least this (0-5).", show_default="3")] = None,
    judge_check: Annotated[bool, typer.Option(
        "--judge-check", help="First check the judge on these suites (eunomia judge-check, "
                              "once per suite whatever the candidates; cached like every "
                              "call) and show its verdict beside the scores: a judge that "
                              "cannot tell good from bad answers is said so "
                              "(docs/judge-check.md).")] = False,
    controls: Annotated[str | None, typer.Option(
        help="Answers with no content the judge also scores, beside which every candidate "
             "is read: content-free (a fluent answer that says nothing checkable), "
             "other-reference (another case's reference), both separated by a comma, or "
             "none. Scored once per judge and suite (cached), stored as the run "
             "<run>-controls (docs/judge-check.md).", show_default="content-free")] = None,
    control_cases: Annotated[str | None, typer.Option(
        help="Cases per suite whose controls are scored: a seeded sample of the selected "
             "cases, or 'all'.", show_default=str(defaults.CONTROL_SAMPLE))] = None,
    pairwise: Annotated[bool, typer.Option(
        "--pairwise", help="Compare exactly two candidates (--model A --model B): the judge "
                           "says which answer is better, each pair asked in both orders "
                           "(docs/pairwise.md).")] = False,
    *,
    run: "RunRequest",
) -> None:
    """Evaluate candidate models on YAML task suites, scored 0-5 by a judge model."""
    from eunomia.api import TaskRequest, eval_command

    if pairwise and controls not in (None, "none"):
        raise EunomiaError("--controls are read against 0-5 scores; --pairwise compares two "
                           "candidates' answers directly (leave --controls out)")
    if pairwise and judge_check:
        raise EunomiaError("--judge-check checks the judge's 0-5 scores; with --pairwise, "
                           "check the judge with 'eunomia judge-check' on the same suites")
    out = console()
    if pairwise:
        from eunomia.cli._pairwise import pairwise_eval

        finish(out, pairwise_eval(ctx, paths or [], model or [], judge, run, out))
        return
    finish(out, eval_command(TaskRequest.of_specs(
        model or [], paths=tuple(paths or ()), judge=judge, judge_repeats=judge_repeats,
        weights=weights, rubric=rubric, judge_check=judge_check, pass_score=pass_score,
        matrix=matrix, controls=controls, control_cases=control_cases,
        judge_feedback=judge_feedback), run, out))
