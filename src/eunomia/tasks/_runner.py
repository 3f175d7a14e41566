"""Run task suites: candidate calls and judge calls through the shared scheduler (retries,
timeouts, adaptive concurrency), every case recorded in the run store as it finishes,
result files exported from the store at the end (also when interrupted).

Mirrors :func:`eunomia.runner.run_scenarios`: run kind ``tasks``, the suites snapshotted,
``--resume`` skips the cases already stored, ``--repeat N`` runs each case N times, and
the response cache (keyed on everything that changes an answer) makes a re-run free.
"""

from __future__ import annotations

import fnmatch
import os
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.executors import ChatJob, ChatOutcome, Executor, ModelChat, Submit
from eunomia.judge import MAX_SCORE, Judge, Rubric, Verdict
from eunomia.models import ModelProvider, ModelSpec
from eunomia.pricing import PriceTable, TokenCount
from eunomia.report import TASK_COLUMNS, CaseProgress, LeaderboardRow, print_leaderboard
from eunomia.runner import RunOptions
from eunomia.scheduler import AdaptiveLimiter, CallError, stream_results
from eunomia.store import CaseRow, RunInfo, RunStore, blob_hash, json_bytes, now
from eunomia.tasks._calls import ModelCaller, chat_attempt
from eunomia.tasks._context import CaseContext
from eunomia.tasks._model import CaseList, LoadedCase, TaskSuite
from eunomia.tasks._result import CaseResult
from eunomia.tasks._snapshot import Entry, StoredCases, iter_entries, loaded_case, write_snapshot
from eunomia.tasks._summary import TasksSummary
from eunomia.tasks.kinds import get_kind

RUN_KIND = "tasks"
NO_JUDGE = "none"
"""``--judge none``: no judge model; each case is scored by its deterministic checks only."""


def checks_verdict(result: CaseResult) -> CaseResult:
    """Without a judge: one verdict scoring the case by its checks, round(5 × passed / total).

    A case with no check (or that failed) is left as it is: without verdicts it is unscored.
    """
    checks = result.all_checks()
    if result.error is not None or not checks:
        return result
    passed = sum(c.passed for c in checks)
    failed = [c.name for c in checks if not c.passed]
    feedback = f"checks: {passed}/{len(checks)} passed" + \
        (f" (failed: {'; '.join(failed)})" if failed else "")
    verdict = Verdict(score=round(MAX_SCORE * passed / len(checks)), feedback=feedback)
    return result.model_copy(update={"verdicts": [*result.verdicts, verdict]})


@dataclass(frozen=True, slots=True)
class TaskSelection:
    patterns: tuple[str, ...] = ()
    """Globs matched against ``case``, ``suite/case`` or ``kind/case``; empty selects all."""
    max_cases: int | None = None
    """At most this many cases per suite, in file order."""

    def matches(self, suite: str, kind: str, case: str) -> bool:
        if not self.patterns:
            return True
        names = (case, f"{suite}/{case}", f"{kind}/{case}")
        return any(fnmatch.fnmatchcase(n, p) for p in self.patterns for n in names)

    def apply(self, suite: TaskSuite) -> CaseList:
        """The selected cases, in file order: read on demand (each pass reads the suite's
        source again), so a large suite is never held."""

        def selected() -> Iterator[LoadedCase]:
            if isinstance(suite.source, StoredCases):
                yield from (loaded_case(e) for e in self.entries(suite))
                return
            taken = 0
            for case in suite.cases:
                if self.max_cases is not None and taken >= self.max_cases:
                    return
                if self.matches(suite.name, case.kind, case.name):
                    taken += 1
                    yield case

        return CaseList(selected)

    def entries(self, suite: TaskSuite) -> Iterator[Entry]:
        """The selected cases as snapshot entries (not built: cheap on a stored suite)."""
        taken = 0
        for entry in iter_entries(suite):
            if self.max_cases is not None and taken >= self.max_cases:
                return
            if self.matches(suite.name, entry[1], entry[0]):
                taken += 1
                yield entry

    def invalid(self, suite: TaskSuite) -> list[tuple[str, str]]:
        return [(n, r) for n, r in suite.invalid if self.matches(suite.name, "", n)]

    def to_json(self) -> dict[str, Any]:
        return {"patterns": list(self.patterns), "max_cases": self.max_cases}


