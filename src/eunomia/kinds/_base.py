"""What an evaluation kind implements, and the types the engine and every kind share.

A kind implements three things; everything else has a default (the table in
``docs/architecture.md``):

1. its **plan** (:class:`Plan`): what one run evaluates (its suites and targets), the settings
   it stores, and how each target is opened for its turn (:meth:`Plan.target`);
2. its **per-case work** (:class:`TargetRun`): the jobs of one target (:meth:`TargetRun.parts`)
   and one job done (:meth:`TargetRun.work`: ask, score, make the store row);
3. its **summary** (:class:`Kind`): the result files and one summary per target
   (:meth:`Kind.export`), and a target's leaderboard row (:meth:`Kind.leaderboard_row`).

The engine (:mod:`eunomia.run`) knows nothing of SGIs or judges. It opens or resumes the
stored run, has the plan store its suites, then, target after target, asks the kind's
:class:`TargetRun` for the cases to run (in :class:`Part` s), streams them through the
scheduler, commits every :class:`Finished` case to the store, and at the end has the kind
export its files and print its summaries. The generics say what flows through: a kind's
``Job`` (what :meth:`TargetRun.work` is given), its ``Item`` (its own record of a finished
case, handed to a live export) and its ``Summary`` (one per exported target).

A kind is a folder of ``eunomia/kinds`` whose ``KIND`` is an instance of its :class:`Kind`
subclass, named in ``eunomia/kinds/_registry.py``.
"""

from __future__ import annotations

import fnmatch
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from rich.markup import escape

from eunomia.compare import CaseFacts, RunFacts
from eunomia.errors import EunomiaError
from eunomia.kinds._neutral import neutral_record, neutral_row, neutral_rows
from eunomia.report import rank

if TYPE_CHECKING:
    from rich.console import Console

    from eunomia.errors import Diagnostic
    from eunomia.executors import Executor
    from eunomia.exports import ResultRecord
    from eunomia.report import Columns, LeaderboardRow
    from eunomia.report.html import CostBook, GroupReport
    from eunomia.scheduler import RunOptions
    from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo

Job = TypeVar("Job")
"""What a kind's :meth:`TargetRun.work` is given: one case (one repeat) to do."""
Item = TypeVar("Item")
"""A kind's own record of a finished case (handed to its live export)."""
Summary = TypeVar("Summary")
"""A kind's summary of one target's results (its terminal summary, leaderboard row, API)."""
Summary_co = TypeVar("Summary_co", covariant=True)
"""A summary read, never written: an ``Exported[TasksSummary]`` is an ``Exported[object]``."""

DoneKeys = set[tuple[str, str, str, int]]
"""(suite, target, case, repeat) of the cases a resumed run has already stored."""


@dataclass(frozen=True, slots=True)
class Selection:
    """Which cases to run: globs over case names (empty: every case), at most N per suite."""

    patterns: tuple[str, ...] = ()
    """Globs matched against ``case``, ``suite/case`` and the kind's other names of a case
    (a task case's ``category/case``)."""
    max_cases: int | None = None
    """At most this many cases per suite, in the suite's order."""

    def matches(self, suite: str, case: str, *groups: str) -> bool:
        if not self.patterns:
            return True
        names = (case, f"{suite}/{case}", *(f"{g}/{case}" for g in groups if g))
        return any(fnmatch.fnmatchcase(n, p) for p in self.patterns for n in names)

    def to_json(self) -> dict[str, object]:
        return {"patterns": list(self.patterns), "max_cases": self.max_cases}

    @classmethod
    def from_json(cls, data: object) -> Selection:
        found = data if isinstance(data, dict) else {}
        top = found.get("max_cases")
        return cls(tuple(str(p) for p in found.get("patterns") or ()),
                   int(top) if top is not None else None)


@dataclass(slots=True)
class Finished(Generic[Item]):
    """One finished case (one repeat, one target): what the engine commits to the store."""

    row: CaseRow
    blobs: Sequence[tuple[str, bytes]] = ()
    """Request/response blobs (hash, bytes) stored with the case, in its transaction."""
    cache: tuple[str, str, float | None] | None = None
    """(cache key, response blob hash, latency) of a fresh answer to remember."""
    item: Item | None = None
    """The kind's own record of the case, handed to its live export (None: unusable case)."""
    requests: int = 0
    """Requests this case made (attempts included); answers from the cache make none."""
    cache_hits: int = 0
    """Answers this case took from the response cache."""


