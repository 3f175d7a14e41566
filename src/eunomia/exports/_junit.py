"""JUnit XML, the test report every CI system reads (Jenkins, GitLab, GitHub test reporters).

The file follows the JUnit schema the Jenkins xUnit plugin validates with (``junit-10.xsd``,
checked in ``tests/ci``): ``<testsuites>`` of ``<testsuite>`` s, each with its
``<properties>`` and one ``<testcase>`` per evaluated case. That schema allows properties
on a suite only, so a case's own figures (score, cost, latency) are its ``time`` and the
first lines of its ``<system-out>``.

Text from models and submissions can hold anything: characters XML 1.0 cannot carry
(control characters, lone surrogates, U+FFFE/U+FFFF) are written as visible escapes
(``\\x1b``), everything else is escaped by the standard library (``xml.sax.saxutils``).
The file is written as cases come: each suite is spooled (to disk past a few megabytes),
then copied into the document with its counts.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO
from xml.sax.saxutils import escape, quoteattr

from eunomia.exports._jsonl import TextSink
from eunomia.exports._records import Outcome, ResultRecord

_FORBIDDEN = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_SPOOL_BYTES = 8 << 20
MESSAGE_CHARS = 2000
"""The longest ``message`` attribute (a one-line reason and a short diff)."""
TEXT_CHARS = 8000
"""The longest element text (failure details, system-out)."""


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_text(text: str, limit: int | None = None) -> str:
    """``text`` as XML 1.0 can hold it (forbidden characters written as ``\\xNN`` /
    ``\\uNNNN``), cut to ``limit`` characters with a note of how much was left out."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters)"
    return _FORBIDDEN.sub(_visible, text)


def _tag(name: str, attrs: Sequence[tuple[str, str | None]], close: bool = False) -> str:
    parts = "".join(f" {k}={quoteattr(xml_text(v))}" for k, v in attrs if v is not None)
    return f"<{name}{parts}{'/' if close else ''}>"


def _time(seconds: float) -> str:
    return f"{max(seconds, 0.0):.3f}"


@dataclass(frozen=True, slots=True)
class JUnitCase:
    """One ``<testcase>``."""

    name: str
    classname: str
    outcome: Outcome
    message: str | None = None
    """The reason (and a short diff) of a case that did not pass."""
    details: str = ""
    """The body of its ``<failure>``, ``<error>`` or ``<skipped>``."""
    output: str = ""
    """``<system-out>``: the case's figures, then what was answered."""
    time_s: float | None = None


_ELEMENT: dict[Outcome, str] = {"failed": "failure", "error": "error", "skipped": "skipped"}


class _Counts:
    def __init__(self) -> None:
        self.tests = self.failures = self.errors = self.skipped = 0
        self.time_s = 0.0

    def add(self, case: JUnitCase) -> None:
        self.tests += 1
        self.failures += case.outcome == "failed"
        self.errors += case.outcome == "error"
        self.skipped += case.outcome == "skipped"
        self.time_s += case.time_s or 0.0


def _spool() -> IO[str]:
    return tempfile.SpooledTemporaryFile(
        max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8")


class JUnitWriter:
    """``suite``, then its cases with ``add``, then the next ``suite``...; ``close`` writes the
    document to ``out``."""

    def __init__(self, out: TextSink, name: str) -> None:
        self.out = out
        self.name = name
        self.total = _Counts()
        self._body = _spool()
        self._suite: tuple[str, list[tuple[str, str]]] | None = None
        self._cases = _spool()
        self._counts = _Counts()

    def suite(self, name: str, properties: Sequence[tuple[str, str]] = ()) -> None:
        """Start a ``<testsuite>`` (ending the one before)."""
        self._end_suite()
        self._suite = (name, list(properties))
        self._counts = _Counts()

    def set_properties(self, properties: Sequence[tuple[str, str]]) -> None:
        """Replace the current suite's properties (figures known once its cases are in)."""
        if self._suite is not None:
            self._suite = (self._suite[0], list(properties))

    def add(self, case: JUnitCase) -> None:
        if self._suite is None:
            self.suite(self.name)
        self._counts.add(case)
        self.total.add(case)
        attrs = [("name", case.name), ("classname", case.classname),
                 ("time", None if case.time_s is None else _time(case.time_s))]
        inner = ""
        element = _ELEMENT.get(case.outcome)
        if element is not None:
            text = escape(xml_text(case.details, TEXT_CHARS))
            opening = _tag(element, [("message", None if case.message is None
                                      else xml_text(case.message, MESSAGE_CHARS)),
                                     ("type", case.outcome)])
            inner += f"\n      {opening}{text}</{element}>"
        if case.output:
            inner += (f"\n      <system-out>{escape(xml_text(case.output, TEXT_CHARS))}"
                      "</system-out>")
        if inner:
            self._cases.write(f"    {_tag('testcase', attrs)}{inner}\n    </testcase>\n")
        else:
            self._cases.write(f"    {_tag('testcase', attrs, close=True)}\n")

    def _end_suite(self) -> None:
        if self._suite is None:
            return
        name, properties = self._suite
        c = self._counts
        self._body.write("  " + _tag("testsuite", [
            ("name", name), ("tests", str(c.tests)), ("failures", str(c.failures)),
            ("errors", str(c.errors)), ("skipped", str(c.skipped)), ("time", _time(c.time_s)),
        ]) + "\n")
        if properties:
            self._body.write("    <properties>\n")
            for key, value in properties:
                prop = _tag("property", [("name", key), ("value", value)], close=True)
                self._body.write(f"      {prop}\n")
            self._body.write("    </properties>\n")
        self._cases.seek(0)
        shutil.copyfileobj(self._cases, self._body)
        self._cases.close()
        self._cases = _spool()
        self._body.write("  </testsuite>\n")
        self._suite = None

    def close(self) -> None:
        self._end_suite()
        t = self.total
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n' + _tag("testsuites", [
            ("name", self.name), ("tests", str(t.tests)), ("failures", str(t.failures)),
            ("errors", str(t.errors)), ("time", _time(t.time_s))]) + "\n")
        self._body.seek(0)
        while chunk := self._body.read(1 << 16):
            self.out.write(chunk)
        self.out.write("</testsuites>\n")
        self._body.close()
        self._cases.close()


