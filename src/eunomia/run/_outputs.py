"""The CI-native outputs of a run or a comparison: JSON Lines, JUnit XML and a Markdown summary
(also appended to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions sets it).

What goes in them comes from the kind (``Kind.case_records``: one neutral record per case,
repeat and target) or from a :class:`eunomia.compare.Comparison`; how each format is written
is :mod:`eunomia.exports`'. Every path is checked before a run starts, so a typo in
``--junit`` costs no evaluation.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

# a format's writer (exports.JsonlWriter...) is imported when first used: asked for only
from eunomia import defaults, exports
from eunomia.bounds import check_url
from eunomia.errors import EunomiaError
from eunomia.exports import Output
from eunomia.kinds import Exported, Kind, kind_named
from eunomia.run._engine import RunReport
from eunomia.store import RunInfo, RunStore

if TYPE_CHECKING:
    from eunomia.compare import Comparison
    from eunomia.exports import (
        Headline,
        JsonlWriter,
        RecordDigest,
        RecordsJUnit,
        ResultRecord,
        RunHeader,
        TextSink,
    )

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
"""GitHub Actions' file of the step's Markdown summary (appended to)."""
STDOUT = "-"
Format = Literal["jsonl", "junit", "md"]
DEFAULT_NAMES: dict[Format, str] = {"jsonl": "cases.jsonl", "junit": "junit.xml",
                                    "md": "summary.md"}
"""Where ``eunomia export RUN --format F`` writes without ``--output``: in the run's folder."""


class CiOutputs(BaseModel):
    """The outputs asked for on the command line (``--junit``, ``--summary-md``,
    ``--jsonl``, ``--pass-score``) and the step summary file from the environment."""

    model_config = ConfigDict(frozen=True)

    junit: Path | None = None
    summary_md: Path | None = None
    jsonl: Path | None = None
    pass_score: float | None = None
    step_summary: Path | None = None

    @property
    def wanted(self) -> bool:
        return any(p is not None for p in (self.junit, self.summary_md, self.jsonl,
                                           self.step_summary))


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