@dataclass(slots=True)
class Part(Generic[Job, Item]):
    """A group of jobs the engine runs under one progress bar (a scenario, a target's tasks)."""

    label: str
    jobs: Iterable[Job]
    """Built lazily (a large suite is never held): each is passed to :meth:`TargetRun.work`."""
    total: int
    """How many jobs :attr:`jobs` yields (for the progress bar)."""
    invalid: list[Finished[Item]] = field(default_factory=list)
    """Cases unusable as loaded (bad file...): recorded without running anything."""


class TargetRun(ABC, Generic[Job, Item]):
    """One system under test, open for its turn: its jobs and the work of one job."""

    def __init__(self, name: str, concurrency: int) -> None:
        self.name = name
        self.concurrency = concurrency
        """Jobs kept in flight at once (lowered for a target that answers one at a time)."""

    @abstractmethod
    def parts(self, selection: Selection, repeats: int,
              done: DoneKeys) -> Iterable[Part[Job, Item]]:
        """The selected cases not in ``done``, ``repeats`` times each."""

    @abstractmethod
    async def work(self, job: Job) -> Finished[Item]:
        """Run one job. An ordinary failure (the target failed after its retries) is a
        finished case with status ``failed``; only a failure of the run itself (the store
        cannot be written) raises."""


@dataclass(frozen=True, slots=True)
class RunContext:
    """What the engine gives a plan's session."""

    store: RunStore
    run: RunInfo
    options: RunOptions
    executor: Executor
    use_cache: bool
    """False with ``--no-cache``: answers are asked anew (and the cache refreshed)."""
    console: Console
    cache_systems: bool = False
    """``--cache``: also reuse the answers of systems under test that may change without
    their configuration changing (reached over HTTP: Athena, ``http:``), from earlier runs.
    By default such a system is asked again; its answers are still cached for later."""
    noted: set[str] = field(default_factory=set)
    """The notes already printed (:meth:`note_once`)."""

    def reads_cache(self, system: object) -> bool:
        """Whether answers of ``system`` (a target or model) may come from the cache."""
        return self.use_cache and (self.cache_systems
                                   or bool(getattr(system, "cache_across_runs", True)))

    def note_once(self, text: str) -> None:
        """Print ``note: text`` the first time it is said in this run."""
        if text not in self.noted:
            self.noted.add(text)
            self.console.print(f"[yellow]note:[/] {escape(text)}")


class Session(ABC, Generic[Job, Item]):
    """What a plan holds open for the whole run (e.g. the judge, shared by every target)."""

    @abstractmethod
    def target(self, name: str) -> AbstractAsyncContextManager[TargetRun[Job, Item]]:
        """Open target ``name`` for its turn (a local model is loaded only for its turn)."""


@dataclass(slots=True)
class Exported(Generic[Summary_co]):
    """One target's results (over every suite of the run, or one suite): files and summary."""

    target: str
    folder: Path
    summary: Summary_co
    """The kind's summary (its terminal summary, leaderboard row and report read it)."""
    suite: str | None = None
    """The suite, when the kind exports per suite (scenarios); None for all suites at once."""
    failed: int = 0
    """Cases that failed or whose file is unusable (the exit code of a run is 1 then)."""
    consistency: object = None
    """The kind's consistency across repeats (with ``--repeat`` > 1) when it keeps it apart
    from the summary (scenarios: a ``ConsistencySummary``); read by the kind alone."""
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Systematic problems of these results that make a figure mean nothing (every answer
    the same, no instruction named...): shown in the terminal, the files and the report."""
    notes: list[str] = field(default_factory=list)
    """What a reader should know beside the figures (e.g. how they compare with a trivial
    baseline), shown after the summary."""
    figures: list[tuple[str, str]] = field(default_factory=list)
    """More headline figures in words, (label, text), for the summaries written after the
    run (the Markdown summary); the terminal summary shows them in its own table."""
    properties: list[tuple[str | None, str, str]] = field(default_factory=list)
    """Machine-readable figures, (suite or None for every suite, name, value): the JUnit
    properties of this target's test suites."""


