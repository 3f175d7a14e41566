"""Judge checks from Python: :func:`judge_check` (loaded suites, resolved judges),
:func:`judge_check_command` (what ``eunomia judge-check`` does) and :func:`check_before_eval`
(``eval --judge-check``: the check of eval's judge on eval's suites, kept as its own run
beside the eval, its verdicts returned for the eval run to keep)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.api._suites import load_task_suites, with_load_errors
from eunomia.errors import EunomiaError
from eunomia.judge import Judge, Rubric
from eunomia.kinds import Selection
from eunomia.kinds.judge_check import (
    CheckedJudge,
    HumanAnswers,
    JudgeCheckPlan,
    JudgeCheckSummary,
    JudgeVerdict,
    StoredCheck,
    StoredVerdict,
    human_answers,
    selected_count,
    stored_verdicts,
)
from eunomia.models import ModelProvider, ModelSpec, judge_spec, load_config, resolve_spec
from eunomia.run import run_evaluation, run_result, run_to_resume
from eunomia.scheduler import RunOptions
from eunomia.store import RunStore
from eunomia.tasks import TaskSuite

EVAL_SUFFIX = "-judge-check"
"""``eval --judge-check`` keeps the check of its judge as the run ``<eval run>-judge-check``."""

if TYPE_CHECKING:
    from eunomia.run import RunArgs, RunReport, RunRequest, RunResult


async def judge_check(
    suites: Sequence[TaskSuite],
    judges: Sequence[ModelSpec],
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    names: Sequence[str] | None = None,
    judge_repeats: int = defaults.JUDGE_REPEATS,
    rubric: Rubric | None = None,
    weighted: bool = True,
    providers: Mapping[str, ModelProvider] | None = None,
    human: HumanAnswers | None = None,
    **run: Unpack[RunArgs],
) -> RunReport[JudgeCheckSummary]:
    """Check every judge (named ``names``, default their specs) on the selected checkable
    cases of ``suites``; export and summarize (``report.exported[i].summary`` is each
    judge's :class:`eunomia.kinds.judge_check.JudgeCheckSummary`). ``providers`` (spec ->
    an open provider) are used instead of building them (and left open); ``human``: answers
    people scored (:func:`eunomia.kinds.judge_check.human_answers`), which each judge scores
    too, set against the people's scores; ``run``: the engine's options
    (:class:`eunomia.run.RunArgs`)."""
    labels = list(names) if names is not None else [j.spec for j in judges]
    if len(labels) != len(judges):
        raise EunomiaError("give one name per judge")
    plan = JudgeCheckPlan(suites, [CheckedJudge(s, n) for s, n in zip(judges, labels,
                                                                       strict=True)],
                          judge_repeats, rubric, weighted, providers, human)
    return await run_evaluation(plan, run_name=run_name, results_dir=results_dir,
                                options=options, **run)


@dataclass(frozen=True, slots=True)
class JudgeCheckRequest:
    """What ``eunomia judge-check`` checks beyond the shared run options: task suite files
    and the judges (none: the default judge)."""

    paths: tuple[Path, ...] = ()
    judges: tuple[str, ...] = ()
    judge_repeats: int = defaults.JUDGE_REPEATS
    rubric: Path | None = None
    weighted: bool = True
    judge_feedback: bool = False
    """A local judge writes its feedback too (``likelihood+feedback``); without, it scores
    by likelihood (:func:`eunomia.models.judge_spec`)."""


def judge_check_command(what: JudgeCheckRequest, run: RunRequest,
                        console: Console | None = None) -> RunResult[JudgeCheckSummary]:
    """What ``eunomia judge-check`` does: load the suites, resolve the judges, check them
    (or resume a stopped check)."""
    out = console or Console(stderr=True, quiet=True)
    run.check(("--judge-repeats", what.judge_repeats))
    if run.resume is not None:
        info = run_to_resume(run.store_path, run.resume, "judge_check")
        st = info.settings
        what = replace(
            what, paths=tuple(Path(p) for p in st.get("paths", [])),
            judges=tuple(str(s) for s in st.get("judges") or info.targets),
            judge_repeats=int(st.get("judge_repeats", what.judge_repeats)),
            weighted=bool(st.get("weighted", what.weighted)),
            rubric=Path(st["rubric_option"]) if st.get("rubric_option") else None)
        run = run.resumed(st)
    suites, load_errors = load_task_suites(what.paths, out)
    run = run.named("judge_check")
    if not selected_count(suites, run.selection):
        raise EunomiaError("no checkable case" + (f" matches {', '.join(run.case)}"
                                                  if run.case else "")
                           + ": judge-check needs cases with an expected_response "
                             "(conversations are not checked)")
    config = load_config()
    judges = [judge_spec(resolve_spec(s, config), feedback=what.judge_feedback)
              for s in what.judges or [defaults.JUDGE_SPEC]]
    settings = {"paths": [str(p) for p in what.paths],
                "rubric_option": str(what.rubric) if what.rubric is not None else None,
                **run.kept_settings()}
    assert run.run_name is not None
    human = human_answers(suites, run.store_path)
    for note in human.notes:
        out.print(f"[yellow]warning:[/] {escape(note)}", soft_wrap=True)
    if human.count():
        out.print(f"{human.count()} answer(s) people scored (eunomia label) are judged too: "
                  "the judge against their scores")
    report = asyncio.run(judge_check(
        suites, judges, run_name=run.run_name, results_dir=run.results, options=run.options,
        judge_repeats=what.judge_repeats,
        rubric=Rubric.load(what.rubric) if what.rubric is not None else None,
        weighted=what.weighted, console=out, settings=settings, human=human,
        **run.engine_args()))
    result = run_result(report, "answer(s) could not be judged (failed calls); see "
                                "judge_check.json")
    with_load_errors(result, load_errors)
    return result


@dataclass(slots=True)
class JudgeCheckOutcome:
    """What ``eval --judge-check`` gets back: the stored check and its verdicts."""

    run_name: str
    folder: Path
    verdicts: list[JudgeVerdict] = field(default_factory=list)
    """The judge's verdict on each suite, then over all suites (with several)."""
    failed: int = 0
    """Answers whose judge call failed after its retries."""

    @property
    def trusted(self) -> bool:
        """Whether the judge's scores are evidence on every suite (no "cannot tell")."""
        return all(v.trusted for v in self.verdicts)

    def lines(self) -> list[str]:
        """The verdicts as plain sentences (for eval's summary files and report notes)."""
        return [v.line() for v in self.verdicts]


