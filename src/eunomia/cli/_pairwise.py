"""``eunomia eval SUITE... --model A --model B --pairwise [--judge SPEC]``: which of two
candidates' answers does the judge prefer? Each pair is judged in both orders.

``eval`` hands its options over (:func:`pairwise_eval`) when ``--pairwise`` is given; an
option of ``eval`` that means nothing for a comparison is refused by name. The run itself is
:func:`eunomia.api.pairwise_command`.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from eunomia.cli._options import given
from eunomia.errors import EunomiaError

if TYPE_CHECKING:
    from eunomia.kinds.pairwise import PairwiseSummary
    from eunomia.run import RunRequest, RunResult

READ = frozenset({"paths", "model", "judge", "repeat", "run_name", "results", "store", "case",
                  "max_cases", "concurrency", "timeout", "retries", "retry_500", "resume",
                  "retry_failed", "no_cache", "cache", "pairwise"})
"""The ``eval`` options a pairwise run reads (the others are refused when given)."""
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


def _option(ctx: typer.Context, name: str) -> str:
    """How the user writes parameter ``name`` (``--judge-repeats``)."""
    found = next((p for p in ctx.command.params if p.name == name), None)
    opts = getattr(found, "opts", None) or [f"--{name.replace('_', '-')}"]
    return str(opts[0])


def refused(ctx: typer.Context) -> list[str]:
    """Why each option given with ``--pairwise`` that it does not read is refused."""
    out: list[str] = []
    for name, value in ctx.params.items():
        if name in READ or not given(ctx, name):
            continue
        if name in HARMLESS and value == HARMLESS[name]:
            continue
        out.append(REFUSED.get(name) or f"{_option(ctx, name)} is not supported with "
                                        "--pairwise")
    return out


def pairwise_eval(ctx: typer.Context, paths: list[Path], model: list[str], judge: str,
                  run: "RunRequest", out: Console) -> "RunResult[PairwiseSummary]":
    """``eval --pairwise``: the options ``eval`` parsed, checked, run."""
    from eunomia.api import PairwiseRequest, pairwise_command

    problems = refused(ctx)
    if problems:
        raise EunomiaError("; ".join(problems))
    return pairwise_command(PairwiseRequest.of_specs(model, paths=tuple(paths), judge=judge),
                            run, out)
