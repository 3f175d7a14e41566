"""``eunomia judge-check``: can a judge tell good answers from bad ones on these task suites?

Also the Python entry points: :func:`run_judge_check` (what the command runs) and
:func:`judge_check_for_eval` (``eval --judge-check``: the check of eval's judge on eval's
suites, kept as its own run beside the eval, its verdicts returned for eval to show);
:func:`check_before_eval` is what ``eval --judge-check`` calls.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import (
    check_positive,
    check_run_name,
    console,
    print_diagnostics,
    run_to_resume,
)
from eunomia.errors import EunomiaError, Severity

if TYPE_CHECKING:
    from eunomia.judge import Rubric
    from eunomia.kinds import Selection
    from eunomia.kinds.judge_check import JudgeCheckSummary, JudgeVerdict, StoredCheck
    from eunomia.models import ModelProvider, ModelSpec
    from eunomia.run import RunReport
    from eunomia.scheduler import RunOptions
    from eunomia.tasks import TaskSuite

EVAL_SUFFIX = "-judge-check"
"""``eval --judge-check`` keeps the check of its judge as the run ``<eval run>-judge-check``."""


async def run_judge_check(
    suites: "Sequence[TaskSuite]",
    judges: "Sequence[ModelSpec]",
    *,
    run_name: str,
    results_dir: Path,
    options: "RunOptions",
    names: Sequence[str] | None = None,
    judge_repeats: int = defaults.JUDGE_REPEATS,
    rubric: "Rubric | None" = None,
    weighted: bool = True,
    selection: "Selection | None" = None,
    console: Console | None = None,
    store_path: Path | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    use_cache: bool = True,
    settings: dict[str, Any] | None = None,
    providers: "Mapping[str, ModelProvider] | None" = None,
) -> "RunReport[JudgeCheckSummary]":
    """Check every judge (named ``names``, default their specs) on the selected checkable
    cases of ``suites``; export and summarize (``report.exported[i].summary`` is each
    judge's :class:`eunomia.kinds.judge_check.JudgeCheckSummary`)."""
    from eunomia.kinds.judge_check import CheckedJudge, JudgeCheckPlan
    from eunomia.run import run_evaluation

    labels = list(names) if names is not None else [j.spec for j in judges]
    if len(labels) != len(judges):
        raise EunomiaError("give one name per judge")
    plan = JudgeCheckPlan(suites, [CheckedJudge(s, n) for s, n in zip(judges, labels,
                                                                       strict=True)],
                          judge_repeats, rubric, weighted, providers)
    return await run_evaluation(
        plan, run_name=run_name, results_dir=results_dir, options=options,
        selection=selection, console=console, store_path=store_path, resume=resume,
        retry_failed=retry_failed, use_cache=use_cache, settings=settings)


@dataclass(slots=True)
class JudgeCheckOutcome:
    """What ``eval --judge-check`` gets back: the stored check and its verdicts."""

    run_name: str
    folder: Path
    verdicts: "list[JudgeVerdict]" = field(default_factory=list)
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
    suites: "Sequence[TaskSuite]",
    judge: "ModelSpec",
    *,
    eval_run: str,
    results_dir: Path,
    options: "RunOptions",
    judge_repeats: int = defaults.JUDGE_REPEATS,
    rubric: "Rubric | None" = None,
    selection: "Selection | None" = None,
    console: Console | None = None,
    store_path: Path | None = None,
    use_cache: bool = True,
    weighted: bool = defaults.JUDGE_WEIGHTED,
    provider: "ModelProvider | None" = None,
) -> JudgeCheckOutcome:
    """Check ``eval``'s judge on its suites before the eval: stored as the run
    ``<eval_run>-judge-check`` (resumed when it exists, so ``eval --resume`` asks nothing
    again; every call is cached either way), its summary printed, its verdicts returned.

    ``weighted`` is ``eval``'s own default (:data:`eunomia.defaults.JUDGE_WEIGHTED`): the check
    is of the judge as ``eval`` uses it, its requests are then exactly ``eval``'s (shared
    cache), and the sampled and probability-weighted AUCs are both reported. ``provider`` is
    the judge's, when the caller has it open already (it is left open)."""
    from eunomia.kinds.judge_check import stored_verdicts
    from eunomia.store import RunStore

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
    report = await run_judge_check(
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
    suites: "Sequence[TaskSuite]",
    judge: "ModelSpec",
    *,
    eval_run: str,
    results_dir: Path,
    store_path: Path,
    options: "RunOptions",
    judge_repeats: int,
    rubric: "Rubric | None",
    selection: "Selection",
    console: Console,
    use_cache: bool,
    resume: bool,
) -> "StoredCheck":
    """``eval --judge-check``: check eval's judge on eval's selected cases before the eval
    (once for the judge and each suite, whatever the candidates), print its verdicts, and
    return the link the eval run keeps in its settings. The eval's run name must be free
    (unless ``resume``), so that a long check is not made for an eval that cannot start."""
    import asyncio

    from eunomia.judge import Judge
    from eunomia.kinds.judge_check import StoredCheck, StoredVerdict, selected_count
    from eunomia.store import RunStore

    if not resume and store_path.is_file():
        db = RunStore(store_path)
        try:
            taken = db.get_run(eval_run) is not None
        finally:
            db.close()
        if taken:
            raise EunomiaError(f"a run named {eval_run!r} already exists in {store_path}; "
                               "choose another name or --resume it")
    if not selected_count(suites, selection):
        raise EunomiaError("--judge-check: no checkable case among the selected ones (the "
                           "check needs cases with an expected_response; conversations are "
                           "not checked); leave --judge-check out or add references")
    console.print(f"Judge check of {escape(judge.spec)} before the eval (run "
                  f"{escape(eval_run + EVAL_SUFFIX)}):")
    outcome = asyncio.run(judge_check_for_eval(
        suites, judge, eval_run=eval_run, results_dir=results_dir, options=options,
        judge_repeats=judge_repeats, rubric=rubric, selection=selection, console=console,
        store_path=store_path, use_cache=use_cache,
        # the judge asked as eval's judge asks (with or without the score probabilities):
        # the same requests, so the check and the eval share their cached calls
        weighted=Judge(rubric, settings=judge.settings).weighted))
    if outcome.failed:
        console.print(f"[red]{outcome.failed} answer(s) of the judge check could not be "
                      "judged (failed calls); the verdict leaves them out[/]")
    verdicts = [StoredVerdict(
        judge=judge.spec, suite=v.suite, level=v.level, text=v.text,
        auc=None if v.auc is None else v.auc.estimate,
        auc_low=None if v.auc is None else v.auc.low,
        auc_high=None if v.auc is None else v.auc.high) for v in outcome.verdicts]
    return StoredCheck(run=outcome.run_name, judge=judge.spec, verdicts=verdicts,
                       failed=outcome.failed)


