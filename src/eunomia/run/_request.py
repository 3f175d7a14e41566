"""What every command that runs an evaluation shares: the run options (declared once for the
command line in ``eunomia/cli/_options.py``), checked where they enter, merged with a matrix
file's and with a stopped run's when it is resumed.

A kind's own options (its suites, targets, models, judge...) are its request's
(``eunomia.api``); this is the rest: the run's name and store, which cases, how many times,
how fast, retries, resume, cache, where the calls are made and the CI outputs.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.kinds import Selection, Summary, Summary_co, kind_entry
from eunomia.limits import check_positive, check_run_name
from eunomia.run._engine import RequestArgs, RunReport
from eunomia.run._outputs import CiOutputs, ci_outputs, write_report_outputs
from eunomia.scheduler import RetryPolicy, RunOptions
from eunomia.store import RunInfo, RunStore

if TYPE_CHECKING:
    from eunomia.executors import Executor
    from eunomia.matrix import ScenarioMatrix, TaskMatrix

T = TypeVar("T")

def default_run_name(prefix: str = "run") -> str:
    """``<prefix>_<date>_<time>_<6 random hex digits>``, e.g. ``eval_20261127_071500_3fa9c2``:
    runs started in the same second differ."""
    return f"{prefix}_{datetime.now().strftime('%Y%m%d_%H%M%S')}_{secrets.token_hex(3)}"


def run_to_resume(store_path: Path, name: str, kind: str) -> RunInfo:
    """The stored run ``--resume NAME`` continues; refused, naming the command that resumes
    it, when the run is of another kind."""
    if not store_path.is_file():
        raise EunomiaError(f"no run store at {store_path}; give --results or --store")
    db = RunStore(store_path)
    try:
        info = db.require_run(name)
    finally:
        db.close()
    if info.kind != kind:
        raise EunomiaError(f"run {name!r} is a {info.kind} run; resume it with "
                           f"'eunomia {kind_entry(info.kind).command} --resume {name}'")
    return info


def stored_selection(settings: dict[str, object]) -> Selection:
    """The selection a run was started with (its ``settings["selection"]``)."""
    return Selection.from_json(settings.get("selection"))


@dataclass(frozen=True, slots=True)
class RunRequest:
    """The run options every command shares, as the user gave them (the defaults are the
    command line's). ``explicit`` names those the user set on purpose: a matrix file's
    values replace the others."""

    run_name: str | None = None
    results: Path = defaults.RESULTS_DIR
    store: Path | None = None
    """The run store (SQLite); default ``<results>/eunomia.db``."""
    case: tuple[str, ...] = ()
    """Globs over case names: only the cases they match."""
    max_cases: int | None = None
    repeat: int = 1
    concurrency: int = defaults.CONCURRENCY
    timeout: float = defaults.REQUEST_TIMEOUT_S
    retries: int = defaults.RETRIES
    retry_500: bool = False
    max_response_mb: float = defaults.MAX_RESPONSE_BYTES / 1_000_000
    """The largest answer body read, in (decimal) megabytes: past it the case fails."""
    resume: str | None = None
    """The name of a stopped run to continue: finished cases are not asked again."""
    retry_failed: bool = False
    no_cache: bool = False
    cache: bool = False
    """Also reuse cached answers of systems reached over HTTP from earlier runs."""
    executor: str | None = None
    """``local`` or ``ray``; None: local (a resumed run keeps its own)."""
    ray_address: str | None = None
    output_files: Mapping[str, Path] = field(default_factory=dict)
    """The CI outputs asked for: a file per format, by its option's Python name
    (``{"junit": Path("junit.xml")}``: :attr:`eunomia.exports.Format.field`)."""
    ci_files: bool = True
    """False: no CI output, not even to ``$GITHUB_STEP_SUMMARY`` (``eunomia demo``)."""
    explicit: frozenset[str] = field(default_factory=frozenset)
    """The options given on purpose (on the command line): a matrix file does not replace
    them."""

    @property
    def store_path(self) -> Path:
        return self.store or self.results / defaults.STORE_FILE

    @property
    def selection(self) -> Selection:
        return Selection(self.case, self.max_cases)

    @property
    def options(self) -> RunOptions:
        """How the calls are made (never part of a cache key)."""
        return RunOptions(self.concurrency, RetryPolicy(
            retries=self.retries, timeout_s=self.timeout, retry_500=self.retry_500,
            max_response_bytes=max(1, round(self.max_response_mb * 1_000_000))))

    def engine_args(self) -> RequestArgs:
        """What the engine takes of these options (:func:`eunomia.run.run_evaluation`)."""
        return RequestArgs(selection=self.selection, repeats=self.repeat,
                       store_path=self.store_path, resume=self.resume is not None,
                       retry_failed=self.retry_failed, use_cache=not self.no_cache,
                       cache_systems=self.cache)

    def outputs(self, pass_score: float | None = None) -> CiOutputs:
        """The CI outputs asked for, every path checked before anything runs."""
        if not self.ci_files:
            return CiOutputs()
        return ci_outputs(pass_score=pass_score, **self.output_files)

    def check(self, *more: tuple[str, float | None]) -> None:
        """Every number in its range (and ``more``: a kind's own, as (option, value)); no
        contradiction."""
        for name, value in (("--concurrency", self.concurrency), ("--timeout", self.timeout),
                            ("--max-cases", self.max_cases), ("--repeat", self.repeat),
                            (defaults.MAX_RESPONSE_OPTION, self.max_response_mb), *more):
            check_positive(name, value)
        check_positive("--retries", self.retries, allow_zero=True)
        if self.cache and self.no_cache:
            raise EunomiaError("--cache and --no-cache contradict each other: choose one")

    def named(self, prefix: str) -> RunRequest:
        """With a run name: the one given, or ``<prefix>_<date>_<time>``; checked."""
        name = self.run_name or default_run_name(prefix)
        check_run_name(name)
        return replace(self, run_name=name)

    def given(self, name: str, value: T, in_file: T | None) -> T:
        """Option ``name``'s value: ``value`` when given on purpose, else a matrix file's
        ``in_file`` when it sets one, else ``value`` (the default)."""
        return value if in_file is None or name in self.explicit else in_file

    def with_matrix(self, matrix: ScenarioMatrix | TaskMatrix, defines: str) -> RunRequest:
        """The shared options a matrix file sets, where not given on purpose (``defines``:
        what else the file names, refused with ``--resume``)."""
        if self.resume is not None:
            raise EunomiaError("--matrix cannot be combined with --resume: a resumed run "
                               f"keeps the {defines} and settings it was started with")
        return replace(
            self, run_name=self.given("run_name", self.run_name, matrix.run_name),
            case=tuple(self.given("case", list(self.case), matrix.cases)),
            max_cases=self.given("max_cases", self.max_cases, matrix.max_cases),
            repeat=self.given("repeat", self.repeat, matrix.repeat),
            concurrency=self.given("concurrency", self.concurrency, matrix.concurrency),
            timeout=self.given("timeout", self.timeout, matrix.timeout),
            retries=self.given("retries", self.retries, matrix.retries),
            retry_500=self.given("retry_500", self.retry_500, matrix.retry_500),
            max_response_mb=self.given("max_response_mb", self.max_response_mb,
                                       matrix.max_response_mb))

    def kept_settings(self) -> dict[str, object]:
        """The operational options a resumed run keeps unless given again (stored with the
        run): the answer size limit and whether a 500 is retried."""
        return {"max_response_mb": self.max_response_mb, "retry_500": self.retry_500}

    def resumed(self, settings: dict[str, object]) -> RunRequest:
        """Continuing the stopped run :attr:`resume` (its stored ``settings``): what defines
        the run (its cases, repeats, cache) comes from the store; operational options
        (concurrency, timeout, retries) may change; its executor, answer size limit and
        retry of a 500 (:meth:`kept_settings`) unless given again."""
        assert self.resume is not None
        kept = settings.get("max_response_mb")
        limit = self.max_response_mb if "max_response_mb" in self.explicit \
            or not isinstance(kept, int | float) else float(kept)
        retry_500 = self.retry_500 if "retry_500" in self.explicit \
            else bool(settings.get("retry_500", self.retry_500))
        selection = stored_selection(settings)
        repeats = settings.get("repeats", self.repeat)
        executor, ray_address = self.executor, self.ray_address
        if executor is None:
            found = settings.get("executor")
            executor = str(found) if found is not None else None
            stored_address = settings.get("ray_address")
            ray_address = ray_address or (str(stored_address) if stored_address else None)
        return replace(self, run_name=self.resume, case=selection.patterns,
                       max_cases=selection.max_cases,
                       repeat=int(repeats) if isinstance(repeats, int | float | str)
                       else self.repeat,
                       cache=bool(settings.get("cache_systems", self.cache)),
                       executor=executor, ray_address=ray_address, max_response_mb=limit,
                       retry_500=retry_500)

    def open_executor(self) -> Executor:
        """Where the calls are made (fails fast: Ray missing, a bad address)."""
        from eunomia.executors import make_executor  # Ray only when asked for

        return make_executor(self.executor or "local", ray_address=self.ray_address)


@dataclass(slots=True)
class RunResult(Generic[Summary_co]):
    """What a command's run gave: the engine's report, the CI files written, and what makes
    its exit code 1 (failed cases, problems in the suite files...), each in words."""

    report: RunReport[Summary_co]
    written: list[Path] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def run_result(report: RunReport[Summary], failed: str, outputs: CiOutputs | None = None,
               results: Path | None = None) -> RunResult[Summary]:
    """A finished run's result: the CI ``outputs`` written (into ``results``), its failed
    cases said as ``<n> <failed> in <folder>`` (``"case(s) failed; see failures.json"``)."""
    written = write_report_outputs(report, outputs, results or report.folder.parent) \
        if outputs is not None else []
    result = RunResult(report, written)
    if report.failed_cases:
        result.failures.append(f"{report.failed_cases} {failed} in {report.folder}")
    return result