def _num(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{round(value, digits):g}"


def record_case(record: ResultRecord, classname: str, repeats: int) -> JUnitCase:
    """The ``<testcase>`` of a run's case: reason and diff in the message, figures and the
    answer in system-out."""
    name = record.case if repeats <= 1 else f"{record.case} [repeat {record.repeat}]"
    message = None
    if not record.passed:
        message = "\n".join(p for p in (record.reason or record.status, record.diff) if p)
    error = f"error: {record.error}" if record.error and record.error != record.reason \
        else None
    details = "\n".join(p for p in (record.reason, record.diff, error) if p)
    scale = f" ({record.score_scale}" + (
        f"; pass score {_num(record.pass_score)})" if record.pass_score is not None else ")") \
        if record.score_scale else ""
    lines = [f"outcome: {record.outcome} (status {record.status})",
             f"score: {_num(record.score)}{scale}",
             f"cost: {_num(record.cost, 8)}", f"latency_s: {_num(record.latency_s)}",
             f"tokens: {record.input_tokens} in, {record.output_tokens} out",
             f"attempts: {record.attempts}" + (" (from the cache)" if record.cached else "")]
    if record.awarded_points is not None or record.tutor_points is not None:
        lines.append(f"points: awarded {_num(record.awarded_points)}, tutor "
                     f"{_num(record.tutor_points)}")
    if record.credit_expectations_met is not None:
        lines.append("credit expectations: " + ("all met" if record.credit_expectations_met
                                                else "not met"))
    if record.answer is not None:
        lines.append(f"answer:\n{record.answer}")
    if record.judge_feedback:
        lines.append(f"judge feedback:\n{record.judge_feedback}")
    return JUnitCase(name, classname, record.outcome, message, details, "\n".join(lines),
                     record.latency_s)


class RecordsJUnit:
    """JUnit XML of a run's records: one ``<testsuite>`` per suite and target (records come
    grouped so), with the suite's figures as its properties."""

    def __init__(self, out: TextSink, run: str, *, targets: int, repeats: int,
                 properties: Callable[[str, str], list[tuple[str, str]]] | None = None
                 ) -> None:
        """``properties``: more properties of a suite and target (the kind's figures)."""
        self.writer = JUnitWriter(out, f"eunomia {run}")
        self.properties = properties
        self.targets = targets
        self.repeats = repeats
        self._key: tuple[str, str] | None = None
        self._first: ResultRecord | None = None
        self._stats = _SuiteStats()

    def add(self, record: ResultRecord) -> None:
        key = (record.suite, record.target)
        if key != self._key:
            self._flush()
            self._key, self._first, self._stats = key, record, _SuiteStats()
            self.writer.suite(self._suite_name(record))
        self._stats.add(record)
        self.writer.add(record_case(record, self._suite_name(record), self.repeats))

    def _suite_name(self, record: ResultRecord) -> str:
        return record.suite if self.targets <= 1 else f"{record.suite} [{record.target}]"

    def _flush(self) -> None:
        first = self._first
        if first is None:
            return
        s = self._stats
        props = [("run", first.run), ("kind", first.kind), ("suite", first.suite),
                 ("target", first.target), ("cases", str(s.cases)), ("passed", str(s.passed)),
                 ("mean_score", _num(s.mean(s.scores))),
                 ("score_scale", first.score_scale),
                 ("total_cost", _num(sum(s.costs) if s.costs else None, 8)),
                 ("mean_latency_s", _num(s.mean(s.latencies)))]
        if first.pass_score is not None:
            props.append(("pass_score", _num(first.pass_score)))
        if self.properties is not None:
            props += self.properties(first.suite, first.target)
        self.writer.set_properties(props)

    def close(self) -> None:
        self._flush()
        self.writer.close()


class _SuiteStats:
    def __init__(self) -> None:
        self.cases = self.passed = 0
        self.scores: list[float] = []
        self.costs: list[float] = []
        self.latencies: list[float] = []

    def add(self, r: ResultRecord) -> None:
        self.cases += 1
        self.passed += r.passed
        for values, v in ((self.scores, r.score), (self.costs, r.cost),
                          (self.latencies, r.latency_s)):
            if v is not None:
                values.append(v)

    @staticmethod
    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None
