"""What an evaluation kind implements, and the types the engine and every kind share.

The engine (:mod:`eunomia.run`) knows nothing of SGIs or judges. It opens or resumes the
stored run, has the :class:`Plan` store its suites, then, target after target, asks the
kind's :class:`TargetRun` for the cases to run (in :class:`Part` s), streams them through
the scheduler, commits every :class:`Finished` case to the store, and at the end has the
kind export its files and print its summaries. A kind is a folder of ``eunomia/kinds``
with one object implementing :class:`Kind`, registered in ``eunomia/kinds/__init__.py``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from eunomia.compare import ComparedKind
from eunomia.report import ReportKind

if TYPE_CHECKING:
    from rich.console import Console

    from eunomia.errors import Diagnostic
    from eunomia.executors import Executor
    from eunomia.exports import ResultRecord
    from eunomia.report import Columns, LeaderboardRow
    from eunomia.scheduler import RunOptions
    from eunomia.store import CaseRow, RunInfo, RunStore

DoneKeys = set[tuple[str, str, str, int]]
"""(suite, target, case, repeat) of the cases a resumed run has already stored."""


@dataclass(frozen=True, slots=True)
class Selection:
    """Which cases to run: globs over case names (empty: every case), at most N per suite."""

    patterns: tuple[str, ...] = ()
    """Globs matched against ``case``, ``suite/case`` and the kind's other names of a case
    (a task case's ``kind/case``)."""
    max_cases: int | None = None
    """At most this many cases per suite, in the suite's order."""

    def matches(self, suite: str, case: str, *groups: str) -> bool:
        if not self.patterns:
            return True
        names = (case, f"{suite}/{case}", *(f"{g}/{case}" for g in groups if g))
        return any(fnmatch.fnmatchcase(n, p) for p in self.patterns for n in names)

    def to_json(self) -> dict[str, Any]:
        return {"patterns": list(self.patterns), "max_cases": self.max_cases}

    @classmethod
    def from_json(cls, data: Any) -> Selection:
        data = data if isinstance(data, dict) else {}
        top = data.get("max_cases")
        return cls(tuple(str(p) for p in data.get("patterns") or ()),
                   int(top) if top is not None else None)


@dataclass(slots=True)
class Finished:
    """One finished case (one repeat, one target): what the engine commits to the store."""

    row: CaseRow
    blobs: Sequence[tuple[str, bytes]] = ()
    """Request/response blobs (hash, bytes) stored with the case, in its transaction."""
    cache: tuple[str, str, float | None] | None = None
    """(cache key, response blob hash, latency) of a fresh answer to remember."""
    item: Any = None
    """The kind's own record of the case, handed to its live export."""
    requests: int = 0
    """Requests this case made (attempts included); answers from the cache make none."""
    cache_hits: int = 0
    """Answers this case took from the response cache."""


@dataclass(slots=True)
class Part:
    """A group of jobs the engine runs under one progress bar (a scenario, a target's tasks)."""

    label: str
    jobs: Iterable[Any]
    """Built lazily (a large suite is never held): each is passed to :meth:`TargetRun.work`."""
    total: int
    """How many jobs :attr:`jobs` yields (for the progress bar)."""
    invalid: list[Finished] = field(default_factory=list)
    """Cases unusable as loaded (bad file...): recorded without running anything."""


class TargetRun(Protocol):
    """One system under test, open for its turn."""

    @property
    def name(self) -> str: ...

    @property
    def concurrency(self) -> int:
        """Jobs kept in flight at once (lowered for a target that answers one at a time)."""
        ...

    def parts(self, selection: Selection, repeats: int, done: DoneKeys) -> Iterable[Part]:
        """The selected cases not in ``done``, ``repeats`` times each."""
        ...

    async def work(self, job: Any) -> Finished:
        """Run one job. An ordinary failure (the target failed after its retries) is a
        finished case with status ``failed``; only a failure of the run itself (the store
        cannot be written) raises."""
        ...


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

    def reads_cache(self, system: object) -> bool:
        """Whether answers of ``system`` (a target or model) may come from the cache."""
        return self.use_cache and (self.cache_systems
                                   or bool(getattr(system, "cache_across_runs", True)))


class Session(Protocol):
    """What a plan holds open for the whole run (e.g. the judge, shared by every target)."""

    def target(self, name: str) -> AbstractAsyncContextManager[TargetRun]:
        """Open target ``name`` for its turn (a local model is loaded only for its turn)."""
        ...


@dataclass(slots=True)
class Exported:
    """One target's results (over every suite of the run, or one suite): files and summary."""

    target: str
    folder: Path
    summary: Any
    """The kind's summary object (its terminal summary, leaderboard row and report read it)."""
    suite: str | None = None
    """The suite, when the kind exports per suite (scenarios); None for all suites at once."""
    failed: int = 0
    """Cases that failed or whose file is unusable (the exit code of a run is 1 then)."""
    consistency: Any = None
    """The kind's consistency across repeats (with ``--repeat`` > 1), if it keeps it apart."""
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


class LiveExport(Protocol):
    """Result files written as cases finish (a fresh run); finished at the run's end."""

    def add(self, finished: Finished) -> None: ...

    def finish(self, run: RunInfo) -> list[Exported]: ...


class Plan(Protocol):
    """What one run evaluates: the kind, its suites, its targets and kind-specific settings."""

    @property
    def kind(self) -> Kind: ...

    @property
    def targets(self) -> Sequence[str]:
        """The targets' names in the run, in run order (the store's ``runs.targets``)."""
        ...

    def settings(self) -> dict[str, Any]:
        """What the kind stores with the run (to resume it and to read its results)."""
        ...

    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        """Store every suite (and its prices) with ``run``; the run then reads its cases
        from the store."""
        ...

    def live_export(self, results_dir: Path, run: RunInfo) -> LiveExport | None:
        """The files of a fresh run written as its cases finish, or None (exported from
        the store at the end)."""
        ...

    def session(self, context: RunContext) -> AbstractAsyncContextManager[Session]: ...


@dataclass(slots=True)
class Validation:
    """What ``eunomia validate`` found in some paths of one kind."""

    lines: list[str] = field(default_factory=list)
    """One line per suite that loaded (what it holds)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)


class Kind(ReportKind, ComparedKind, Protocol):
    """An evaluation kind: everything kind-specific about a run, before, during and after
    (with what it adds to the HTML report, :class:`ReportKind`, and to comparisons,
    :class:`ComparedKind`)."""

    @property
    def name(self) -> str:
        """Stored as the run's kind (``runs.kind``): ``scenarios``, ``tasks``..."""
        ...

    @property
    def title(self) -> str:
        """What people call it, e.g. "SGI scenario"."""
        ...

    @property
    def command(self) -> str:
        """The ``eunomia`` command that runs it (``run``, ``eval``...)."""
        ...

    @property
    def columns(self) -> Columns:
        """What the leaderboard's columns mean for this kind."""
        ...

    def owns(self, path: Path) -> bool:
        """Whether ``path`` (a file or folder a user named) holds suites of this kind."""
        ...

    def validate(self, paths: Sequence[Path]) -> Validation:
        """Load every suite under ``paths`` without calling anything; report every problem."""
        ...

    def export(self, store: RunStore, run: RunInfo, results_dir: Path) -> list[Exported]:
        """Write every result file of ``run`` from the store."""
        ...

    def print_summary(self, console: Console, exported: Exported) -> None: ...

    def leaderboard_row(self, target: str, exported: Sequence[Exported]) -> LeaderboardRow:
        """One target's row over its exported results."""
        ...

    def case_records(self, store: RunStore, run: RunInfo,
                     pass_score: float | None = None) -> Iterator[ResultRecord]:
        """Every stored case of ``run`` (each repeat, each target) as a neutral record, the
        records of one suite and target together: what JSON Lines, JUnit XML and the
        Markdown summary are written from (``eunomia.run.write_outputs``). ``pass_score``
        is the threshold of a kind whose cases pass by their score (tasks); a kind without
        one raises :class:`eunomia.errors.EunomiaError` when it is given."""
        ...
