"""Pairwise comparisons from Python: :func:`pairwise` (loaded suites, two resolved candidates
and a judge) and :func:`pairwise_command` (what ``eunomia eval --pairwise`` does)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from rich.console import Console

from eunomia import defaults
from eunomia.api._suites import given_models, load_task_suites, stored_models, with_load_errors
from eunomia.errors import EunomiaError
from eunomia.judge import PairwisePrompt
from eunomia.kinds._task_suites import NO_JUDGE, Candidate, selected_entries
from eunomia.kinds.pairwise import PairwisePlan, PairwiseSummary
from eunomia.matrix import MatrixModel
from eunomia.models import ModelProvider, ModelSpec, load_config, resolve_spec
from eunomia.run import run_evaluation, run_result, run_to_resume
from eunomia.scheduler import RunOptions
from eunomia.tasks import TaskSuite

if TYPE_CHECKING:
    from eunomia.run import RunArgs, RunReport, RunRequest, RunResult


async def pairwise(
    suites: Sequence[TaskSuite],
    first: ModelSpec,
    second: ModelSpec,
    judge: ModelSpec,
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    names: Sequence[str] | None = None,
    prompt: PairwisePrompt | None = None,
    providers: Mapping[str, ModelProvider] | None = None,
    **run: Unpack[RunArgs],
) -> RunReport[PairwiseSummary]:
    """Compare ``second`` (B) with ``first`` (A), named ``names`` (default their specs), on
    the selected cases of ``suites``, judged by ``judge`` in both orders; export and
    summarize (``report.summary`` is the :class:`eunomia.kinds.pairwise.PairwiseSummary`).
    ``providers`` (spec -> provider) are used instead of building them (left open);
    ``run``: the engine's options (:class:`eunomia.run.RunArgs`)."""
    labels = list(names) if names is not None else [first.spec, second.spec]
    if len(labels) != 2:
        raise EunomiaError("give one name per candidate (two)")
    plan = PairwisePlan(suites, Candidate(first, labels[0]), Candidate(second, labels[1]),
                        judge, prompt, providers)
    return await run_evaluation(plan, run_name=run_name, results_dir=results_dir,
                                options=options, **run)


@dataclass(frozen=True, slots=True)
class PairwiseRequest:
    """What ``eunomia eval --pairwise`` compares beyond the shared run options: task suite
    files, the two candidates (``--model A --model B``) and the judge."""

    paths: tuple[Path, ...] = ()
    models: tuple[MatrixModel, ...] = ()
    judge: str = defaults.JUDGE_SPEC

    @classmethod
    def of_specs(cls, specs: Sequence[str], **fields: Any) -> PairwiseRequest:
        return cls(models=tuple(given_models(specs)), **fields)


def pairwise_command(what: PairwiseRequest, run: RunRequest,
                     console: Console | None = None) -> RunResult[PairwiseSummary]:
    """What ``eunomia eval --pairwise`` does: load the suites, resolve both candidates and
    the judge, compare (or resume a stopped comparison)."""
    out = console or Console(stderr=True, quiet=True)
    run.check()
    if run.resume is not None:
        st = run_to_resume(run.store_path, run.resume, "pairwise").settings
        what = replace(what, paths=tuple(Path(p) for p in st.get("paths", [])),
                       models=tuple(stored_models(run.resume, st.get("models") or [])),
                       judge=str(st.get("judge", what.judge)))
        run = run.resumed(st)
    if not what.paths:
        raise EunomiaError("give at least one task suite file or folder (or --resume RUN)")
    if len(what.models) != 2:
        raise EunomiaError("--pairwise compares exactly two candidates: give --model A "
                           f"--model B (got {len(what.models)} --model)")
    if what.judge.strip().lower() == NO_JUDGE:
        raise EunomiaError("--pairwise needs a judge model: --judge SPEC (not none)")
    suites, load_errors = load_task_suites(what.paths, out)
    run = run.named("pairwise")
    selection = run.selection
    if run.case and not any(next(selected_entries(s, selection), None) is not None
                            for s in suites):
        raise EunomiaError(f"no test case matches {', '.join(run.case)}")
    config = load_config()
    (label_a, spec_a), (label_b, spec_b) = (e.resolve(config) for e in what.models)
    settings = {"paths": [str(p) for p in what.paths],
                "models": [e.to_json() for e in what.models], "cache_systems": run.cache,
                **run.kept_settings()}
    assert run.run_name is not None
    report = asyncio.run(pairwise(
        suites, spec_a, spec_b, resolve_spec(what.judge, config), names=[label_a, label_b],
        run_name=run.run_name, results_dir=run.results, options=run.options, console=out,
        settings=settings, **run.engine_args()))
    result = run_result(report, "comparison(s) failed; see pairwise.json")
    with_load_errors(result, load_errors)
    return result
