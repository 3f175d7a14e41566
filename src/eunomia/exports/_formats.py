"""The CI-native output formats of a run, by name: ``{name: format}``, one place.

:data:`FORMATS` drives ``eunomia export RUN --format NAME`` (its choices and default file
names), the options that write a format beside a run (``--jsonl``, ``--junit``,
``--summary-md`` on ``run`` and ``eval``; those with a comparison writer on ``compare``), the
step summary of GitHub Actions and the table of docs/ci.md. A new format is its writer (a
module here) and one :class:`Format` in :data:`FORMATS`.

A format's run writer is fed the run's neutral :class:`~eunomia.exports.ResultRecord` s one
at a time (``add``), then ``close`` writes what is left; it is given what it may need of the
run as :class:`RunFacts`. Its module is imported when the format is first written, so that
declaring the options (every command's start) costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from eunomia.compare import Comparison
    from eunomia.exports._jsonl import TextSink
    from eunomia.exports._markdown import RecordDigest
    from eunomia.exports._records import ResultRecord


class RecordSink(Protocol):
    """A run writer: fed the records in the store's order, then closed."""

    def add(self, record: ResultRecord, /) -> None: ...

    def close(self) -> None: ...


class RunFacts(NamedTuple):
    """What a run writer may need of the run besides its records."""

    name: str
    targets: int
    repeats: int
    pass_score: float | None
    """The pass score asked for (None: the kind's default)."""
    summary: Callable[[RecordDigest, float | None], str]
    """The run's Markdown summary from its records' digest and their pass score."""
    properties: Callable[[str, str], list[tuple[str, str]]] = lambda suite, target: []
    """More properties of a suite's results of a target (JUnit), from the kind's summaries."""


RunWriter = Callable[["TextSink", RunFacts], RecordSink]
ComparisonWriter = Callable[["TextSink", "Comparison", "str | None"], None]
"""Writes a comparison to the sink; the last argument says where its HTML report is."""


class Format(NamedTuple):
    """One output format (a named tuple: cheap to define at every command's start)."""

    name: str
    """``eunomia export RUN --format NAME``."""
    option: str
    """The option of ``run`` and ``eval`` (and ``compare``, with :attr:`comparison`) that
    writes it beside a run: ``--junit FILE``."""
    file: str
    """Where ``export --format NAME`` writes without ``--output``, in the run's folder."""
    about: str
    """What it holds (the options' help, docs/ci.md)."""
    run: RunWriter
    comparison: ComparisonWriter | None = None
    """Its writer of ``eunomia compare``'s verdict (None: not written by ``compare``)."""
    step_summary: bool = False
    """Its text is also appended to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions sets it."""
    summaries: bool = False
    """It shows the kind's summaries (baselines, warnings): ``export`` computes them first."""

    @property
    def option_help(self) -> str:
        """The help of :attr:`option` (on ``run``, ``eval`` and ``compare``)."""
        also = " (appended to $GITHUB_STEP_SUMMARY too when that is set)" \
            if self.step_summary else ""
        return f"Also write {self.about}{also} to this file."

    @property
    def field(self) -> str:
        """Its option as a Python name (``summary_md``): the keyword of
        :func:`eunomia.run.ci_outputs` and of the command's parameter."""
        return self.option.removeprefix("--").replace("-", "_")


# --- the writers, imported when first used ------------------------------------------------------
def _jsonl(out: TextSink, facts: RunFacts) -> RecordSink:
    from eunomia.exports._jsonl import JsonlWriter

    return JsonlWriter(out)


def _junit(out: TextSink, facts: RunFacts) -> RecordSink:
    from eunomia.exports._junit import RecordsJUnit

    return RecordsJUnit(out, facts.name, targets=facts.targets, repeats=facts.repeats,
                        properties=facts.properties)


def _junit_comparison(out: TextSink, comparison: Comparison, report: str | None) -> None:
    from eunomia.exports._comparison import write_comparison_junit

    write_comparison_junit(comparison, out)


class _MarkdownSummary:
    """The run's Markdown summary, written once every record has been seen."""

    def __init__(self, out: TextSink, facts: RunFacts) -> None:
        from eunomia.exports._markdown import RecordDigest

        self.out = out
        self.facts = facts
        self.digest = RecordDigest()
        self.first: ResultRecord | None = None

    def add(self, record: ResultRecord) -> None:
        self.first = self.first or record
        self.digest.add(record)

    def close(self) -> None:
        self.digest.close()
        threshold = self.first.pass_score if self.first is not None else self.facts.pass_score
        self.out.write(self.facts.summary(self.digest, threshold))


def _markdown_comparison(out: TextSink, comparison: Comparison, report: str | None) -> None:
    from eunomia.exports._comparison import comparison_summary

    out.write(comparison_summary(comparison, report))


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("jsonl", "--jsonl", "cases.jsonl",
           "JSON Lines: one object per case, repeat and target, with documented field names",
           _jsonl),
    Format("junit", "--junit", "junit.xml",
           "JUnit XML: a test case per case, repeat and target (failed when it did not pass, "
           "an error when it failed, skipped when unscored)", _junit,
           comparison=_junit_comparison, summaries=True),
    Format("md", "--summary-md", "summary.md",
           "a Markdown summary: headline metrics with their intervals, the baseline, the "
           "worst cases, where the report is", _MarkdownSummary, comparison=_markdown_comparison,
           step_summary=True, summaries=True),
)}
"""Every output format, by name, in the order they are written."""


def formats_table() -> str:
    """The Markdown table of the formats (docs/ci.md holds it; a test keeps it so)."""
    rows = ["| format | what it holds | option (`run`, `eval`) | on `compare` | "
            "`export --format` writes |", "| --- | --- | --- | --- | --- |"]
    rows += [f"| `{f.name}` | {f.about} | `{f.option} FILE` | "
             f"{'yes' if f.comparison else 'no'} | `<results>/<run>/{f.file}` |"
             for f in FORMATS.values()]
    return "\n".join(rows) + "\n"
