"""The result files of a task run, regenerated from the run store.

``results/<run>/``
  ``tasks/<suite>.yaml``           each suite as written (same shape, same key order) with
                                   the candidate's response, score and judge feedback appended
  ``tables/cases.csv``             one row per case and repeat
  ``tables/summary.csv``           per kind, category, sub-category, difficulty and suite: flat
                                   and difficulty-weighted mean score with 95% bootstrap CIs
  ``tables/judge_agreement.csv``   judge self-agreement (alpha, ICC) and judge–human (QWK, MAD)
  ``tables/repeat_consistency.csv`` with ``--repeat``: each case's scores across repeats
  ``tables/inference_speed.csv``   latency, time to first token, words, words/s, adherence
  ``inference_speed.svg``          latency against output length, with the fitted line
  ``tasks_results.json``           the summary in JSON; ``failures.json`` every unscored case

Written as the store is read, piece by piece: each suite file in file order, a chunk of its
cases at a time (their stored results fetched by name); the tables and the summary in the
store's order, one case at a time. Every file is written incrementally (through a temporary
file, renamed when complete), so an export holds a chunk of cases, the summary's compact
arrays and a name -> case index of one suite, whatever the size of the run.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import IO, Any, ClassVar, Self

import yaml
from yaml.emitter import ScalarAnalysis

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.files import write_text_atomic
from eunomia.pricing import PriceTable
from eunomia.stats import Interval
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo
from eunomia.tasks._model import TaskSuite
from eunomia.tasks._result import CaseResult
from eunomia.tasks._snapshot import Entry, StoredCases, loaded_case, read_suite
from eunomia.tasks._summary import (
    CaseMeta,
    CaseRecord,
    GroupStat,
    RepeatStat,
    SpeedRow,
    SummaryBuilder,
    TasksSummary,
)

CASE_COLUMNS = (
    "suite", "case_id", "kind", "category", "sub_category", "difficulty", "repeat", "status",
    "score", "judge_scores", "human_score", "checks_passed", "checks_total", "failed_checks",
    "latency_s", "time_to_first_token_s", "output_words", "input_tokens", "output_tokens",
    "cost", "attempts", "cached", "error",
)
SUMMARY_COLUMNS = (
    "grouping", "value", "cases", "scored", "unscored", "failed", "mean", "mean_ci_low",
    "mean_ci_high", "weighted_mean", "weighted_ci_low", "weighted_ci_high", "checks_passed",
    "checks_total",
)
SPEED_COLUMNS = (
    "suite", "case_id", "repeat", "expected_words", "output_words", "output_tokens",
    "latency_s", "time_to_first_token_s", "words_per_second", "length_adherence",
)


@dataclass(slots=True)
class ExportedTasks:
    folder: Path
    summary: TasksSummary
    files: list[Path] = field(default_factory=list)
    target: str = ""
    """The candidate model (its name in the run)."""


REPEAT_COLUMNS = ("suite", "case_id", "scores", "failed_repeats", "mean", "stdev", "min",
                  "max", "flip_rate")


def _num(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{round(value, digits):g}"


# --- reading the store ------------------------------------------------------------------
def task_records(store: RunStore, run: RunInfo, target: str | None = None
                 ) -> tuple[list[TaskSuite], list[CaseRecord], PriceTable]:
    """The run's suites, its case records (of one candidate, with ``target``) and prices.

    Every record at once, in memory: for small runs and tests (exports stream instead).
    """
    suites: list[TaskSuite] = []
    records: list[CaseRecord] = []
    prices = PriceTable()
    for info in store.suites(run):
        suite = read_suite(store, info)
        prices = PriceTable.from_json(store.get_json(info.prices))
        suites.append(suite)
        by_name = {c.name: c for c in suite.cases}
        for row in store.iter_cases(run, info.name, target):
            result = None
            if row.response:
                result = CaseResult.model_validate(store.get_json(row.response))
            records.append(CaseRecord(
                suite=info.name, case_name=row.case_name, repeat=row.repeat,
                status=row.status,  # type: ignore[arg-type]
                case=by_name.get(row.case_name), result=result, error=row.error,
                cost=row.cost, cached=row.cached, attempts=row.attempts,
            ))
    return suites, records, prices


# --- writing ---------------------------------------------------------------------------------
def _write(path: Path, text: str) -> Path:
    return write_text_atomic(path, text)


class _Output:
    """A result file written piece by piece through a temporary file, renamed into place
    when complete (like :func:`eunomia.files.write_text_atomic`: a reader never sees half a
    file; an error names the file and leaves the one before as it was)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tmp = path.with_name(path.name + ".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.file: IO[str] = self._tmp.open("w", encoding="utf-8")
        except OSError as exc:
            raise self._error(exc) from None

    def _error(self, exc: OSError) -> EunomiaError:
        return EunomiaError(f"cannot write {self.path}: {exc.strerror or exc}")

    def write(self, text: str) -> None:
        try:
            self.file.write(text)
        except OSError as exc:
            raise self._error(exc) from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        try:
            self.file.close()
            if kind is None:
                os.replace(self._tmp, self.path)
                return
        except OSError as exc:
            raise self._error(exc) from None
        finally:
            if kind is not None or self._tmp.exists():
                self._tmp.unlink(missing_ok=True)


class _CsvOutput(_Output):
    """A CSV table written row by row."""

    def __init__(self, path: Path, columns: Sequence[str]) -> None:
        super().__init__(path)
        self._writer = csv.DictWriter(self, fieldnames=list(columns), extrasaction="ignore")
        self._writer.writeheader()

    def row(self, row: dict[str, Any]) -> None:
        self._writer.writerow(row)


class _JsonList:
    """A JSON list written item by item, as ``json.dumps(items, indent=2)`` would write it
    at ``level`` (levels of nesting, for a list inside an object)."""

    def __init__(self, out: _Output, level: int = 0) -> None:
        self.out = out
        self.pad = "  " * (level + 1)
        self.end = "  " * level
        self.count = 0

    def add(self, item: Any) -> None:
        text = json.dumps(item, indent=2).replace("\n", "\n" + self.pad)
        self.out.write(("[\n" if not self.count else ",\n") + self.pad + text)
        self.count += 1

    def close(self) -> None:
        self.out.write("[]" if not self.count else "\n" + self.end + "]")


_LIST_HERE = "__eunomia_streamed_list__"


def _write_json_streaming(path: Path, data: dict[str, Any], items: Iterable[Any] | None
                          ) -> Path:
    """``json.dumps(data, indent=2)`` written to ``path``; ``items`` (when given) is written
    one at a time where ``data`` holds :data:`_LIST_HERE`."""
    text = json.dumps(data, indent=2)
    with _Output(path) as out:
        if items is None:
            out.write(text)
            return path
        marker = json.dumps(_LIST_HERE)
        at = text.index(marker)
        line = text[text.rfind("\n", 0, at) + 1:at]
        out.write(text[:at])
        listing = _JsonList(out, (len(line) - len(line.lstrip(" "))) // 2)
        for item in items:
            listing.add(item)
        listing.close()
        out.write(text[at + len(marker):])
    return path


def _csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> Path:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return _write(path, buf.getvalue())


class _Dumper(yaml.SafeDumper):
    """Block style (``|``) for multi-line text, so prompts and answers stay readable."""

    _CACHED_MAX = 80
    _CACHE_SIZE = 20_000
    _analyses: ClassVar[dict[bool, dict[str, Any]]] = {True: {}, False: {}}

    def analyze_scalar(self, scalar: str) -> Any:
        # A pure function of the text and allow_unicode, called for every scalar: keys and
        # short values repeat in every case, so remember them (for every dumper).
        if len(scalar) > self._CACHED_MAX:
            return super().analyze_scalar(scalar)
        cache = self._analyses[bool(self.allow_unicode)]
        found = cache.get(scalar)
        if found is None:
            if len(cache) >= self._CACHE_SIZE:
                cache.clear()
            found = cache[scalar] = super().analyze_scalar(scalar)
        return found


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def _result_fields(result: CaseResult | None, status: str, error: str | None
                   ) -> dict[str, Any]:
    """The fields appended to a case: response, score, feedback, then the details."""
    if result is None:
        return {"response_candidate_model": None, "score": None,
                "judge_feedback": None, "status": status, "error": error}
    out: dict[str, Any] = {
        "response_candidate_model": result.response,
        "score": None if result.score is None else round(result.score, 3),
        "judge_feedback": result.feedback or None,
        "status": result.status,
    }
    if len(result.verdicts) > 1:
        out["judge_scores"] = [v.score for v in result.verdicts]
    unscored = [v.raw for v in result.all_verdicts() if v.status == "unscored"]
    if unscored:
        out["judge_raw_unscored"] = unscored
    if result.turns:
        out["turns"] = [
            {"user": t.user, "response": t.response, "eval_point": t.eval_point,
             "score": (None if not [v for v in t.verdicts if v.score is not None] else
                       round(sum(v.score for v in t.verdicts if v.score is not None)
                             / len([v for v in t.verdicts if v.score is not None]), 3)),
             "judge_feedback": "\n".join(v.feedback for v in t.verdicts) or None,
             **({"check_results": [c.model_dump() for c in t.checks]} if t.checks else {})}
            for t in result.turns
        ]
    if result.checks:
        out["check_results"] = [c.model_dump() for c in result.checks]
    if result.speed is not None:
        out["speed"] = result.speed.model_dump()
    if result.error:
        out["error"] = result.error
    return out


def suite_yaml(suite: TaskSuite, records: list[CaseRecord]) -> str:
    """The suite in its own shape and key order, each case with its results appended: the
    whole file at once (exports write the same bytes a case at a time, :class:`SuiteYaml`)."""
    by_case: dict[str, list[CaseRecord]] = defaultdict(list)
    for r in records:
        by_case[r.case_name].append(r)
    cases = [_case_fields(case.raw, sorted(by_case.get(case.name, []), key=lambda r: r.repeat))
             for case in suite.cases]
    if suite.shape == "list":
        return dump_yaml(cases)
    return dump_yaml({**suite.top_level, "test_cases": cases})


def _case_fields(raw: dict[str, Any], mine: list[CaseRecord]) -> dict[str, Any]:
    """``raw`` (a case as written) with its records' results appended, as in the output."""
    if not mine:
        return raw
    if len(mine) == 1:
        raw.update(_result_fields(mine[0].result, mine[0].status, mine[0].error))
    else:
        scores = [r.score for r in mine if r.score is not None]
        raw["score"] = round(sum(scores) / len(scores), 3) if scores else None
        raw["repeats"] = [{"repeat": r.repeat, **_result_fields(r.result, r.status, r.error)}
                          for r in mine]
    return raw


_END = "\n...\n"


def case_yaml(case: dict[str, Any]) -> tuple[str, bool]:
    """One case as an item of the output's list of cases (``- ...`` through its last line)
    and whether it ends "open" (a ``|+`` block: the document then needs its end marker).

    The output file is the concatenation of these (after the top-level keys): PyYAML writes
    the items of a block sequence one after the other, each from the start of a line at the
    same indentation, whether the list is the document or the value of ``test_cases``.
    Written by :class:`_CaseEmitter` when it can, else by PyYAML itself: the same text."""
    fast = _case_emitter().item(case)
    if fast is not None:
        return fast
    return slow_case_yaml(case)


def slow_case_yaml(case: dict[str, Any]) -> tuple[str, bool]:
    """:func:`case_yaml` by PyYAML's own dumper (the reference): ``dump_yaml([case])``
    without the end marker ``...`` an open-ended last item makes it add."""
    stream = io.StringIO()
    dumper = _Dumper(stream, default_flow_style=False, sort_keys=False, allow_unicode=True,
                     width=100)
    try:
        dumper.open()
        dumper.represent([case])
        open_ended = bool(dumper.open_ended)
        dumper.close()
    finally:
        dumper.dispose()
    text = stream.getvalue()
    if open_ended:
        assert text.endswith(_END[1:]), text[-20:]
        text = text[:-len(_END) + 1]
    return text, open_ended


class _Unsupported(Exception):
    """Something :class:`_CaseEmitter` leaves to PyYAML's dumper."""


_STR, _INT, _BOOL, _NULL, _FLOAT = (f"tag:yaml.org,2002:{t}"
                                    for t in ("str", "int", "bool", "null", "float"))
_OTHER_BREAKS = ("\x85", "\u2028", "\u2029")


_WS = "\0 \t\r\n\x85\u2028\u2029"
_BREAK_CHARS = "\n\x85\u2028\u2029"
_BREAK = re.compile(f"[{_BREAK_CHARS}]")
_BREAK_SPACE = re.compile(f"[{_BREAK_CHARS}] ")
_SPACE_BREAK = re.compile(f" [{_BREAK_CHARS}]")
_SPECIAL = re.compile("[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010fffe]"
                      "|\ufeff")
_INNER_FLOW = re.compile(r"[,?\[\]{}:]")
_SPACES = re.compile("( +)")
_SPACES_QUOTES = re.compile("( +|')")
_INNER_BLOCK = re.compile(f"(?<=[\\s\\S]):(?=[{_WS}]|\\Z)|(?<=[{_WS}])#")


def analyze_scalar(scalar: str) -> ScalarAnalysis:
    """``yaml.emitter.Emitter.analyze_scalar`` (with ``allow_unicode``) by regular
    expressions instead of a Python loop over the characters: the same flags."""
    if not scalar:
        return ScalarAnalysis(scalar=scalar, empty=True, multiline=False,
                              allow_flow_plain=False, allow_block_plain=True,
                              allow_single_quoted=True, allow_double_quoted=True,
                              allow_block=False)
    first = scalar[0]
    followed = len(scalar) == 1 or scalar[1] in _WS
    block = flow = scalar.startswith(("---", "..."))
    if first in "#,[]{}&*!|>'\"%@`" or (first == "-" and followed):
        block = flow = True
    elif first in "?:":
        flow = True
        block = block or followed
    inner = _INNER_BLOCK.search(scalar)
    if inner is not None:
        block = True
        flow = True
    elif _INNER_FLOW.search(scalar, 1):
        flow = True
    breaks = _BREAK.search(scalar) is not None
    special = _SPECIAL.search(scalar) is not None
    last = scalar[-1]
    flow_plain = block_plain = single = block_style = True
    if first == " " or last == " " or first in _BREAK_CHARS or last in _BREAK_CHARS:
        flow_plain = block_plain = False
    if last == " ":
        block_style = False
    if _BREAK_SPACE.search(scalar):
        flow_plain = block_plain = single = False
    if special or _SPACE_BREAK.search(scalar):
        flow_plain = block_plain = single = block_style = False
    if breaks:
        flow_plain = block_plain = False
    if flow:
        flow_plain = False
    if block:
        block_plain = False
    return ScalarAnalysis(scalar=scalar, empty=False, multiline=breaks,
                          allow_flow_plain=flow_plain, allow_block_plain=block_plain,
                          allow_single_quoted=single, allow_double_quoted=True,
                          allow_block=block_style)


class _Sink:
    __slots__ = ("write",)

    def __init__(self, parts: list[str]) -> None:
        self.write = parts.append


class _CaseEmitter(_Dumper):
    """Writes one case (an item of a block sequence at indentation 0) exactly as PyYAML's
    emitter does, without its event queue, representer and serializer: PyYAML's own state
    machine for the block mappings and sequences of a case, done directly, and PyYAML's own
    scalar analysis, style choice and writers (with shortcuts where a scalar's text is
    written unchanged: no folding, no line break but ``\\n``).

    What it does not cover (a key that is not a short single-line string, a value that is
    not a dict, list, str, int, float, bool or None, an object met twice) makes
    :meth:`item` return None; PyYAML then writes the case. The tests compare the two on
    many generated cases."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        super().__init__(_Sink(self._parts), default_flow_style=False, sort_keys=False,
                         allow_unicode=True, width=100)
        self._tags: dict[str, tuple[str, str]] = {}
        self._seen: set[int] = set()
        self.root_context = False
        self.flow_level = 0

    def analyze_scalar(self, scalar: str) -> Any:
        if len(scalar) > self._CACHED_MAX:  # not remembered: analysed without a Python loop
            return analyze_scalar(scalar)
        return super().analyze_scalar(scalar)

    def item(self, case: Any) -> tuple[str, bool] | None:
        self._parts.clear()
        self._seen.clear()
        self.indent = 0
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.open_ended = False
        try:
            self._sequence_item(case)
        except _Unsupported:
            return None
        self.indent = 0
        self.write_indent()  # the line break the next item (or the document end) writes
        return "".join(self._parts), bool(self.open_ended)

    def _sequence_item(self, value: Any) -> None:
        self.write_indent()
        self.write_indicator("-", True, indention=True)
        self._node(value, mapping=False)

    def _container(self, value: Any) -> None:
        if id(value) in self._seen:  # PyYAML would write an anchor and an alias
            raise _Unsupported
        self._seen.add(id(value))

    def _node(self, value: Any, *, mapping: bool) -> None:
        kind = type(value)
        if kind is dict:
            self._container(value)
            if not value:
                self.write_indicator("{", True, whitespace=True)
                self.write_indicator("}", False)
                return
            saved = self.indent
            self.indent = (saved or 0) + self.best_indent
            for key, item in value.items():
                self.write_indent()
                self._key(key)
                self.write_indicator(":", False)
                self._node(item, mapping=True)
            self.indent = saved
        elif kind is list:
            self._container(value)
            if not value:
                self.write_indicator("[", True, whitespace=True)
                self.write_indicator("]", False)
                return
            saved = self.indent
            if not (mapping and not self.indention):  # else an "indentless" sequence
                self.indent = (saved or 0) + self.best_indent
            for item in value:
                self._sequence_item(item)
            self.indent = saved
        else:
            self._scalar(value, simple_key=False)

    def _key(self, key: Any) -> None:
        if type(key) is not str:
            raise _Unsupported
        analysis = self.analyze_scalar(key)
        # check_simple_key: the prepared tag ("!!str") and the text under 128 characters
        if len("!!str") + len(analysis.scalar) >= 128 or analysis.empty or analysis.multiline:
            raise _Unsupported
        self._scalar(key, simple_key=True)

    def _resolved(self, text: str) -> tuple[str, str]:
        found = self._tags.get(text)
        if found is None:
            if len(self._tags) >= self._CACHE_SIZE:
                self._tags.clear()
            found = self._tags[text] = (
                self.resolve(yaml.ScalarNode, text, (True, False)),  # type: ignore[no-untyped-call]
                self.resolve(yaml.ScalarNode, text, (False, True)))  # type: ignore[no-untyped-call]
        return found

    def _scalar(self, value: Any, *, simple_key: bool) -> None:
        kind = type(value)
        hint: str | None = None
        if kind is str:
            text, tag = value, _STR
            if "\n" in value:
                hint = "|"
        elif kind is bool:
            text, tag = ("true" if value else "false"), _BOOL
        elif kind is int:
            text, tag = str(value), _INT
        elif value is None:
            text, tag = "null", _NULL
        elif kind is float:
            text, tag = self.represent_float(value).value, _FLOAT
        else:
            raise _Unsupported
        plain_tag, quoted_tag = self._resolved(text)
        implicit = (tag == plain_tag, tag == quoted_tag)
        analysis = self.analyze_scalar(text)
        style = self._style(analysis, hint, implicit, simple_key)
        if not ((style == "" and implicit[0]) or (style != "" and implicit[1])):
            raise _Unsupported  # PyYAML would write a tag
        saved = self.indent
        self.indent = (saved or 0) + self.best_indent
        split = not simple_key
        scalar = analysis.scalar
        if style == "":
            self._plain(scalar, split)
        elif style == "'":
            self._single_quoted(scalar, split)
        elif style == "|":
            self._literal(scalar)
        else:
            self.write_double_quoted(scalar, split)
        self.indent = saved

    @staticmethod
    def _style(analysis: Any, hint: str | None, implicit: tuple[bool, bool],
               simple_key: bool) -> str:
        """``Emitter.choose_scalar_style`` in block context."""
        if not hint and implicit[0] and not (
                simple_key and (analysis.empty or analysis.multiline)) \
                and analysis.allow_block_plain:
            return ""
        if hint == "|":
            if not simple_key and analysis.allow_block:
                return "|"
            return '"'
        if analysis.allow_single_quoted and not (simple_key and analysis.multiline):
            return "'"
        return '"'

    def _fold(self) -> None:
        """``write_indent`` in the middle of a line: a line break, then the indentation."""
        indent = self.indent or 0
        self._parts.append("\n" + " " * indent)
        self.column = indent

    def _plain(self, text: str, split: bool) -> None:
        """``Emitter.write_plain`` for a text without line breaks (a plain scalar has none):
        a single space is folded into a line break once the line is past the width."""
        if not text:
            return
        parts = self._parts
        if not self.whitespace:
            parts.append(" ")
            self.column += 1
        self.whitespace = False
        self.indention = False
        if not split or " " not in text or self.column + len(text) <= self.best_width:
            parts.append(text)
            self.column += len(text)
            return
        for token in _SPACES.split(text):
            if token == " " and self.column > self.best_width:
                self._fold()
            elif token:
                parts.append(token)
                self.column += len(token)

    def _single_quoted(self, text: str, split: bool) -> None:
        """``Emitter.write_single_quoted`` for a text without line breaks: quotes doubled, a
        single space inside folded once the line is past the width."""
        if _BREAK.search(text):
            self.write_single_quoted(text, split)
            return
        self.write_indicator("'", True)
        parts = self._parts
        body = text.replace("'", "''")
        if not split or " " not in text or self.column + len(body) <= self.best_width:
            parts.append(body)
            self.column += len(body)
        else:
            at = 0
            for token in _SPACES_QUOTES.split(text):
                end = at + len(token)
                if token == "'":
                    parts.append("''")
                    self.column += 2
                elif token == " " and self.column > self.best_width and at and end < len(text):
                    self._fold()
                elif token:
                    parts.append(token)
                    self.column += len(token)
                at = end
        self.write_indicator("'", False)

    def _literal(self, text: str) -> None:
        if any(b in text for b in _OTHER_BREAKS):
            self.write_literal(text)
            return
        hints = self.determine_block_hints(text)
        self.write_indicator("|" + hints, True)
        if hints[-1:] == "+":
            self.open_ended = True
        pad = " " * (self.indent or 0)
        body = "\n".join(pad + line if line else "" for line in text.split("\n"))
        self._parts.append("\n" + body + ("" if text.endswith("\n") else "\n"))
        self.column = 0
        self.whitespace = True
        self.indention = True


_EMITTER: list[_CaseEmitter] = []


def _case_emitter() -> _CaseEmitter:
    if not _EMITTER:
        _EMITTER.append(_CaseEmitter())
    return _EMITTER[0]


class SuiteYaml:
    """A suite's output file written a case at a time, the same bytes as :func:`suite_yaml`."""

    def __init__(self, out: _Output, suite: TaskSuite) -> None:
        self.out = out
        self.suite = suite
        self.count = 0
        self.open_ended = False

    def add(self, case: dict[str, Any]) -> None:
        if not self.count and self.suite.shape == "mapping":
            head = dump_yaml({**self.suite.top_level, "test_cases": [0]})
            assert head.endswith("test_cases:\n- 0\n"), head[-40:]
            self.out.write(head[:-len("- 0\n")])
        text, self.open_ended = case_yaml(case)
        self.out.write(text)
        self.count += 1

    def close(self) -> None:
        if not self.count:
            empty: list[Any] = []
            self.out.write(dump_yaml(empty) if self.suite.shape == "list"
                           else dump_yaml({**self.suite.top_level, "test_cases": empty}))
        elif self.open_ended:
            self.out.write(_END[1:])


def _interval(i: Interval | None) -> tuple[str, str, str]:
    if i is None:
        return "", "", ""
    return _num(i.estimate), _num(i.low), _num(i.high)


def summary_row(g: GroupStat) -> dict[str, Any]:
    m, w = _interval(g.mean), _interval(g.weighted)
    return {"grouping": g.grouping, "value": g.value, "cases": g.cases, "scored": g.scored,
            "unscored": g.unscored, "failed": g.failed, "mean": m[0], "mean_ci_low": m[1],
            "mean_ci_high": m[2], "weighted_mean": w[0], "weighted_ci_low": w[1],
            "weighted_ci_high": w[2], "checks_passed": g.checks_passed,
            "checks_total": g.checks_total}


def case_row(r: CaseRecord) -> dict[str, Any]:
    """One row of ``cases.csv``."""
    c: CaseMeta | None = r.info
    res = r.result
    checks = res.all_checks() if res else []
    ins = sum(x.input_tokens for x in res.calls) if res else 0
    outs = sum(x.output_tokens for x in res.calls) if res else 0
    return {
        "suite": r.suite, "case_id": r.case_name, "kind": c.kind if c else "",
        "category": c.category if c else "",
        "sub_category": "; ".join(c.sub_categories) if c else "",
        "difficulty": c.difficulty if c else "", "repeat": r.repeat, "status": r.status,
        "score": _num(r.score),
        "judge_scores": " ".join("-" if v.score is None else str(v.score)
                                 for v in res.all_verdicts()) if res else "",
        "human_score": _num(c.human_score) if c else "",
        "checks_passed": sum(x.passed for x in checks), "checks_total": len(checks),
        "failed_checks": "; ".join(f"{x.name}: {x.detail}".strip(": ")
                                   for x in checks if not x.passed),
        "latency_s": _num(res.candidate_latency_s) if res else "",
        "time_to_first_token_s": _num(res.speed.time_to_first_token_s)
        if res and res.speed else "",
        "output_words": res.speed.output_words if res and res.speed else "",
        "input_tokens": ins, "output_tokens": outs, "cost": _num(r.cost, 8),
        "attempts": r.attempts, "cached": r.cached, "error": r.error or "",
    }


def case_rows(records: list[CaseRecord]) -> list[dict[str, Any]]:
    return [case_row(r) for r in records]


def speed_row(r: SpeedRow) -> dict[str, Any]:
    """One row of ``inference_speed.csv``."""
    return {"suite": r.suite, "case_id": r.case_name, "repeat": r.repeat,
            "expected_words": r.expected_words or "", "output_words": r.output_words,
            "output_tokens": r.output_tokens, "latency_s": _num(r.latency_s),
            "time_to_first_token_s": _num(r.time_to_first_token_s),
            "words_per_second": _num(r.words_per_second),
            "length_adherence": _num(r.length_adherence)}


def failure_json(f: tuple[str, str, int, str, str]) -> dict[str, Any]:
    return {"suite": f[0], "case_id": f[1], "repeat": f[2], "status": f[3], "reason": f[4]}


def agreement_rows(s: TasksSummary) -> list[dict[str, Any]]:
    a = s.agreement
    if a is None:
        return []
    return [
        {"metric": "judge_repeats", "value": a.judge_repeats},
        {"metric": "answers_scored_repeatedly", "value": a.answers},
        {"metric": "krippendorff_alpha_interval", "value": _num(a.alpha)},
        {"metric": "icc_2_1", "value": _num(a.icc)},
        {"metric": "human_scored_cases", "value": a.human_cases},
        {"metric": "judge_human_quadratic_weighted_kappa", "value": _num(a.qwk)},
        {"metric": "judge_human_mean_absolute_difference", "value": _num(a.mad)},
    ]


def _speed_points(s: TasksSummary) -> Iterator[tuple[float, float]]:
    for r in s.speed:
        if r.latency_s is not None:
            yield float(r.output_words), r.latency_s


def speed_svg_lines(s: TasksSummary, width: int = 640, height: int = 400) -> Iterator[str]:
    """Latency against output words, an SVG line at a time: one dot per answer (not held)
    and the fitted line."""
    xmax, ymax, any_point = 1.0, 0.001, False
    for x, y in _speed_points(s):
        xmax, ymax, any_point = max(xmax, x), max(ymax, y), True
    left, right, top, bottom = 60, 20, 40, 50
    pw, ph = width - left - right, height - top - bottom
    xmax *= 1.05
    ymax *= 1.1

    def sx(x: float) -> float:
        return left + pw * x / xmax

    def sy(y: float) -> float:
        return top + ph * (1 - y / ymax)

    yield (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">')
    yield '<rect width="100%" height="100%" fill="white"/>'
    yield (f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">'
           f'Inference speed: latency vs output length ({escape(s.candidate)})</text>')
    yield f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>'
    yield f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>'
    yield f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">output words</text>'
    yield (f'<text x="15" y="{top + ph / 2}" text-anchor="middle" '
           f'transform="rotate(-90 15 {top + ph / 2})">latency (s)</text>')
    for i in range(6):
        xv, yv = xmax * i / 5, ymax * i / 5
        yield (f'<text x="{sx(xv):.1f}" y="{top + ph + 16}" text-anchor="middle">'
               f'{xv:.0f}</text>')
        yield (f'<text x="{left - 6}" y="{sy(yv) + 4:.1f}" text-anchor="end">'
               f'{yv:.2g}</text>')
        yield (f'<line x1="{left}" y1="{sy(yv):.1f}" x2="{left + pw}" y2="{sy(yv):.1f}" '
               'stroke="#eee"/>')
    for x, y in _speed_points(s):
        yield f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4" fill="#1f77b4"/>'
    fit = s.speed_fit
    if fit is not None:
        x0, x1 = 0.0, xmax
        y0, y1 = fit.intercept, fit.intercept + fit.slope * xmax
        yield (f'<line x1="{sx(x0):.1f}" y1="{sy(y0):.1f}" x2="{sx(x1):.1f}" '
               f'y2="{sy(y1):.1f}" stroke="#d62728" stroke-width="2"/>')
        label = f"slope {fit.slope * 100:.3g} s per 100 words"
        if fit.r2 is not None:
            label += f", R² {fit.r2:.2f}"
        yield f'<text x="{left + 8}" y="{top + 14}" fill="#d62728">{escape(label)}</text>'
    if not any_point:
        yield (f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">'
               'no inference-speed cases</text>')
    yield "</svg>"


def _interval_json(i: Interval | None) -> dict[str, Any] | None:
    if i is None:
        return None
    return {"estimate": i.estimate, "low": i.low, "high": i.high, "n": i.n,
            "confidence": i.confidence}


def repeat_case_json(c: RepeatStat) -> dict[str, Any]:
    return {"suite": c.suite, "case_id": c.case_name, "scores": list(c.scores),
            "failed_repeats": c.failed_repeats, "mean": c.mean, "stdev": c.stdev,
            "min": c.low, "max": c.high, "flip_rate": c.flip_rate,
            "distribution": {str(k): v for k, v in c.distribution.items()}}


def repeat_row(c: RepeatStat) -> dict[str, Any]:
    """One row of ``repeat_consistency.csv``."""
    return {"suite": c.suite, "case_id": c.case_name,
            "scores": " ".join(f"{x:g}" for x in c.scores),
            "failed_repeats": c.failed_repeats, "mean": _num(c.mean),
            "stdev": _num(c.stdev), "min": _num(c.low), "max": _num(c.high),
            "flip_rate": _num(c.flip_rate)}


def summary_json(s: TasksSummary, run: RunInfo, *, streamed: bool = False) -> dict[str, Any]:
    """The summary in JSON. ``streamed``: the repeat-consistency cases are left as
    :data:`_LIST_HERE`, for the caller to write one at a time."""
    a = s.agreement
    rc = s.repeat_consistency
    fit = s.speed_fit
    return {
        "run_name": run.name, "run_status": run.status, "candidate": s.candidate,
        "judge": s.judge, "weights": s.weights, "cases": s.total, "scored": s.scored,
        "unscored": s.unscored, "failed": s.failed, "invalid": s.invalid,
        "overall": summary_row(s.overall) if s.overall else None,
        "overall_mean": _interval_json(s.overall.mean) if s.overall else None,
        "overall_weighted_mean": _interval_json(s.overall.weighted) if s.overall else None,
        "groups": [summary_row(g) for g in s.groups],
        "repeat_consistency": None if rc is None else {
            "repeats": rc.repeats, "alpha": rc.alpha, "icc": rc.icc,
            "cases": _LIST_HERE if streamed else [repeat_case_json(c) for c in rc.cases]},
        "judge_agreement": None if a is None else {
            "judge_repeats": a.judge_repeats, "answers": a.answers, "alpha": a.alpha,
            "icc": a.icc, "human_cases": a.human_cases, "qwk": a.qwk, "mad": a.mad},
        "speed_fit": None if fit is None else {
            "slope_s_per_word": fit.slope, "intercept_s": fit.intercept, "r2": fit.r2,
            "slope_low": fit.slope_low, "slope_high": fit.slope_high, "n": fit.n},
        "candidate_tokens": {"input": s.candidate_tokens[0], "output": s.candidate_tokens[1]},
        "judge_tokens": {"input": s.judge_tokens[0], "output": s.judge_tokens[1]},
        "cost": s.cost, "candidate_cost": s.candidate_cost,
        "unknown_price_models": s.unknown_models,
        "latency_mean_s": s.latency_mean_s, "latency_p95_s": s.latency_p95_s,
    }


def export_task_run(store: RunStore, run: RunInfo, results_dir: Path) -> list[ExportedTasks]:
    """Write every result file of a task run from the store; one summary per candidate.

    With several candidate models (a matrix run) each gets the files below in its own
    folder, ``results/<run>/<model>/``, like a scenario run's ``<run>/<target>/<scenario>``.
    """
    from eunomia.exports._from_store import target_slug, write_run_file

    base = results_dir / run.name
    write_run_file(store, run, base)
    targets = run.targets or ["?"]
    if len(targets) == 1:
        return [_export_candidate(store, run, targets[0], None, base)]
    exported = [_export_candidate(store, run, t, t, base / target_slug(t)) for t in targets]
    from eunomia.report import TASK_COLUMNS, write_leaderboard  # lazy: report imports exports

    write_leaderboard(base, task_leaderboard(exported), TASK_COLUMNS)
    return exported


def task_leaderboard(exported: Sequence[ExportedTasks]) -> list[Any]:
    """The ranked leaderboard rows (``eunomia.report.LeaderboardRow``) of a matrix run."""
    from eunomia.report import rank
    from eunomia.tasks._report import task_row

    return rank([task_row(e.target, e.summary) for e in exported])


def _export_candidate(store: RunStore, run: RunInfo, candidate: str, target: str | None,
                      base: Path) -> ExportedTasks:
    """The files of one candidate's cases (every case of the run when ``target`` is None),
    written while the store is read: see the module's docstring."""
    infos = store.suites(run)
    builder = _builder(store, run, candidate, target, infos)
    tables = base / "tables"
    yaml_files: list[Path] = []
    shared: dict[CaseMeta, CaseMeta] = {}
    with _CsvOutput(tables / "cases.csv", CASE_COLUMNS) as cases, \
            _Output(base / "failures.json") as failures_out:
        failures = _JsonList(failures_out)
        for info in infos:
            suite = read_suite(store, info)
            targets = [target] if target is not None else store.targets_of(run, info.name)
            metas: dict[str, CaseMeta] = {}  # this suite's cases by name (for the tables)
            yaml_files.append(write_suite_yaml(
                store, run, suite, targets, base / "tasks" / f"{suite.name}.yaml", metas,
                shared))
            for row in store.iter_cases(run, info.name, target):
                record = stored_record(store, info.name, row, metas.get(row.case_name))
                builder.add(record)
                cases.row(case_row(record))
                failure = record.failure
                if failure is not None:
                    failures.add(failure_json(failure))
        failures.close()
    summary = builder.finish()
    out = ExportedTasks(base, summary, target=candidate)
    out.files += yaml_files
    out.files.append(tables / "cases.csv")
    out.files.append(_csv(tables / "summary.csv", SUMMARY_COLUMNS,
                          [summary_row(g) for g in
                           ([summary.overall] if summary.overall else []) + summary.groups]))
    out.files.append(_csv(tables / "judge_agreement.csv", ("metric", "value"),
                          agreement_rows(summary)))
    rc = summary.repeat_consistency
    if rc is not None:
        with _CsvOutput(tables / "repeat_consistency.csv", REPEAT_COLUMNS) as table:
            for c in rc.cases:
                table.row(repeat_row(c))
        out.files.append(table.path)
    if summary.speed:
        with _CsvOutput(tables / "inference_speed.csv", SPEED_COLUMNS) as table:
            for r in summary.speed:
                table.row(speed_row(r))
        out.files.append(table.path)
        with _Output(base / "inference_speed.svg") as svg:
            for line in speed_svg_lines(summary):
                svg.write(line + "\n")
        out.files.append(svg.path)
    out.files.append(_write_json_streaming(
        base / "tasks_results.json", summary_json(summary, run, streamed=True),
        (repeat_case_json(c) for c in rc.cases) if rc is not None else None))
    out.files.append(base / "failures.json")
    return out


def _builder(store: RunStore, run: RunInfo, candidate: str, target: str | None,
             infos: Sequence[SuiteInfo]) -> SummaryBuilder:
    """The summary of the run's stored cases (of ``target``), to be fed in store order."""
    prices = PriceTable.from_json(store.get_json(infos[-1].prices)) if infos else PriceTable()
    settings = run.settings
    top = store.max_repeat(run, target)
    return SummaryBuilder(
        candidate=candidate, judge=str(settings.get("judge", "?")),
        weights=settings.get("weights") or {},
        judge_repeats=int(settings.get("judge_repeats", 1)), prices=prices,
        repeats=1 + (top or 0))


def stored_summary(store: RunStore, run: RunInfo, candidate: str,
                   target: str | None = None) -> TasksSummary:
    """One candidate's summary (every case of the run when ``target`` is None), read from
    the store a case at a time like an export, without writing any file, in bounded
    memory."""
    infos = store.suites(run)
    builder = _builder(store, run, candidate, target, infos)
    shared: dict[CaseMeta, CaseMeta] = {}
    for info in infos:
        metas = {entry[0]: CaseMeta.of(loaded_case(entry), shared)
                 for chunk in _chunks(read_suite(store, info)) for entry in chunk}
        for row in store.iter_cases(run, info.name, target):
            builder.add(stored_record(store, info.name, row, metas.get(row.case_name)))
    return builder.finish()


def stored_record(store: RunStore, suite: str, row: CaseRow, meta: CaseMeta | None
                  ) -> CaseRecord:
    """A stored case with its result (read from its response blob)."""
    result = CaseResult.model_validate_json(store.get_blob(row.response)) \
        if row.response else None
    return CaseRecord(
        suite=suite, case_name=row.case_name, repeat=row.repeat,
        status=row.status,  # type: ignore[arg-type]
        case=None, result=result, error=row.error, cost=row.cost, cached=row.cached,
        attempts=row.attempts, meta=meta)


def _chunks(suite: TaskSuite) -> Iterator[list[Entry]]:
    """The suite's cases as entries, a stored chunk (or as many cases) at a time."""
    if isinstance(suite.source, StoredCases):
        for digest in suite.source.chunks:
            part = StoredCases(suite.source.store, (digest,))
            yield list(part.entries())
        return
    chunk: list[Entry] = []
    for case in suite.cases:
        chunk.append((case.name, case.kind, case.index, case.line, case.raw_json))
        if len(chunk) >= defaults.TASK_SNAPSHOT_CHUNK_CASES:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def write_suite_yaml(store: RunStore, run: RunInfo, suite: TaskSuite, targets: Sequence[str],
                     path: Path, metas: dict[str, CaseMeta] | None = None,
                     shared: dict[CaseMeta, CaseMeta] | None = None) -> Path:
    """``tasks/<suite>.yaml``: the suite in file order, a chunk of cases at a time with the
    stored records of those cases (of ``targets``); the same bytes as :func:`suite_yaml`.
    Fills ``metas`` (case name -> what the tables need of it)."""
    with _Output(path) as out:
        writer = SuiteYaml(out, suite)
        for chunk in _chunks(suite):
            names = [e[0] for e in chunk]
            rows: dict[str, list[CaseRow]] = defaultdict(list)
            for t in targets:
                for row in store.cases_named(run, suite.name, t, names):
                    rows[row.case_name].append(row)
            for entry in chunk:
                name = entry[0]
                if metas is not None:
                    metas[name] = CaseMeta.of(loaded_case(entry), shared)
                mine = sorted((stored_record(store, suite.name, r, None)
                               for r in rows.get(name, ())), key=lambda r: r.repeat)
                writer.add(_case_fields(json.loads(entry[4]), mine))
        writer.close()
    return path
