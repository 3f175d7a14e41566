"""The CI-native outputs of a run or a comparison, each a format of
:data:`eunomia.exports.FORMATS` (JSON Lines, JUnit XML, a Markdown summary; the summary also
appended to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions sets it).

What goes in them comes from the kind (``Kind.case_records``: one neutral record per case,
repeat and target) or from a :class:`eunomia.compare.Comparison`; how each format is written
is :mod:`eunomia.exports`'. Every path is checked before a run starts, so a typo in
``--junit`` costs no evaluation.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

# a format's writer (exports.JsonlWriter...) is imported when first used: asked for only
from eunomia import defaults, exports
from eunomia.bounds import check_url
from eunomia.errors import EunomiaError
from eunomia.exports import FORMATS, Output
from eunomia.exports import Format as Format  # (eunomia.run's too)
from eunomia.kinds import Exported, Kind, kind_named
from eunomia.run._engine import RunReport
from eunomia.store import RunInfo, RunStore

if TYPE_CHECKING:
    from eunomia.compare import Comparison
    from eunomia.exports import Headline, RecordDigest, RecordSink, RunHeader, TextSink

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
"""GitHub Actions' file of the step's Markdown summary (appended to)."""
STDOUT = "-"
DEFAULT_NAMES: dict[str, str] = {name: f.file for name, f in FORMATS.items()}
"""Where ``eunomia export RUN --format F`` writes without ``--output``: in the run's folder."""


class CiOutputs(BaseModel):
    """The outputs asked for on the command line (a file per format: ``--junit``,
    ``--summary-md``, ``--jsonl``; ``--pass-score``) and the step summary file from the
    environment."""

    model_config = ConfigDict(frozen=True)

    files: dict[str, Path] = Field(default_factory=dict)
    """Format name -> the file to write it to."""
    pass_score: float | None = None
    step_summary: Path | None = None

    @property
    def wanted(self) -> bool:
        return bool(self.files) or self.step_summary is not None

    def formats(self) -> list[Format]:
        """The formats to write, in :data:`FORMATS` order (a step summary's too)."""
        return [f for name, f in FORMATS.items() if name in self.files
                or (f.step_summary and self.step_summary is not None)]