@dataclass(slots=True)
class Model:
    """A model of the run: its resolved spec and (after opening) its provider."""

    spec: ModelSpec
    provider: ModelProvider | None = None
    label: str | None = None
    """A candidate's name in the run (its rows' ``target``); default: the spec."""

    @property
    def name(self) -> str:
        """The canonical spec: what identifies the model's answers (cache keys)."""
        return self.spec.spec

    @property
    def target(self) -> str:
        return self.label or self.spec.spec

    @property
    def serial(self) -> bool:
        return self.spec.kind == "local"


@dataclass(slots=True)
class TaskRunReport:
    run_name: str
    folder: Path
    store_path: Path
    summary: TasksSummary | None = None
    """The first (with one candidate: the only) model's summary."""
    summaries: dict[str, TasksSummary] = field(default_factory=dict)
    """Every candidate's summary, by its name in the run (run order)."""
    leaderboard: list[LeaderboardRow] = field(default_factory=list)
    """With several candidates: one ranked row per model, the Pareto front marked."""
    interrupted: bool = False
    requests_made: int = 0
    cache_hits: int = 0
    files: list[Path] = field(default_factory=list)

    @property
    def failed_cases(self) -> int:
        return sum(s.failed + s.invalid for s in self.summaries.values())


def open_task_run(store: RunStore, run_name: str, candidates: Sequence[str],
                  settings: dict[str, Any], *, resume: bool) -> RunInfo:
    if not resume:
        return store.create_run(run_name, RUN_KIND, list(candidates), settings)
    run = store.require_run(run_name)
    if run.kind != RUN_KIND:
        raise EunomiaError(f"run {run_name!r} is a {run.kind} run; resume it with "
                           "'eunomia run --resume'")
    if run.targets != list(candidates):
        raise EunomiaError(f"run {run_name!r} was made with model(s) {run.targets}, "
                           f"not {list(candidates)}")
    store.set_run_status(run, "running")
    return run


def price_table(*specs: ModelSpec) -> PriceTable:
    """Prices from ``models.yml`` (and the specs' own), for cost estimates."""
    from eunomia.models import load_config

    table = load_config().price_table()
    extra = {}
    for s in specs:
        if s.price is not None:
            extra[s.model] = s.price
            extra[s.spec] = s.price
    return table.merged(PriceTable(extra)) if extra else table


Blobs = list[tuple[str, bytes]]


def case_row(suite: str, target: str, case: LoadedCase | None, name: str, repeat: int,
             result: CaseResult | None, prices: PriceTable,
             error: str | None = None, status: str | None = None) -> tuple[CaseRow, Blobs]:
    """The store row of one case (headline score 0–5, tokens of every call, total cost) and
    its request/response blobs, to be stored with it in one transaction (``record_case``)."""
    blobs: Blobs = []
    request = None
    if case is not None:
        data = case.raw_json.encode()
        request = blob_hash(data)
        blobs.append((request, data))
    if result is None:
        return CaseRow(suite, target, name, repeat, status or "invalid", error, 0, None, False,
                       None, 0, 0, None, request, None, now()), blobs
    counts = [TokenCount(c.model, c.input_tokens, c.output_tokens, c.cached_input_tokens)
              for c in result.calls]
    cost = prices.summarize(counts) if counts else None
    data = json_bytes(result.model_dump(mode="json"))
    response = blob_hash(data)
    blobs.append((response, data))
    return CaseRow(
        suite=suite, target=target, case_name=name, repeat=repeat, status=result.status,
        error=result.error, attempts=result.attempts, latency_s=result.candidate_latency_s,
        cached=result.cached, score=result.score,
        input_tokens=sum(c.input_tokens for c in result.calls),
        output_tokens=sum(c.output_tokens for c in result.calls),
        cost=cost.total_cost if cost is not None else None, request=request,
        response=response, finished=now(),
    ), blobs