class LiveExport(ABC, Generic[Item, Summary]):
    """Result files written as cases finish (a fresh run); finished at the run's end."""

    @abstractmethod
    def add(self, finished: Finished[Item]) -> None: ...

    @abstractmethod
    def finish(self, run: RunInfo) -> list[Exported[Summary]]: ...


class Plan(ABC, Generic[Job, Item, Summary]):
    """What one run evaluates: the kind, its suites, its targets and kind-specific settings.

    Implement :attr:`kind`, :attr:`targets`, :meth:`snapshot` and :meth:`target`; the rest
    has defaults (no settings of its own, files exported from the store at the end, a
    session that holds nothing open across targets)."""

    @property
    @abstractmethod
    def kind(self) -> Kind[Summary]: ...

    @property
    @abstractmethod
    def targets(self) -> Sequence[str]:
        """The targets' names in the run, in run order (the store's ``runs.targets``)."""

    def settings(self) -> dict[str, object]:
        """What the kind stores with the run (to resume it and to read its results)."""
        return {}

    @abstractmethod
    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        """Store every suite (and its prices) with ``run``; the run then reads its cases
        from the store."""

    def live_export(self, results_dir: Path,
                    run: RunInfo) -> LiveExport[Item, Summary] | None:
        """The files of a fresh run written as its cases finish, or None (the default:
        exported from the store at the end, :meth:`Kind.export`)."""
        return None

    @abstractmethod
    def target(self, context: RunContext,
               name: str) -> AbstractAsyncContextManager[TargetRun[Job, Item]]:
        """Open target ``name`` for its turn (the default session's)."""

    @asynccontextmanager
    async def session(self, context: RunContext) -> AsyncIterator[Session[Job, Item]]:
        """What is held open for the whole run; by default nothing: each target is opened
        by :meth:`target`. A plan that shares something across targets (the judge of a task
        run) overrides this."""
        yield PlanTargets(self, context)


class PlanTargets(Session[Job, Item]):
    """The default session: each target opened by its plan, nothing shared."""

    def __init__(self, plan: Plan[Job, Item, Summary], context: RunContext) -> None:
        self._plan = plan
        self._context = context

    def target(self, name: str) -> AbstractAsyncContextManager[TargetRun[Job, Item]]:
        return self._plan.target(self._context, name)


