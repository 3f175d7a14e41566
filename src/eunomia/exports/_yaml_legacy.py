"""YAML written the way the task exports need it: PyYAML's output, a case at a time.

Multi-line strings are written as literal blocks (``|``) so prompts and answers stay
readable; keys keep their order. :func:`case_yaml` writes one case (an item of the suite's
list of cases), so a suite of any size is written in bounded memory (:class:`SuiteYaml`).
"""

from __future__ import annotations

import io
import re
from typing import Any, ClassVar, Protocol

import yaml
from yaml.emitter import ScalarAnalysis


class Writable(Protocol):
    def write(self, text: str) -> None: ...


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
    """A suite's output file written a case at a time: the same bytes as :func:`dump_yaml` of
    the whole suite."""

    def __init__(self, out: Writable, shape: str, top_level: dict[str, Any]) -> None:
        self.out = out
        self.shape = shape
        """``list`` (the file is a list of cases) or ``mapping`` (``test_cases`` in a mapping)."""
        self.top_level = top_level
        """A mapping's other keys, written before ``test_cases``."""
        self.count = 0
        self.open_ended = False

    def add(self, case: dict[str, Any]) -> None:
        if not self.count and self.shape == "mapping":
            head = dump_yaml({**self.top_level, "test_cases": [0]})
            assert head.endswith("test_cases:\n- 0\n"), head[-40:]
            self.out.write(head[:-len("- 0\n")])
        text, self.open_ended = case_yaml(case)
        self.out.write(text)
        self.count += 1

    def close(self) -> None:
        if not self.count:
            empty: list[Any] = []
            self.out.write(dump_yaml(empty) if self.shape == "list"
                           else dump_yaml({**self.top_level, "test_cases": empty}))
        elif self.open_ended:
            self.out.write(_END[1:])