@dataclass(frozen=True, slots=True)
class _Job:
    suite: TaskSuite
    case: LoadedCase
    repeat: int


def _internal(exc: Exception) -> str:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return (f"internal error: {type(exc).__name__}: {exc} "
            f"({os.path.basename(where.filename)}:{where.lineno})")


async def run_tasks(
    suites: Sequence[TaskSuite],
    *,
    candidate: ModelSpec | Sequence[ModelSpec],
    judge: ModelSpec | None,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    judge_repeats: int = defaults.JUDGE_REPEATS,
    repeats: int = 1,
    weights: Mapping[str, float] | None = None,
    rubric: Rubric | None = None,
    selection: TaskSelection = TaskSelection(),
    console: Console | None = None,
    store_path: Path | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    use_cache: bool = True,
    settings: dict[str, Any] | None = None,
    providers: tuple[ModelProvider, ModelProvider] | None = None,
    executor: Executor | None = None,
    names: Sequence[str] | None = None,
) -> TaskRunReport:
    """Run every selected case of every suite ``repeats`` times; export and summarize.

    Several ``candidate`` models make a matrix run: one stored run whose ``targets`` are
    the models (``names``, default their specs), run one after the other on the same
    cases, with one judge; result files per model and a leaderboard at the end.
    ``providers`` (candidate, judge) replaces building them from the specs (they are then
    left open for their owner). A remote ``executor`` (Ray) makes the model calls on its
    workers, each building the models from their specs once; the rest stays here.
    ``judge=None`` (``--judge none``) makes no judge call: each case is scored by its
    deterministic checks (:func:`checks_verdict`); a case without checks is unscored.
    """
    if repeats < 1:
        raise EunomiaError(f"--repeat must be at least 1, got {repeats}")
    weights = dict(weights or defaults.DIFFICULTY_WEIGHTS)
    console = console or Console(stderr=True, quiet=True)
    store_path = store_path or results_dir / defaults.STORE_FILE
    specs = [candidate] if isinstance(candidate, ModelSpec) else list(candidate)
    labels = list(names) if names is not None else [s.spec for s in specs]
    if not specs or len(labels) != len(specs):
        raise EunomiaError("give one name per candidate model")
    if len(set(labels)) != len(labels):
        twice = sorted({n for n in labels if labels.count(n) > 1})
        raise EunomiaError(f"the same candidate model is given twice: {', '.join(twice)} "
                           "(give each a distinct name in a matrix file)")
    judge_obj = Judge(rubric, settings=judge.settings if judge is not None else None,
                      repeats=judge_repeats)
    prices = price_table(*specs, *([judge] if judge is not None else []))
    cands = [Model(s, label=n) for s, n in zip(specs, labels, strict=True)]
    jm = Model(judge) if judge is not None else None
    store = RunStore(store_path)
    report = TaskRunReport(run_name, results_dir / run_name, store_path)
    try:
        run_settings = {
            **(settings or {}), "repeats": repeats,
            "judge": judge.spec if judge is not None else NO_JUDGE,
            "judge_repeats": judge_repeats, "weights": weights,
            "rubric": str(judge_obj.rubric.path), "selection": selection.to_json(),
        }
        run = open_task_run(store, run_name, labels, run_settings, resume=resume)
        done = store.finished_keys(run, include_failed=not retry_failed) if resume else set()
        # stored chunk by chunk; the run then reads its cases from the store, not the file
        suites = [write_snapshot(store, run, suite, prices.to_json()) for suite in suites]
        status = "interrupted"
        try:
            with store.grouped():  # cases finishing together share a commit
                await _run(store, run, suites, cands, jm,
                           judge_obj if jm is not None else None, selection, repeats, done,
                           options, use_cache, prices, console, report, providers, executor)
            status = "complete"
        finally:
            store.set_run_status(run, status)
            run = store.require_run(run_name)
            report.interrupted = status != "complete"
            from eunomia.exports._task_files import export_task_run, task_leaderboard

            exported = export_task_run(store, run, results_dir)
            report.summaries = {e.target: e.summary for e in exported}
            report.summary = exported[0].summary if exported else None
            report.files = [f for e in exported for f in e.files]
        from eunomia.tasks._report import print_tasks_summary

        for e in exported:
            print_tasks_summary(console, e.summary, str(e.folder))
        if len(cands) > 1:
            report.leaderboard = task_leaderboard(exported)
            print_leaderboard(console, report.leaderboard, TASK_COLUMNS)
        if report.cache_hits:
            console.print(f"{report.cache_hits} model call(s) answered from the cache "
                          "(no request made); --no-cache to ask again")
    finally:
        store.close()
    return report