@dataclass(slots=True)
class Validation:
    """What ``eunomia validate`` found in some paths of one kind."""

    lines: list[str] = field(default_factory=list)
    """One line per suite that loaded (what it holds)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)


class NoFacts:
    """What a comparison knows of a kind's cases beyond their stored rows: nothing (the
    default: two runs are compared on what every stored case has, score, cost, latency)."""

    def case(self, row: CaseRow) -> CaseFacts | None:
        return None

    def criterion_title(self, suite: str, criterion: str) -> str | None:
        return None


READ_ERRORS = (EunomiaError, KeyError, TypeError, ValueError)
"""What reading a stored summary raises when the store holds what this version cannot read
(pydantic's ValidationError is a ValueError)."""


def guarded_rows(notes: list[str], what: str,
                 rows: Iterable[LeaderboardRow]) -> list[LeaderboardRow]:
    """``rows`` ranked, or none (and a note) when the stored ``what`` cannot be read."""
    try:
        return rank(list(rows))
    except READ_ERRORS:
        notes.append(f"the stored {what} cannot be read; no leaderboard")
        return []


class Kind(ABC, Generic[Summary]):
    """An evaluation kind: everything kind-specific about a run, before, during and after.

    Implement the descriptive attributes, :meth:`export` and :meth:`leaderboard_row` (with
    the kind's :class:`Plan` and :class:`TargetRun`). Everything else has a default: no
    suites of its own for ``eunomia validate``, a one-line terminal summary, the neutral case
    record for the CI outputs, the generic groups and leaderboard of the HTML report, and a
    comparison on what every stored case has. A kind that adds to the HTML report overrides
    :meth:`report_groups` (and :meth:`report_leaderboard`); one that adds to comparisons,
    :meth:`run_facts` and :meth:`definition_changes`.
    """

    name: str
    """Stored as the run's kind (``runs.kind``): ``scenarios``, ``tasks``..."""
    title: str
    """What people call it, e.g. "SGI scenario"."""
    command: str
    """The ``eunomia`` command that runs it (``run``, ``eval``...)."""
    columns: Columns
    """What the leaderboard's columns mean (their score label and digits are the report's)."""
    compare_score: tuple[str, str] = ("Score", "score")
    """The score's label and unit in a comparison, e.g. ("Score (%)", "%")."""
    detects: bool = False
    """Whether its cases have detection and full correctness (McNemar on both)."""
    pass_rule: str = "a case passes when it was scored"
    """How one of its cases passes in the CI outputs (said when ``--pass-score`` is refused)."""
    score_scale: str = ""
    """What a stored score is on, in the neutral case record (``0-5``, ``%``...)."""

    # --- its summary: to implement -------------------------------------------------------
    @abstractmethod
    def export(self, store: RunStore, run: RunInfo,
               results_dir: Path) -> list[Exported[Summary]]:
        """Write every result file of ``run`` from the store; one summary per target (or
        per target and suite)."""

    @abstractmethod
    def leaderboard_row(self, target: str,
                        exported: Sequence[Exported[Summary]]) -> LeaderboardRow:
        """One target's row over its exported results."""

    # --- defaults --------------------------------------------------------------------------
    def owns(self, path: Path) -> bool:
        """Whether ``path`` (a file or folder a user named) holds suites of this kind (the
        default: none of its own, e.g. a kind over another kind's suites)."""
        return False

    def validate(self, paths: Sequence[Path]) -> Validation:
        """Load every suite under ``paths`` without calling anything; report every problem."""
        return Validation()

    def print_summary(self, console: Console, exported: Exported[Summary]) -> None:
        """The terminal summary of one exported result (the default: its leaderboard row
        in one line, and where its files are)."""
        console.print(neutral_row(self.leaderboard_row(exported.target, [exported]),
                                  self.columns), soft_wrap=True)
        console.print(f"Results: {escape(str(exported.folder))}")

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        """Every stored case of ``run`` (each repeat, each target) as a neutral record, the
        records of one suite and target together: what JSON Lines, JUnit XML and the
        Markdown summary are written from (``eunomia.run.write_outputs``). The default:
        the neutral record of each stored row, passed when scored. ``pass_score`` is the
        threshold of a kind whose cases pass by their score (tasks); the others refuse it."""
        self.refuse_pass_score(pass_score)
        for suite in store.suites(run):
            for row in store.iter_cases(run, suite.name):
                yield neutral_record(run, row, score_scale=self.score_scale)

    def refuse_pass_score(self, pass_score: float | None) -> None:
        if pass_score is not None:
            raise EunomiaError("--pass-score applies to judged task runs (eunomia eval); "
                               + self.pass_rule)

    # --- the HTML report (eunomia.report.ReportKind) ----------------------------------------
    def report_groups(self, store: RunStore, run: RunInfo, suite: SuiteInfo,
                      rows: Sequence[CaseRow], costs: CostBook, notes: list[str], *,
                      worst_cases: int, repeats: int) -> list[GroupReport] | None:
        """The report's groups of ``suite`` (one per target); None (the default) for the
        generic ones: every case's status, score, cost and latency."""
        return None

    def report_leaderboard(self, store: RunStore, run: RunInfo,
                           groups: Sequence[GroupReport], notes: list[str]
                           ) -> list[LeaderboardRow]:
        """The ranked rows of a run with several targets (the default: from the groups'
        stored rows, a bootstrap interval over the cases' mean scores)."""
        return guarded_rows(notes, "results", neutral_rows(run.targets, groups))

    # --- comparisons (eunomia.compare.ComparedKind) -----------------------------------------
    def run_facts(self, store: RunStore, run: RunInfo) -> RunFacts:
        """What a comparison knows of the run's cases beyond their rows (default: nothing)."""
        return NoFacts()

    def definition_changes(self, suite: str, a: object, b: object) -> list[str] | None:
        """None when two stored definitions of ``suite`` score the same; else what changed
        (the default: nothing said beyond that they differ)."""
        return None if a == b else []
