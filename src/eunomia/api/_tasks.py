"""Judged task suites from Python: :func:`run_tasks` (loaded suites, resolved candidate and
judge) and :func:`eval_command` (what ``eunomia eval`` does: suite files and model specs, a
matrix file, a resumed run, the judge checked first, the CI outputs)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.api._controls import controls_before_eval
from eunomia.api._suites import given_models, load_task_suites, stored_models, with_load_errors
from eunomia.errors import EunomiaError
from eunomia.judge import Rubric
from eunomia.kinds._task_suites import NO_JUDGE, Candidate, scored_other_answers, selected_entries
from eunomia.kinds.judge_check import SETTING as STORED_CHECK
from eunomia.kinds.tasks import (
    CONTROLS_SETTING,
    TaskPlan,
    TasksSummary,
    check_pass_score,
    parse_controls,
    parse_sample,
    stored_controls,
)
from eunomia.matrix import MatrixModel
from eunomia.models import ModelProvider, ModelSpec, load_config, resolve_spec
from eunomia.models import judge_spec as scoring_judge
from eunomia.run import run_evaluation, run_result, run_to_resume
from eunomia.scheduler import RunOptions
from eunomia.tasks import TaskSuite

if TYPE_CHECKING:
    from eunomia.run import RunArgs, RunReport, RunRequest, RunResult
    from eunomia.store import RunInfo


async def run_tasks(
    suites: Sequence[TaskSuite],
    *,
    candidate: ModelSpec | Sequence[ModelSpec],
    judge: ModelSpec | None,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    judge_repeats: int = defaults.JUDGE_REPEATS,
    weights: Mapping[str, float] | None = None,
    rubric: Rubric | None = None,
    providers: tuple[ModelProvider, ModelProvider] | None = None,
    names: Sequence[str] | None = None,
    **run: Unpack[RunArgs],
) -> RunReport[TasksSummary]:
    """Run every selected case of every suite (``repeats`` times) on each ``candidate``
    (named ``names``, default their specs), judged by ``judge`` (None: ``--judge none``,
    each case scored by its checks); export and summarize. ``run``: the engine's options
    (:class:`eunomia.run.RunArgs`: selection, repeats, resume, cache, executor...).

    ``providers`` (candidate, judge) replaces building them from the specs (they are then
    left open for their owner).
    """
    specs = [candidate] if isinstance(candidate, ModelSpec) else list(candidate)
    labels = list(names) if names is not None else [s.spec for s in specs]
    if not specs or len(labels) != len(specs):
        raise EunomiaError("give one name per candidate model")
    plan = TaskPlan(suites, [Candidate(s, n) for s, n in zip(specs, labels, strict=True)],
                    judge, judge_repeats, dict(weights or defaults.DIFFICULTY_WEIGHTS), rubric,
                    providers)
    return await run_evaluation(plan, run_name=run_name, results_dir=results_dir,
                                options=options, **run)


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


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """What ``eunomia eval`` evaluates beyond the shared run options: task suite files, the
    candidate models (``--model`` specs, or a matrix file's models) and the judge."""

    paths: tuple[Path, ...] = ()
    models: tuple[MatrixModel, ...] = ()
    judge: str = defaults.JUDGE_SPEC
    """A model spec, or ``none``: each case scored by its deterministic checks."""
    judge_repeats: int = defaults.JUDGE_REPEATS
    weights: str | None = None
    """``easy=1,medium=2,hard=3``: the difficulty weights of the weighted mean."""
    rubric: Path | None = None
    judge_check: bool = False
    """Check the judge on these suites first (``eunomia judge-check``) and keep its verdict."""
    pass_score: float | None = None
    """A case passes (JUnit, JSON Lines, summary) at this mean score (default 3)."""
    matrix: Path | None = None
    controls: str | None = None
    """``--controls``: ``none``, or the controls scored beside the candidates (default
    ``content-free``; ``content-free,other-reference``)."""
    judge_feedback: bool = False
    """A local judge writes its feedback too (``likelihood+feedback``); without, it scores
    by likelihood (:func:`eunomia.models.judge_spec`)."""
    control_cases: str | None = None
    """``--control-cases``: cases per suite whose controls are scored (default 20), or
    ``all``."""

    @classmethod
    def of_specs(cls, specs: Sequence[str], **fields: Any) -> TaskRequest:
        """The request with ``--model`` specs (resolved when the run starts)."""
        return cls(models=tuple(given_models(specs)), **fields)


@dataclass(frozen=True, slots=True)
class _Resolved:
    what: TaskRequest
    run: RunRequest
    weights: dict[str, float]


def _prepared(what: TaskRequest, run: RunRequest) -> _Resolved:
    """The matrix file merged in, or the stopped run's settings read back."""
    weights = parse_weights(what.weights)
    if what.matrix is not None:
        from eunomia.matrix import load_task_matrix  # YAML only when a file is given

        run = run.with_matrix(m := load_task_matrix(what.matrix, load_config()),
                              "models, suites")
        if m.weights is not None and what.weights is None:
            weights.update({str(k): v for k, v in m.weights.items()})
        what = replace(what, paths=(*m.suite_paths(), *what.paths),
                       models=(*m.models, *what.models),
                       judge=run.given("judge", what.judge, m.judge),
                       judge_repeats=run.given("judge_repeats", what.judge_repeats,
                                               m.judge_repeats),
                       rubric=run.given("rubric", what.rubric, m.rubric_path()),
                       judge_feedback=run.given("judge_feedback", what.judge_feedback,
                                                m.judge_feedback),
                       judge_check=run.given("judge_check", what.judge_check, m.judge_check),
                       pass_score=run.given("pass_score", what.pass_score, m.pass_score),
                       controls=run.given("controls", what.controls, m.controls),
                       control_cases=run.given(
                           "control_cases", what.control_cases,
                           None if m.control_cases is None else str(m.control_cases)))
        if what.controls == m.controls and m.controls is not None:
            try:  # the control names are the kind's: checked here, naming the file's key
                parse_controls(m.controls)
            except EunomiaError as exc:
                raise m.refused("controls", exc.message.removeprefix("--controls ")) from None
    run.check(("--judge-repeats", what.judge_repeats))
    if run.resume is None:
        return _Resolved(what, run, weights)
    info = run_to_resume(run.store_path, run.resume, "tasks")
    st = info.settings
    models = stored_models(run.resume, st.get("models")) if st.get("models") \
        else [MatrixModel(spec=t) for t in info.targets]  # stored before matrix runs
    if what.judge_check and STORED_CHECK not in st:
        raise EunomiaError(f"run {run.resume!r} was started without --judge-check, so its "
                           "results have no place for the check: run 'eunomia "
                           "judge-check' on its suites, or start a new eval")
    what = replace(what, paths=tuple(Path(p) for p in st.get("paths", [])),
                   models=tuple(models), judge=str(st.get("judge", what.judge)),
                   judge_repeats=int(st.get("judge_repeats", what.judge_repeats)),
                   rubric=Path(st["rubric_option"]) if st.get("rubric_option") else None,
                   judge_check=STORED_CHECK in st)  # a run started with the check keeps it
    controls, control_cases = _stored_controls(info)
    what = replace(what, controls=controls, control_cases=control_cases)
    weights = {k: float(v) for k, v in (st.get("weights") or weights).items()}
    return _Resolved(what, run.resumed(st), weights)


def _stored_controls(info: RunInfo) -> tuple[str, str | None]:
    """(--controls, --control-cases) of a run to resume: its own (none when it was started
    without)."""
    link = stored_controls(info)
    if link is None:
        return "none", None
    return ",".join(link.controls), "all" if link.sample is None else str(link.sample)


def eval_command(what: TaskRequest, run: RunRequest,
                 console: Console | None = None) -> RunResult[TasksSummary]:
    """What ``eunomia eval`` does: load the suites, resolve the models, check the judge
    first when asked, run (or resume) the evaluation, write the CI outputs asked for."""
    out = console or Console(stderr=True, quiet=True)
    resolved = _prepared(what, run)
    what, run = resolved.what, resolved.run
    outputs = run.outputs(check_pass_score(what.pass_score))  # a matrix file's pass_score
    no_judge = what.judge.strip().lower() == NO_JUDGE
    controls, sample = parse_controls(what.controls), parse_sample(what.control_cases)
    if no_judge and controls and what.controls is not None:
        raise EunomiaError("--controls are scored by the judge, and --judge none has no "
                           "judge: give --judge SPEC, or leave --controls out")
    if what.judge_check and no_judge:
        raise EunomiaError("--judge-check checks the judge, and --judge none has no judge "
                           "(each case is scored by its checks only): give --judge SPEC, or "
                           "leave --judge-check out")
    if not what.paths:
        raise EunomiaError("give at least one task suite file or folder (or --resume RUN)")
    calls_on = run.open_executor()  # fails fast
    if not what.models:
        raise EunomiaError("give the candidate model: --model SPEC (e.g. local, "
                           "openai:gpt-4o-mini), repeated to compare several, or --matrix FILE")
    suites, load_errors = load_task_suites(what.paths, out)
    run = run.named("eval")
    selection = run.selection
    if run.case and not any(next(selected_entries(s, selection), None) is not None
                            or any(selection.matches(s.name, n) for n, _ in s.invalid)
                            for s in suites):
        raise EunomiaError(f"no test case matches {', '.join(run.case)}")
    config = load_config()
    candidates = [e.resolve(config) for e in what.models]
    for warning in scored_other_answers(suites, [name for name, _ in candidates],
                                        judged=not no_judge):
        out.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
    judge_spec = None if no_judge else scoring_judge(resolve_spec(what.judge, config),
                                                     feedback=what.judge_feedback)
    rubric = Rubric.load(what.rubric) if what.rubric is not None else None
    settings: dict[str, Any] = {
        "paths": [str(p) for p in what.paths],
        "rubric_option": str(what.rubric) if what.rubric is not None else None,
        "models": [e.to_json() for e in what.models], "cache_systems": run.cache,
        **({"matrix": str(what.matrix)} if what.matrix is not None else {}),
        **run.kept_settings(), **calls_on.settings()}
    assert run.run_name is not None
    check = None
    link = None
    try:
        if what.judge_check and judge_spec is not None:  # once, whatever the models
            # the judge-check kind loads only when an eval runs the check (start-up)
            from eunomia.api._judge_check import check_before_eval

            check = check_before_eval(suites, judge_spec, eval_run=run.run_name, run=run,
                                      judge_repeats=what.judge_repeats, rubric=rubric,
                                      console=out)
            settings[STORED_CHECK] = check.to_settings()
        if controls and judge_spec is not None:  # once, whatever the models
            link = controls_before_eval(
                suites, judge_spec, eval_run=run.run_name, run=run, controls=controls,
                sample=sample, judge_repeats=what.judge_repeats,
                weights=resolved.weights or defaults.DIFFICULTY_WEIGHTS, rubric=rubric,
                console=out, executor=calls_on)
            if link is not None:
                settings[CONTROLS_SETTING] = link.to_settings()
        plan = TaskPlan(suites, [Candidate(spec, name) for name, spec in candidates],
                        judge_spec, what.judge_repeats,
                        dict(resolved.weights or defaults.DIFFICULTY_WEIGHTS), rubric)
        report = asyncio.run(run_evaluation(
            plan, run_name=run.run_name, results_dir=run.results, options=run.options,
            console=out, settings=settings, executor=calls_on, **run.engine_args()))
    finally:
        calls_on.close()
    result = run_result(report, "case(s) failed; see failures.json", outputs, run.results)
    if check is not None and check.failed:
        result.failures.append(f"{check.failed} answer(s) of the judge check could not be "
                               f"judged; see run {check.run}")
    if link is not None and link.failed:
        result.failures.append(f"{link.failed} control answer(s) could not be judged; see "
                               f"run {link.run}")
    with_load_errors(result, load_errors)
    return result