def _jobs(suites: Sequence[TaskSuite], selection: TaskSelection, repeats: int, target: str,
          done: set[tuple[str, str, str, int]]) -> Iterator[_Job]:
    """The cases to run, built one at a time as the workers take them (never all at once)."""
    for r in range(repeats):
        for suite in suites:
            for entry in selection.entries(suite):
                if (suite.name, target, entry[0], r) not in done:
                    yield _Job(suite, loaded_case(entry), r)


def _count_jobs(suites: Sequence[TaskSuite], selection: TaskSelection, repeats: int,
                target: str, done: set[tuple[str, str, str, int]]) -> int:
    """How many jobs :func:`_jobs` yields, without building them."""
    if not done and not selection.patterns and selection.max_cases is None \
            and all(s.case_count is not None for s in suites):
        return repeats * sum(s.case_count or 0 for s in suites)
    return sum(1 for r in range(repeats) for s in suites for e in selection.entries(s)
               if (s.name, target, e[0], r) not in done)


async def _run(store: RunStore, run: RunInfo, suites: Sequence[TaskSuite],
               cands: Sequence[Model], jm: Model | None, judge: Judge | None,
               selection: TaskSelection, repeats: int,
               done: set[tuple[str, str, str, int]], options: RunOptions, use_cache: bool,
               prices: PriceTable, console: Console, report: TaskRunReport,
               providers: tuple[ModelProvider, ModelProvider] | None,
               executor: Executor | None = None) -> None:
    """The candidates one after the other (each provider open only for its turn, so two
    local models are never loaded at once); the judge is opened once and shared."""
    from eunomia.models import get_model

    remote = executor is not None and executor.remote
    owned: list[ModelProvider] = []
    sessions = AsyncExitStack()  # with a remote executor: one per model (and its limiter)
    side: _JudgeSide | None = None
    noted = False
    try:
        if jm is not None:
            provider = providers[1] if providers is not None else get_model(jm.spec)
            if providers is None:
                owned.append(provider)
            limiter = AdaptiveLimiter(1 if jm.serial and not remote else options.concurrency)
            submit = None
            if executor is not None and remote:
                submit = await sessions.enter_async_context(executor.session(
                    ModelChat(jm.spec, options.policy, chat_attempt), options.concurrency))
            side = _JudgeSide(jm.name, provider, limiter, submit, ModelCaller(
                provider, jm.name, "judge", policy=options.policy, limiter=limiter,
                store=store, use_cache=use_cache, submit=submit))
        for cand in cands:
            concurrency = options.concurrency
            if (cand.serial or (jm is not None and jm.serial)) and concurrency > 1 \
                    and not remote:
                if not noted:
                    console.print("[yellow]note:[/] a local model answers one request at a "
                                  f"time; concurrency lowered from {concurrency} to 1")
                    noted = True
                concurrency = 1
            await _run_candidate(
                store, run, suites, cand, judge, side, selection, repeats, done, options,
                concurrency, use_cache, prices, console, report, providers, executor)
    finally:
        if side is not None:
            report.requests_made += side.caller.requests_made
            report.cache_hits += side.caller.cache_hits
        await sessions.aclose()
        for p in owned:
            await p.close()


@dataclass(slots=True)
class _JudgeSide:
    """The judge of a run, opened once and shared by every candidate."""

    name: str
    provider: ModelProvider
    limiter: AdaptiveLimiter
    submit: Submit[ChatJob, ChatOutcome] | None
    caller: ModelCaller