def check_output_file(option: str, path: Path) -> None:
    """Refuse, before anything runs, a path that cannot be written: a folder, or a file in a
    folder that does not exist and cannot be made, or that this user cannot write to."""
    if str(path) == STDOUT:
        raise EunomiaError(f"{option}: standard output ('-') is for 'eunomia export' only; "
                           "give a file name")
    if path.is_dir():
        raise EunomiaError(f"{option} {path}: is a folder; give a file name")
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise EunomiaError(f"{option} {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise EunomiaError(f"{option} {path}: cannot write in {folder} (permission denied)")


def ci_outputs(*, pass_score: float | None = None, **files: Path | None) -> CiOutputs:
    """The outputs of a command, every path checked (with ``$GITHUB_STEP_SUMMARY``). The
    files are given by their formats' option names (``junit=``, ``summary_md=``,
    ``jsonl=``: :attr:`eunomia.exports.Format.field`)."""
    by_field = {f.field: f for f in FORMATS.values()}
    unknown = sorted(set(files) - set(by_field))
    if unknown:
        raise TypeError(f"no output format for {', '.join(unknown)}")
    given = [(f, path) for f in FORMATS.values()
             if (path := files.get(f.field)) is not None]
    for f, path in given:
        check_output_file(f.option or f.field, path)
    seen: dict[Path, str] = {}
    for f, path in given:
        option = f.option or f.field
        other = seen.setdefault(path.absolute(), option)
        if other != option:
            raise EunomiaError(f"{other} and {option} name the same file {path}")
    step = os.environ.get(STEP_SUMMARY_ENV, "").strip()
    if step:
        check_output_file(f"${STEP_SUMMARY_ENV}", Path(step))
    return CiOutputs(files={f.name: path for f, path in given}, pass_score=pass_score,
                     step_summary=Path(step) if step else None)


@contextlib.contextmanager
def _sink(path: Path) -> Iterator[TextSink]:
    if str(path) == STDOUT:
        yield sys.stdout
        return
    with Output(path) as out:
        yield out


def _artifacts_link() -> str | None:
    """The page of this GitHub Actions run (its artifacts hold the report), when known."""
    server, repo, run_id = (os.environ.get(k, "") for k in
                            ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if not (server and repo and run_id.isdigit()):
        return None
    url = f"{server.rstrip('/')}/{repo}/actions/runs/{run_id}"
    try:
        return check_url(url)
    except ValueError:
        return None


def _report_text(path: Path, command: str) -> str:
    """Where the HTML page is — or, when it is not written yet, the command that writes it
    (a summary never links a file as if it existed)."""
    link = _artifacts_link()
    if path.is_file():
        return str(path) + (f"; uploaded with the artifacts of {link}" if link else "")
    return (f"not written yet; `{command}` writes it to {path}"
            + (f" (a workflow that then uploads it has it in the artifacts of {link})"
               if link else ""))


def run_header(kind: Kind[object], run: RunInfo, results_dir: Path,
               pass_score: float | None) -> RunHeader:
    facts = [(f"{kind.columns.target}s", ", ".join(run.targets))]
    judge = run.settings.get("judge")
    if isinstance(judge, str) and judge:
        facts.append(("Judge", judge))
    if pass_score is not None:
        facts.append(("A case passes at a score of at least", f"{pass_score:g}"))
    report = _report_text(results_dir / run.name / defaults.REPORT_FILE,
                          shlex.join(["eunomia", "report", run.name, "--results",
                                      str(results_dir)]))
    return exports.RunHeader(run.name, f"{kind.title}, eunomia {kind.command}", run.status,
                             facts, report)


def headlines(kind: Kind[object], exported: Sequence[Exported[object]]) -> list[Headline]:
    """One headline per exported summary (a target's suite, or a target over all suites)."""
    return [exports.Headline(e.target, e.suite, kind.leaderboard_row(e.target, [e]), e.notes,
                             e.warnings, e.figures) for e in exported]


def _facts(kind: Kind[object], run: RunInfo, exported: Sequence[Exported[object]],
           outputs: CiOutputs, results_dir: Path) -> exports.RunFacts:
    def summary(digest: RecordDigest, threshold: float | None) -> str:
        return exports.run_summary(run_header(kind, run, results_dir, threshold),
                                   kind.columns, headlines(kind, exported), digest)

    def properties(suite: str, target: str) -> list[tuple[str, str]]:
        return [(name, value) for e in exported if e.target == target
                for where, name, value in e.properties if where in (None, suite)]

    return exports.RunFacts(run.name, len(run.targets), int(run.settings.get("repeats", 1)),
                            outputs.pass_score, summary, properties)


def write_outputs(store: RunStore, run: RunInfo, exported: Sequence[Exported[object]],
                  outputs: CiOutputs, results_dir: Path) -> list[Path]:
    """Write the outputs asked for of a finished (or interrupted) run, from the store, in one
    pass over its cases; append the step summary's format to it. The files written (the
    step summary last, when appended)."""
    if not outputs.wanted:
        return []
    kind = kind_named(run.kind)
    records = kind.case_records(store, run, outputs.pass_score)
    facts = _facts(kind, run, exported, outputs, results_dir)
    written: list[Path] = []
    texts: list[tuple[Format, io.StringIO]] = []
    with contextlib.ExitStack() as stack:
        sinks: list[RecordSink] = []
        for f in outputs.formats():
            if f.step_summary and outputs.step_summary is not None:
                text = io.StringIO()  # written to its file and appended once complete
                texts.append((f, text))
                sinks.append(f.run(text, facts))
            else:
                sinks.append(f.run(stack.enter_context(_sink(outputs.files[f.name])), facts))
                written.append(outputs.files[f.name])
        for record in records:
            for sink in sinks:
                sink.add(record)
        for sink in sinks:
            sink.close()
    for f, text in texts:
        written += _write_step_summary(f, text.getvalue(), outputs)
    return written


def write_report_outputs(report: RunReport[object], outputs: CiOutputs,
                         results_dir: Path) -> list[Path]:
    """The outputs of a run that just ended (``eunomia run/eval --junit ...``)."""
    if not outputs.wanted:
        return []
    store = RunStore(report.store_path)
    try:
        run = store.require_run(report.run_name)
        return write_outputs(store, run, report.exported, outputs, results_dir)
    finally:
        store.close()


def _write_step_summary(f: Format, text: str, outputs: CiOutputs) -> list[Path]:
    """``text`` of a step summary's format: to its file when asked, appended to the step
    summary."""
    written: list[Path] = []
    path = outputs.files.get(f.name)
    if path is not None:
        with _sink(path) as out:
            out.write(text)
        written.append(path)
    if outputs.step_summary is not None:
        try:
            with outputs.step_summary.open("a", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError as exc:
            raise EunomiaError(f"cannot append to ${STEP_SUMMARY_ENV} "
                               f"({outputs.step_summary}): {exc.strerror or exc}") from None
        written.append(outputs.step_summary)
    return written


def export_format(store: RunStore, run: RunInfo, fmt: str, output: Path | None,
                  results_dir: Path, pass_score: float | None = None) -> Path:
    """``eunomia export RUN --format F`` (a format of :data:`eunomia.exports.FORMATS`): one
    file (``-``: standard output), by default its file in the run's folder
    (``<results>/<run>/cases.jsonl``, ``junit.xml``, ``summary.md``)."""
    f = FORMATS[fmt]
    path = output or results_dir / run.name / f.file
    if str(path) != STDOUT:
        check_output_file("--output", path)
    exported: list[Exported[object]] = []
    if f.summaries:
        # the summaries it shows (baseline, warnings...) come from an export, written to a
        # scratch folder: the run's own files are left as they are
        with tempfile.TemporaryDirectory(prefix="eunomia-export-") as scratch:
            exported = kind_named(run.kind).export(store, run, Path(scratch))
    write_outputs(store, run, exported, CiOutputs(files={fmt: path}, pass_score=pass_score),
                  results_dir)
    return path


def write_comparison_outputs(comparison: Comparison, outputs: CiOutputs,
                             report: Path | None = None, report_command: str | None = None
                             ) -> list[Path]:
    """``eunomia compare --junit/--summary-md`` (and the step summary): each format with a
    comparison writer; ``report`` is the HTML comparison's file, ``report_command`` the
    command that writes it."""
    where = None if report is None else _report_text(
        report, report_command
        or f"eunomia report {comparison.a.name} --compare {comparison.b.name}")
    written: list[Path] = []
    for f in outputs.formats():
        if f.comparison is None:
            continue
        if f.step_summary and outputs.step_summary is not None:
            text = io.StringIO()
            f.comparison(text, comparison, where)
            written += _write_step_summary(f, text.getvalue(), outputs)
        else:
            with _sink(outputs.files[f.name]) as out:
                f.comparison(out, comparison, where)
            written.append(outputs.files[f.name])
    return written