def judge_check(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Task suite YAML files, or folders of them.", show_default=False)] = None,
    judge: Annotated[list[str] | None, typer.Option(
        "--judge", help=f"Judge model spec (default: {defaults.JUDGE_SPEC}). Repeat it to "
                        "check several judges in one run (a leaderboard by AUC at the end).",
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
    run_name: Annotated[str | None, typer.Option(
        help="Name of this run (results/<run-name>/...).")] = None,
    results: Annotated[Path, typer.Option(help="Folder for results.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
    case: Annotated[list[str] | None, typer.Option(
        "--case", help="Only cases matching this glob (case, suite/case or kind/case); "
                       "repeatable.")] = None,
    max_cases: Annotated[int | None, typer.Option(
        help="At most this many checkable cases per suite.")] = None,
    concurrency: Annotated[int, typer.Option(
        help="Requests in flight at once (1 with a local model).")] = defaults.CONCURRENCY,
    timeout: Annotated[float, typer.Option(
        help="Per-request timeout in seconds.")] = defaults.REQUEST_TIMEOUT_S,
    retries: Annotated[int, typer.Option(
        help="Retries after a failed attempt (also for an unusable judge answer).")
    ] = defaults.RETRIES,
    resume: Annotated[str | None, typer.Option(
        help="Continue an interrupted check: answers already judged are not asked again.")
    ] = None,
    retry_failed: Annotated[bool, typer.Option(
        help="With --resume, also judge again the answers that failed or were unscored.")
    ] = False,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Ask the judges again even for answers already cached.")] = False,
) -> None:
    """Check that a judge can judge: it scores answers built from each case's reference
    (the reference, another case's, its first third, a refusal, the reference padded with
    irrelevant text); the AUC says whether its scores are evidence on these suites."""
    import asyncio

    from eunomia.cli._prompts import default_run_name
    from eunomia.judge import Rubric
    from eunomia.kinds import Selection
    from eunomia.kinds.judge_check import selected_count
    from eunomia.models import load_config, resolve_spec
    from eunomia.scheduler import RetryPolicy, RunOptions
    from eunomia.tasks import load_suites

    out = console()
    store_path = store or results / defaults.STORE_FILE
    paths = list(paths or [])
    specs = list(judge or [])
    patterns = list(case or [])
    for name, value in (("--concurrency", concurrency), ("--timeout", timeout),
                        ("--max-cases", max_cases), ("--judge-repeats", judge_repeats)):
        check_positive(name, value)
    check_positive("--retries", retries, allow_zero=True)
    if resume is not None:
        info = run_to_resume(store_path, resume, "judge_check")
        st = info.settings
        run_name, paths = resume, [Path(p) for p in st.get("paths", [])]
        specs = [str(s) for s in st.get("judges") or info.targets]
        judge_repeats = int(st.get("judge_repeats", judge_repeats))
        weighted = bool(st.get("weighted", weighted))
        rubric = Path(st["rubric_option"]) if st.get("rubric_option") else None
        patterns = list(st.get("selection", {}).get("patterns", []))
        max_cases = st.get("selection", {}).get("max_cases")
    if not paths:
        raise EunomiaError("give at least one task suite file or folder (or --resume RUN)")
    suites, problems = load_suites(paths)
    print_diagnostics(out, problems)
    load_errors = sum(d.severity is Severity.ERROR for d in problems)
    if not any(s.cases for s in suites):
        raise EunomiaError("no runnable test case in the given suites")
    if run_name is None:
        run_name = f"judge_check_{default_run_name()[4:]}"
    check_run_name(run_name)
    selection = Selection(tuple(patterns), max_cases)
    if not selected_count(suites, selection):
        raise EunomiaError("no checkable case" + (f" matches {', '.join(patterns)}"
                                                  if patterns else "")
                           + ": judge-check needs cases with an expected_response "
                             "(conversations are not checked)")
    config = load_config()
    judges = [resolve_spec(s, config) for s in specs or [defaults.JUDGE_SPEC]]
    rubric_obj = Rubric.load(rubric) if rubric is not None else None
    settings = {"paths": [str(p) for p in paths],
                "rubric_option": str(rubric) if rubric is not None else None}
    options = RunOptions(concurrency, RetryPolicy(retries=retries, timeout_s=timeout))
    report = asyncio.run(run_judge_check(
        suites, judges, run_name=run_name, results_dir=results, options=options,
        judge_repeats=judge_repeats, rubric=rubric_obj, weighted=weighted,
        selection=selection, console=out, store_path=store_path, resume=resume is not None,
        retry_failed=retry_failed, use_cache=not no_cache, settings=settings))
    code = 0
    if report.failed_cases:
        out.print(f"[red]{report.failed_cases} answer(s) could not be judged (failed calls); "
                  f"see judge_check.json in {escape(str(report.folder))}[/]")
        code = 1
    if load_errors:
        out.print(f"[red]{load_errors} problem(s) in the suite files (listed above); the "
                  "other cases ran[/]")
        code = 1
    if code:
        raise typer.Exit(code)
