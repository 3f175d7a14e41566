"""``eunomia judge-check``: an adapter over :func:`eunomia.api.judge_check_command`."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from eunomia import defaults
from eunomia.cli._common import console, finish
from eunomia.cli._options import CHECK_WORDS, SCALE, run_options

if TYPE_CHECKING:
    from eunomia.run import RunRequest


@run_options(CHECK_WORDS, without=SCALE, outputs=False)
def judge_check(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Task suite YAML files, or folders of them.", show_default=False)] = None,
    judge: Annotated[list[str] | None, typer.Option(
        "--judge", help=f"Judge model spec (default: {defaults.JUDGE_SPEC}; a local model "
                        "scores by likelihood unless --judge-feedback or generate:local:...). "
                        "Repeat it to check several judges in one run (a leaderboard by AUC "
                        "at the end).",
        show_default=False)] = None,
    judge_repeats: Annotated[int, typer.Option(
        help="Score each answer this many times; >1 reports the judge's self-agreement.")
    ] = defaults.JUDGE_REPEATS,
    rubric: Annotated[Path | None, typer.Option(
        help="Rubric prompt file replacing the bundled one (a suite's metadata.rubric wins), "
             "as for eval.")] = None,
    weighted: Annotated[bool, typer.Option(
        "--weighted/--no-weighted",
        help="Also ask for the score tokens' probabilities and report the probability-"
             "weighted AUC (where the provider gives log-probabilities); --no-weighted for "
             "servers that reject 'logprobs'.")] = True,
    judge_feedback: Annotated[bool, typer.Option(
        "--judge-feedback", help="A local judge also writes its feedback (likelihood+"
                                 "feedback: the same score, about 5x slower).")] = False,
    *,
    run: "RunRequest",
) -> None:
    """Check that a judge can judge: it scores answers built from each case's reference
    (the reference, another case's, its first third, a refusal, the reference padded with
    irrelevant text) and answers that look right and are wrong (one that says nothing, the
    reference with its facts altered or its form ignored); the AUC says whether its scores
    are evidence on these suites, the rest whether it is lenient or blind to errors."""
    from eunomia.api import JudgeCheckRequest, judge_check_command

    out = console()
    finish(out, judge_check_command(JudgeCheckRequest(
        tuple(paths or ()), tuple(judge or ()), judge_repeats, rubric, weighted,
        judge_feedback), run, out))
