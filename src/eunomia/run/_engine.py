"""The run loop, the same for every kind of evaluation.

Open (or resume) the stored run, have the plan store its suites, then target after target
stream the kind's jobs through the scheduler, committing every finished case to the store
as it finishes (cases that finish together share a commit), and at the end export the
result files and print the summaries — also when the run is interrupted, so finished work
is never lost and ``--resume`` continues where it stopped.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypedDict

from rich.console import Console

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.executors import Executor, LocalExecutor
from eunomia.kinds import (
    DoneKeys,
    Exported,
    Finished,
    Item,
    Job,
    LiveExport,
    Plan,
    RunContext,
    Selection,
    Summary,
    Summary_co,
    TargetRun,
)
from eunomia.report import CaseProgress, LeaderboardRow
from eunomia.run._export import finish_files, print_results
from eunomia.run._open import open_run
from eunomia.scheduler import RunOptions, stream_results
from eunomia.store import RunInfo, RunStore


@dataclass(slots=True)
class RunReport(Generic[Summary_co]):
    """What a run did: where its results are, its exported summaries (of the kind's own
    type: a ``RunReport[TasksSummary]``...), what it asked."""

    def __repr__(self) -> str:
        # Short on purpose: asyncio.run() formats the finished main task (whose result this
        # is) when it restores the SIGINT handler, and the generated repr of every summary
        # and outcome took ~0.2 ms of CPU per case and tens of MB for a large run.
        return (f"RunReport(run_name={self.run_name!r}, kind={self.kind!r}, "
                f"folder={str(self.folder)!r}, targets={len(self.exported)}, "
                f"requests_made={self.requests_made}, cache_hits={self.cache_hits})")

    run_name: str
    folder: Path
    store_path: Path
    kind: str = ""
    exported: list[Exported[Summary_co]] = field(default_factory=list)
    leaderboard: list[LeaderboardRow] = field(default_factory=list)
    """With several targets: one ranked row per target, the Pareto front marked."""
    interrupted: bool = False
    requests_made: int = 0
    cache_hits: int = 0

    @property
    def summaries(self) -> dict[str, Summary_co]:
        """Every exported summary, by target (``target/suite`` for a kind that exports each
        suite apart), in run order."""
        return {e.target if e.suite is None else f"{e.target}/{e.suite}": e.summary
                for e in self.exported}

    @property
    def summary(self) -> Summary_co | None:
        """The first (with one target and one suite: the only) summary."""
        return self.exported[0].summary if self.exported else None

    @property
    def files(self) -> list[Path]:
        return [f for e in self.exported for f in e.files]

    @property
    def failed_cases(self) -> int:
        """Cases that failed (or whose file is unusable), over every target and suite."""
        return sum(e.failed for e in self.exported)


class RequestArgs(TypedDict, total=False):
    """What the engine takes of the run options every command shares
    (``eunomia.run.RunRequest.engine_args``)."""

    selection: Selection | None
    repeats: int
    store_path: Path | None
    resume: bool
    retry_failed: bool
    use_cache: bool
    cache_systems: bool


class RunArgs(RequestArgs, total=False):
    """The engine's keyword options beyond the plan, the run's name and folder and how calls
    are made (see :func:`run_evaluation`); every function of ``eunomia.api`` takes them."""

    console: Console | None
    settings: dict[str, Any] | None
    executor: Executor | None


async def run_evaluation(
    plan: Plan[Job, Item, Summary],
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    selection: Selection | None = None,
    repeats: int = 1,
    console: Console | None = None,
    store_path: Path | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    use_cache: bool = True,
    settings: dict[str, Any] | None = None,
    executor: Executor | None = None,
    cache_systems: bool = False,
) -> RunReport[Summary]:
    """Evaluate every selected case of every suite of ``plan`` on every target,
    ``repeats`` times, and export the results.

    ``settings`` (what the command line needs to resume: paths, specs...) is stored with
    the run beside the plan's own. With ``resume``, cases already stored are not run
    again (failed ones are, with ``retry_failed``). ``executor`` says where the calls are
    made (default: this process). ``cache_systems`` (``--cache``) also reuses the cached
    answers of systems that may change behind an unchanged configuration (see
    :class:`eunomia.kinds.RunContext`).
    """
    if repeats < 1:
        raise EunomiaError(f"--repeat must be at least 1, got {repeats}")
    selection = selection or Selection()
    targets = list(plan.targets)
    if len(set(targets)) != len(targets):
        twice = sorted({t for t in targets if targets.count(t) > 1})
        raise EunomiaError(f"the same target is given twice: {', '.join(twice)} "
                           "(give each a distinct name in a matrix file)")
    console = console or Console(stderr=True, quiet=True)
    store_path = store_path or results_dir / defaults.STORE_FILE
    store = RunStore(store_path)
    kind = plan.kind
    report: RunReport[Summary] = RunReport(run_name, results_dir / run_name, store_path,
                                           kind.name)
    try:
        run_settings = {**(settings or {}), **plan.settings(), "repeats": repeats,
                        "selection": selection.to_json()}
        folder_existed = report.folder.exists()
        run = open_run(store, kind.name, run_name, targets, run_settings, resume=resume)
        live: LiveExport[Item, Summary] | None = None
        try:
            done = store.finished_keys(run, include_failed=not retry_failed) if resume \
                else set()
            plan.snapshot(store, run)
            # A fresh run may write its files as cases finish; a resumed one is exported
            # from the store at the end, so the cases of the earlier attempt are included.
            live = None if resume else plan.live_export(results_dir, run)
        except EunomiaError:  # e.g. an unwritable results folder: nothing was asked yet
            if not _stopped_before_any_case(store, run, report.folder, folder_existed, live,
                                            resume):
                store.set_run_status(run, "interrupted")
            raise
        status = "interrupted"
        context = RunContext(store, run, options, executor or LocalExecutor(), use_cache,
                             console, cache_systems)
        try:
            with store.grouped():  # cases finishing together share a commit
                async with plan.session(context) as session:
                    for name in targets:
                        async with session.target(name) as target:
                            await _run_target(store, run, target, selection, repeats, done,
                                              console, report, live)
            status = "complete"
        except EunomiaError:  # a configuration error before the first case: no run at all
            if _stopped_before_any_case(store, run, report.folder, folder_existed, live,
                                        resume):
                status = "discarded"
            raise
        finally:
            if status != "discarded":
                store.set_run_status(run, status)
                run = store.require_run(run_name)
                report.interrupted = status != "complete"
                report.exported, report.leaderboard = finish_files(store, run, results_dir,
                                                                   kind, live)
        print_results(console, kind, report.exported, report.leaderboard)
        if report.cache_hits:
            console.print(cache_line(report.cache_hits, report.requests_made))
    finally:
        store.close()
    return report


def _stopped_before_any_case(store: RunStore, run: RunInfo, folder: Path, folder_existed: bool,
                             live: LiveExport[Item, Summary] | None, resume: bool) -> bool:
    """A new run stopped by an error before it stored any case (a missing API key, an
    unwritable folder...) is forgotten — its name stays free for the same command once the
    error is put right — with the folder it created; True when it was. Otherwise (a resumed
    run, or cases stored) it stays to be resumed."""
    if resume or store.run_totals(run).cases:
        return False
    if live is not None:
        with contextlib.suppress(EunomiaError, OSError):
            live.finish(run)  # closes its files (removed below)
    if not store.discard_run(run):
        return False
    if not folder_existed:
        shutil.rmtree(folder, ignore_errors=True)
    return True


def cache_line(cache_hits: int, requests_made: int) -> str:
    """What the run took from the cache, beside what it asked (retries counted)."""
    made = f"{requests_made} made" if requests_made else "none made"
    return (f"{cache_hits} request(s) answered from the cache, {made}; "
            "--no-cache to ask again")


async def _run_target(store: RunStore, run: RunInfo, target: TargetRun[Job, Item],
                      selection: Selection, repeats: int, done: DoneKeys, console: Console,
                      report: RunReport[Summary], live: LiveExport[Item, Summary] | None
                      ) -> None:
    for part in target.parts(selection, repeats, done):
        label = part.label if len(run.targets) == 1 else f"{target.name} {part.label}"
        with CaseProgress(console, part.total + len(part.invalid), label) as progress:

            def record(finished: Finished[Item], _progress: CaseProgress = progress) -> None:
                store.record_case(run, finished.row, finished.blobs, finished.cache)
                if live is not None:
                    live.add(finished)
                report.requests_made += finished.requests
                report.cache_hits += finished.cache_hits
                _progress.advance(finished.row.status != "scored")

            for finished in part.invalid:
                record(finished)
            # committed in groups (RunStore.grouped)
            async for finished in stream_results(part.jobs, target.work, target.concurrency):
                record(finished)