async def _run_candidate(
    store: RunStore, run: RunInfo, suites: Sequence[TaskSuite], cand: Model,
    judge: Judge | None, side: _JudgeSide | None, selection: TaskSelection,
    repeats: int, done: set[tuple[str, str, str, int]], options: RunOptions, concurrency: int,
    use_cache: bool, prices: PriceTable, console: Console, report: TaskRunReport,
    providers: tuple[ModelProvider, ModelProvider] | None, executor: Executor | None,
) -> None:
    """Every selected case of one candidate model (its rows' target: ``cand.target``).

    When the candidate is the judge's model, one provider, one limiter and one (remote)
    session serve both roles.
    """
    from eunomia.models import get_model

    remote = executor is not None and executor.remote
    judge_caller = side.caller if side is not None else None
    shared = side if side is not None and side.name == cand.name else None
    owned: list[ModelProvider] = []
    sessions = AsyncExitStack()
    if providers is not None:
        cand.provider = providers[0]
    elif shared is not None:
        cand.provider = shared.provider
    else:
        cand.provider = get_model(cand.spec)
        owned.append(cand.provider)
    limiter = shared.limiter if shared is not None else AdaptiveLimiter(concurrency)
    target = cand.target
    cand_submit = None
    candidate: ModelCaller | None = None
    try:
        if executor is not None and remote:
            cand_submit = shared.submit if shared is not None else \
                await sessions.enter_async_context(executor.session(
                    ModelChat(cand.spec, options.policy, chat_attempt), concurrency))
            concurrency = executor.in_flight(concurrency)
        candidate = ModelCaller(cand.provider, cand.name, "candidate", policy=options.policy,
                                limiter=limiter, store=store, use_cache=use_cache,
                                submit=cand_submit)
        rubrics = {s.name: Rubric.from_text(s.rubric, Path(s.rubric_path or s.path))
                   for s in suites if s.rubric}
        guidance: dict[str, str] = {}
        jobs = _jobs(suites, selection, repeats, target, done)
        total = _count_jobs(suites, selection, repeats, target, done)
        invalid = [(s, n, reason, r) for r in range(repeats) for s in suites
                   for n, reason in selection.invalid(s)
                   if (s.name, target, n, r) not in done]
        label = "tasks" if len(run.targets) == 1 else f"{target} tasks"
        with CaseProgress(console, total + len(invalid), label) as progress:
            for s, n, reason, r in invalid:
                row, blobs = case_row(s.name, target, None, n, r, None, prices, error=reason)
                store.record_case(run, row, blobs)
                progress.advance(True)

            async def job(j: _Job, candidate: ModelCaller = candidate) -> tuple[_Job, CaseResult]:
                kind = get_kind(j.case.kind)
                if kind.name not in guidance:
                    guidance[kind.name] = kind.guidance()
                ctx = CaseContext(candidate=candidate, judge_caller=judge_caller, judge=judge,
                                  settings=cand.spec.settings, repeat=j.repeat,
                                  guidance=guidance[kind.name],
                                  rubric=rubrics.get(j.suite.name))
                try:
                    result = await kind.runner(j.case, ctx)
                    return j, result if judge_caller is not None else checks_verdict(result)
                except CallError as exc:
                    err = f"{exc.reason} (after {exc.attempts} attempt(s))"
                except EunomiaError:
                    raise
                except Exception as exc:  # a bug must not lose the rest of the run
                    err = _internal(exc)
                return j, CaseResult(kind=j.case.kind, error=err, calls=ctx.calls)

            # the cases recorded since the consumer last waited are committed together
            async for j, result in stream_results(jobs, job, concurrency, on_idle=store.flush):
                row, blobs = case_row(j.suite.name, target, j.case, j.case.name, j.repeat,
                                      result, prices)
                store.record_case(run, row, blobs)
                progress.advance(result.status != "scored")
    finally:
        if candidate is not None:
            report.requests_made += candidate.requests_made
            report.cache_hits += candidate.cache_hits
        await sessions.aclose()
        for p in owned:
            await p.close()