def ci_outputs(*, junit: Path | None = None, summary_md: Path | None = None,
               jsonl: Path | None = None, pass_score: float | None = None) -> CiOutputs:
    """The outputs of a command, every path checked (with ``$GITHUB_STEP_SUMMARY``)."""
    given = [(o, p) for o, p in (("--junit", junit), ("--summary-md", summary_md),
                                 ("--jsonl", jsonl)) if p is not None]
    for option, path in given:
        check_output_file(option, path)
    seen: dict[Path, str] = {}
    for option, path in given:
        other = seen.setdefault(path.absolute(), option)
        if other != option:
            raise EunomiaError(f"{other} and {option} name the same file {path}")
    step = os.environ.get(STEP_SUMMARY_ENV, "").strip()
    if step:
        check_output_file(f"${STEP_SUMMARY_ENV}", Path(step))
    return CiOutputs(junit=junit, summary_md=summary_md, jsonl=jsonl, pass_score=pass_score,
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
    where = str(path) if path.is_file() else f"{path} (written by '{command}')"
    link = _artifacts_link()
    return where + (f"; uploaded with the artifacts of {link}" if link else "")


def run_header(kind: Kind, run: RunInfo, results_dir: Path,
               pass_score: float | None) -> RunHeader:
    facts = [(f"{kind.columns.target}s", ", ".join(run.targets))]
    judge = run.settings.get("judge")
    if isinstance(judge, str) and judge:
        facts.append(("Judge", judge))
    if pass_score is not None:
        facts.append(("A case passes at a score of at least", f"{pass_score:g}"))
    report = _report_text(results_dir / run.name / defaults.REPORT_FILE,
                          f"eunomia report {run.name} --results {results_dir}")
    return exports.RunHeader(run.name, f"{kind.title}, eunomia {kind.command}", run.status,
                             facts, report)


def headlines(kind: Kind, exported: Sequence[Exported]) -> list[Headline]:
    """One headline per exported summary (a target's suite, or a target over all suites)."""
    return [exports.Headline(e.target, e.suite, kind.leaderboard_row(e.target, [e]), e.notes,
                             e.warnings, e.figures) for e in exported]


def write_outputs(store: RunStore, run: RunInfo, exported: Sequence[Exported],
                  outputs: CiOutputs, results_dir: Path) -> list[Path]:
    """Write the outputs asked for of a finished (or interrupted) run, from the store, in one
    pass over its cases; append the Markdown summary to the step summary. The files
    written (the step summary last, when appended)."""
    if not outputs.wanted:
        return []
    kind = kind_named(run.kind)
    records = kind.case_records(store, run, outputs.pass_score)
    digest = exports.RecordDigest()
    written: list[Path] = []
    first: ResultRecord | None = None
    with contextlib.ExitStack() as stack:
        sinks: list[JsonlWriter | RecordsJUnit | RecordDigest] = [digest]
        if outputs.jsonl is not None:
            sinks.append(exports.JsonlWriter(stack.enter_context(_sink(outputs.jsonl))))
            written.append(outputs.jsonl)
        if outputs.junit is not None:
            sinks.append(exports.RecordsJUnit(stack.enter_context(_sink(outputs.junit)),
                                              run.name, targets=len(run.targets),
                                              repeats=int(run.settings.get("repeats", 1))))
            written.append(outputs.junit)
        for record in records:
            first = first or record
            for sink in sinks:
                sink.add(record)
        for sink in sinks:
            sink.close()
    if outputs.summary_md is not None or outputs.step_summary is not None:
        threshold = first.pass_score if first is not None else outputs.pass_score
        text = exports.run_summary(run_header(kind, run, results_dir, threshold),
                                   kind.columns, headlines(kind, exported), digest)
        written += _write_markdown(text, outputs)
    return written


def write_report_outputs(report: RunReport, outputs: CiOutputs,
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


def _write_markdown(text: str, outputs: CiOutputs) -> list[Path]:
    written: list[Path] = []
    if outputs.summary_md is not None:
        with _sink(outputs.summary_md) as out:
            out.write(text)
        written.append(outputs.summary_md)
    if outputs.step_summary is not None:
        try:
            with outputs.step_summary.open("a", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError as exc:
            raise EunomiaError(f"cannot append to ${STEP_SUMMARY_ENV} "
                               f"({outputs.step_summary}): {exc.strerror or exc}") from None
        written.append(outputs.step_summary)
    return written


def export_format(store: RunStore, run: RunInfo, fmt: Format, output: Path | None,
                  results_dir: Path, pass_score: float | None = None) -> Path:
    """``eunomia export RUN --format jsonl|junit|md``: one file (``-``: standard output),
    by default ``<results>/<run>/cases.jsonl``, ``junit.xml`` or ``summary.md``."""
    path = output or results_dir / run.name / DEFAULT_NAMES[fmt]
    if str(path) != STDOUT:
        check_output_file("--output", path)
    kind = kind_named(run.kind)
    if fmt == "md":
        # the summaries the Markdown shows (baseline, warnings...) come from an export,
        # written to a scratch folder: the run's own files are left as they are
        with tempfile.TemporaryDirectory(prefix="eunomia-md-") as scratch:
            exported = kind.export(store, run, Path(scratch))
        outputs = CiOutputs(summary_md=path, pass_score=pass_score)
        write_outputs(store, run, exported, outputs, results_dir)
        return path
    outputs = CiOutputs(jsonl=path if fmt == "jsonl" else None,
                        junit=path if fmt == "junit" else None, pass_score=pass_score)
    write_outputs(store, run, [], outputs, results_dir)
    return path


def write_comparison_outputs(comparison: Comparison, outputs: CiOutputs,
                             report: Path | None = None) -> list[Path]:
    """``eunomia compare --junit/--summary-md`` (and the step summary)."""
    written: list[Path] = []
    if outputs.junit is not None:
        with _sink(outputs.junit) as out:
            exports.write_comparison_junit(comparison, out)
        written.append(outputs.junit)
    if outputs.summary_md is not None or outputs.step_summary is not None:
        text = exports.comparison_summary(
            comparison, None if report is None else _report_text(
                report, f"eunomia report {comparison.a.name} --compare {comparison.b.name}"))
        written += _write_markdown(text, outputs)
    return written