async def judge_check_for_eval(
    suites: Sequence[TaskSuite],
    judge: ModelSpec,
    *,
    eval_run: str,
    results_dir: Path,
    options: RunOptions,
    judge_repeats: int = defaults.JUDGE_REPEATS,
    rubric: Rubric | None = None,
    selection: Selection | None = None,
    console: Console | None = None,
    store_path: Path | None = None,
    use_cache: bool = True,
    weighted: bool = defaults.JUDGE_WEIGHTED,
    provider: ModelProvider | None = None,
) -> JudgeCheckOutcome:
    """Check ``eval``'s judge on its suites before the eval: stored as the run
    ``<eval_run>-judge-check`` (resumed when it exists, so ``eval --resume`` asks nothing
    again; every call is cached either way), its summary printed, its verdicts returned.

    ``weighted`` is ``eval``'s own default (:data:`eunomia.defaults.JUDGE_WEIGHTED`): the check
    is of the judge as ``eval`` uses it, its requests are then exactly ``eval``'s (shared
    cache), and the sampled and probability-weighted AUCs are both reported. ``provider`` is
    the judge's, when the caller has it open already (it is left open)."""
    name = eval_run + EVAL_SUFFIX
    store_path = store_path or results_dir / defaults.STORE_FILE
    resume = False
    if store_path.is_file():
        db = RunStore(store_path)
        try:
            existing = db.get_run(name)
        finally:
            db.close()
        if existing is not None:
            if existing.kind != "judge_check" or existing.targets != [judge.spec]:
                raise EunomiaError(f"run {name!r} exists and is not the judge check of "
                                   f"{judge.spec}; give the eval another --run-name")
            resume = True
    report = await judge_check(
        suites, [judge], run_name=name, results_dir=results_dir, options=options,
        judge_repeats=judge_repeats, rubric=rubric, weighted=weighted, selection=selection,
        console=console, store_path=store_path, resume=resume, retry_failed=resume,
        use_cache=use_cache, settings={"for_eval": eval_run},
        providers={judge.spec: provider} if provider is not None else None)
    db = RunStore(store_path)
    try:
        verdicts = stored_verdicts(db, db.require_run(name))
    finally:
        db.close()
    return JudgeCheckOutcome(name, report.folder, verdicts, report.failed_cases)


def check_before_eval(
    suites: Sequence[TaskSuite],
    judge: ModelSpec,
    *,
    eval_run: str,
    run: RunRequest,
    judge_repeats: int,
    rubric: Rubric | None,
    console: Console,
) -> StoredCheck:
    """``eval --judge-check``: check eval's judge on eval's selected cases before the eval
    (once for the judge and each suite, whatever the candidates), print its verdicts, and
    return the link the eval run keeps in its settings. The eval's run name must be free
    (unless it is resumed), so that a long check is not made for an eval that cannot
    start."""
    store_path = run.store_path
    if run.resume is None and store_path.is_file():
        db = RunStore(store_path)
        try:
            taken = db.get_run(eval_run) is not None
        finally:
            db.close()
        if taken:
            raise EunomiaError(f"a run named {eval_run!r} already exists in {store_path}; "
                               "choose another name or --resume it")
    if not selected_count(suites, run.selection):
        raise EunomiaError("--judge-check: no checkable case among the selected ones (the "
                           "check needs cases with an expected_response; conversations are "
                           "not checked); leave --judge-check out or add references")
    console.print(f"Judge check of {escape(judge.spec)} before the eval (run "
                  f"{escape(eval_run + EVAL_SUFFIX)}):")
    outcome = asyncio.run(judge_check_for_eval(
        suites, judge, eval_run=eval_run, results_dir=run.results, options=run.options,
        judge_repeats=judge_repeats, rubric=rubric, selection=run.selection, console=console,
        store_path=store_path, use_cache=not run.no_cache,
        # the judge asked as eval's judge asks (with or without the score probabilities):
        # the same requests, so the check and the eval share their cached calls
        weighted=Judge(rubric, settings=judge.settings).weighted))
    if outcome.failed:
        console.print(f"[red]{outcome.failed} answer(s) of the judge check could not be "
                      "judged (failed calls); the verdict leaves them out[/]")
    verdicts = [StoredVerdict(
        judge=judge.spec, suite=v.suite, level=v.level, text=v.text,
        auc=None if v.auc is None else v.auc.estimate,
        auc_low=None if v.auc is None or v.auc.too_few else v.auc.low,  # too few: no bounds
        auc_high=None if v.auc is None or v.auc.too_few else v.auc.high, lenient=v.lenient)
        for v in outcome.verdicts]
    return StoredCheck(run=outcome.run_name, judge=judge.spec, verdicts=verdicts,
                       failed=outcome.failed)
