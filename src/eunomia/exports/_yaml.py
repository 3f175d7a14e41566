"""The YAML text of the task exports: PyYAML's output, written by libyaml's emitter.

A task suite's result file (``tasks/<suite>.yaml``) reads exactly as PyYAML's pure-Python
``SafeDumper`` writes it with :data:`DUMP_OPTIONS` and multi-line text in block style ``|``:
:func:`dump_yaml` and :func:`slow_case_yaml` are that reference (``exports/_pyyaml.py``).
It is written a case at a time (:class:`SuiteYaml`, :func:`case_yaml`; several cases in one
document when nothing is put back in their text, :func:`cases_yaml`) by libyaml's C
emitter, which writes the
same text except in these cases (libyaml 0.2.5; tests/tasks/test_yaml_emit.py and
bench/bench_yaml.py show each):

1. characters beyond U+FFFF (emoji): libyaml does not count them printable, so a string
   holding one is double-quoted with ``\\U0001F600`` escapes (a multi-line answer loses its
   ``|`` block); PyYAML writes them as they are;
2. U+0085 (NEL): the same; PyYAML takes it for a line break;
3. a double-quoted string (with a tab or another control character, a space before a line
   break as in markdown's hard break, or multi-line and ending in a space) longer than the
   line: libyaml folds it at a space (line break, indentation, the next word), PyYAML
   escapes the line break (``\\`` at the end of the line, ``\\`` before a leading space)
   and also breaks after an escape sequence;
4. keys: an empty key (PyYAML: ``? ''``), a key of 123 to 128 UTF-8 bytes or one that is
   longer in bytes than in characters near that length (libyaml counts at most 128 bytes
   for a simple key, PyYAML fewer than 128 characters with the 5 of ``!!str``), a key with
   ``\\r`` (a line break to libyaml);
5. the end marker ``...``: libyaml writes it after a document in which any ``|+`` block
   was written, PyYAML only when the last scalar is one.

So :func:`case_yaml` gives libyaml the case as events (PyYAML's representer and resolver
would cost more than libyaml's writing) and covers 1 and 3: characters beyond U+FFFF are
given to libyaml as private-use characters (the same class of character to both emitters:
printable, not special, one column) and mapped back; a string PyYAML double-quotes is
written by :func:`double_quoted` (PyYAML's own algorithm) in place of a placeholder. It
leaves 2, 4 and whatever else it does not cover (a value that is not a dict, list, str,
int, float, bool or None, an object met twice) to PyYAML (:func:`slow_case_yaml`), and
gives 5 PyYAML's meaning. Without libyaml, PyYAML writes every case.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

import yaml
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

from eunomia.exports._pyyaml import DUMP_OPTIONS as DUMP_OPTIONS
from eunomia.exports._pyyaml import END_MARKER as END_MARKER
from eunomia.exports._pyyaml import INDENT as INDENT
from eunomia.exports._pyyaml import STR_TAG as _STR
from eunomia.exports._pyyaml import WIDTH as WIDTH
from eunomia.exports._pyyaml import Dumper as Dumper
from eunomia.exports._pyyaml import double_quoted as double_quoted
from eunomia.exports._pyyaml import dump_yaml as dump_yaml
from eunomia.exports._pyyaml import slow_case_yaml as slow_case_yaml


class Writable(Protocol):
    """Where a suite's file is written (a text file, ``io.StringIO``, ``Output``)."""

    def write(self, text: str, /) -> object: ...


# --- one case by libyaml -----------------------------------------------------------------
def case_yaml(case: Any) -> tuple[str, bool]:
    """One case as an item of the output's list of cases (``- ...`` through its last line)
    and whether it ends "open" (its last scalar is a ``|+`` block: the document then needs
    :data:`END_MARKER`).

    The output file is the concatenation of these (after the top-level keys): PyYAML writes
    the items of a block sequence one after the other, each from the start of a line at the
    same indentation, whether the list is the document or the value of a top-level key.
    The same text as :func:`slow_case_yaml`, written by libyaml when it can (see the
    module's docstring)."""
    fast = libyaml_case_yaml(case)
    return fast if fast is not None else slow_case_yaml(case)


class _Unsupported(Exception):
    """What :func:`libyaml_case_yaml` leaves to PyYAML."""


_CEmitter: Any = getattr(getattr(yaml, "cyaml", None), "CEmitter", None)  # without libyaml: None

# The three classes below are written as the characters they match, not as ``[^...]`` of the
# characters they let through: the same characters (tests/tasks/test_yaml_emit.py checks every
# code point), compiled in 2 ms instead of 10 (the ``re`` compiler fills a table entry by entry
# for each range of the basic plane; ``eunomia eval`` compiles them at every start).
_SPECIAL = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\ufffe\uffff\U0010ffff]")
"""A character PyYAML's ``analyze_scalar`` (with ``allow_unicode``) calls special: the
string is then double-quoted. ``\\ufeff`` and every character outside ``\\n``,
``\\x20-\\x7e``, ``\\x85``, ``\\xa0-\\ud7ff``, ``\\ue000-\\ufffd`` and
``\\U00010000-\\U0010fffe``."""
_ATTENTION = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\uf8ff\ufeff\ufffe-\U0010ffff]")
"""A character of a value that libyaml may write otherwise than PyYAML, or that the
private-use mapping must avoid: special characters, other line breaks, private-use and
astral characters: every character outside ``\\n``, ``\\x20-\\x7e``, ``\\xa0-\\u2027``,
``\\u202a-\\ud7ff``, ``\\uf900-\\ufefe`` and ``\\uff00-\\ufffd``. (A space before a line
break, the other thing to look for, is looked for apart: a single class is scanned several
times faster than an alternative.)"""
_KEY_ATTENTION = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\uf8ff\ufeff\ufffe-\U0010ffff]")
""":data:`_ATTENTION` in a key, where a line break (``\\n``) needs care too."""
_OTHER_BREAKS = re.compile("[\x85\u2028\u2029]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_PRIVATE = re.compile("[\ue000-\uf8ff]")
_KEY_BYTES = 122
"""Longer keys (in UTF-8 bytes) are left to PyYAML: libyaml and PyYAML both write a key of
at most 122 bytes as a simple key."""

_OPEN: Final[tuple[Event, ...]] = (
    StreamStartEvent(), DocumentStartEvent(explicit=False),
    SequenceStartEvent(None, None, True, flow_style=False))
_CLOSE: Final[tuple[Event, ...]] = (SequenceEndEvent(), DocumentEndEvent(explicit=False),
                                    StreamEndEvent())
_MAPPING = MappingStartEvent(None, None, True, flow_style=False)
_MAPPING_END = MappingEndEvent()
_SEQUENCE = SequenceStartEvent(None, None, True, flow_style=False)
_SEQUENCE_END = SequenceEndEvent()
_PLACEHOLDER = "eunomia-double-quoted-b7e2c9"
"""Stands in libyaml's text for a string :func:`double_quoted` writes (a plain scalar)."""
_PLACEHOLDER_EVENT = ScalarEvent(None, _STR, (True, True), _PLACEHOLDER)

_CACHED_MAX = 80
_CACHE_SIZE = 20_000
_reference = Dumper(io.StringIO())
"""PyYAML's resolver and representer, as :class:`Dumper` has them."""
_plain_tags: dict[str, str] = {}
_scalar_events: dict[str, ScalarEvent] = {}
"""Events of the short strings that need no care."""
_key_events: dict[str, ScalarEvent] = {}


def _plain_tag(text: str) -> str:
    """The tag PyYAML's resolver gives ``text`` written plain (its implicit tag)."""
    found = _plain_tags.get(text)
    if found is None:
        resolvers = Dumper.yaml_implicit_resolvers
        if text and text[0] not in resolvers and None not in resolvers:
            return _STR  # (what resolve does, without its calls)
        found = _reference.resolve(  # type: ignore[no-untyped-call]
            yaml.ScalarNode, text, (True, False))
        if len(text) <= _CACHED_MAX:
            if len(_plain_tags) >= _CACHE_SIZE:
                _plain_tags.clear()
            _plain_tags[text] = found
    assert isinstance(found, str)
    return found


def _str_event(text: str) -> ScalarEvent:
    """A string's event (a string needing no care, or translated)."""
    return ScalarEvent(None, _STR, (_plain_tag(text) == _STR, True), text,
                       style="|" if "\n" in text else None)


def _cached_str_event(text: str) -> ScalarEvent:
    """The event of a string that needs no care (remembered when short)."""
    event = _str_event(text)
    if len(text) <= _CACHED_MAX:
        if len(_scalar_events) >= _CACHE_SIZE:
            _scalar_events.clear()
        _scalar_events[text] = event
    return event


def _key_event(key: Any) -> ScalarEvent:
    """A key's event (remembered), if libyaml writes the key as PyYAML does: a simple key
    (a string of at most :data:`_KEY_BYTES` bytes, not empty) without special, private-use
    or astral characters or line breaks."""
    if type(key) is not str or not key or _KEY_ATTENTION.search(key) \
            or len(key.encode()) > _KEY_BYTES:
        raise _Unsupported
    event = _str_event(key)
    if len(_key_events) >= _CACHE_SIZE:
        _key_events.clear()
    _key_events[key] = event
    return event


_TAGS = {bool: "tag:yaml.org,2002:bool", int: "tag:yaml.org,2002:int",
         float: "tag:yaml.org,2002:float", type(None): "tag:yaml.org,2002:null"}


_other_events: dict[tuple[type, Any], ScalarEvent] = {}
"""Events of the bools, small ints, None and floats met (a float by its ``repr``: -0.0 is
equal to 0.0, NaN to nothing)."""


def _other_event(value: Any) -> ScalarEvent:
    """The event of a bool, int, float or None, as PyYAML's safe representer writes it
    (remembered)."""
    kind = type(value)
    if kind not in _TAGS:
        raise _Unsupported
    key = (kind, repr(value) if kind is float else value)
    found = _other_events.get(key)
    if found is None:
        found = _new_other_event(value)
        if len(_other_events) >= _CACHE_SIZE:
            _other_events.clear()
        _other_events[key] = found
    return found


def _new_other_event(value: Any) -> ScalarEvent:
    kind = type(value)
    tag = _TAGS.get(kind)
    if tag is None:
        raise _Unsupported
    if kind is bool:
        text = "true" if value else "false"
    elif kind is int:
        text = str(value)
    elif value is None:
        text = "null"
    else:
        text = _reference.represent_float(value).value
    if _plain_tag(text) != tag:
        raise _Unsupported  # PyYAML would write the tag
    return ScalarEvent(None, tag, (True, False), text)


class _Case:
    """One case's events for libyaml and what its text needs afterwards."""

    __slots__ = ("astral", "back", "events", "private", "quoted", "seen")

    def __init__(self) -> None:
        self.events: list[Event | None] = list(_OPEN)
        self.back: list[tuple[str, str]] | None = None
        """The pairs (astral, private) to map back once written."""
        self.quoted: list[tuple[str, int]] = []
        """The double-quoted strings in order, with their indentation."""
        self.astral: list[tuple[int, str]] = []
        """The strings with characters beyond U+FFFF, with their place in ``events``."""
        self.private: set[str] = set()
        """The private-use characters of the case (which the mapping must not use)."""
        self.seen: set[int] = set()

    def node(self, value: Any, indent: int, mapping_value: bool) -> None:
        """``value``'s events; ``indent``: PyYAML's indentation of the enclosing node."""
        kind = type(value)
        if kind is dict:
            self.mapping(value, indent + INDENT)
        elif kind is list:
            self.sequence(value, indent if mapping_value else indent + INDENT)
        elif kind is str:
            event = _scalar_events.get(value)
            if event is not None:
                self.events.append(event)
            else:
                self.scalar(value, indent + INDENT)
        else:
            self.events.append(_other_event(value))

    def mapping(self, value: dict[Any, Any], indent: int) -> None:
        if id(value) in self.seen:  # PyYAML would write an anchor and an alias
            raise _Unsupported
        self.seen.add(id(value))
        events = self.events
        append = events.append
        append(_MAPPING)
        for key, item in value.items():
            event = _key_events.get(key)
            append(_key_event(key) if event is None else event)
            kind = type(item)
            if kind is str:  # (self.node inlined for the most frequent value)
                event = _scalar_events.get(item)
                if event is not None:
                    append(event)
                else:
                    self.scalar(item, indent + INDENT)
            else:
                self.node(item, indent, True)
        append(_MAPPING_END)

    def sequence(self, value: list[Any], indent: int) -> None:
        """A block sequence; in a mapping it is "indentless" (``indent`` is the mapping's)."""
        if id(value) in self.seen:
            raise _Unsupported
        self.seen.add(id(value))
        self.events.append(_SEQUENCE)
        for item in value:
            self.node(item, indent, False)
        self.events.append(_SEQUENCE_END)

    def scalar(self, text: str, indent: int) -> None:
        """A string (not a key) not in the cache of strings that need no care."""
        multiline = "\n" in text
        if _ATTENTION.search(text) is None and not (
                multiline and (text[-1] == " " or " \n" in text)):
            self.events.append(_cached_str_event(text))
        elif _OTHER_BREAKS.search(text):
            raise _Unsupported
        elif _SPECIAL.search(text) or (multiline and (" \n" in text or text[-1] == " ")):
            self.quoted.append((text, indent))
            self.events.append(_PLACEHOLDER_EVENT)
        else:
            self.private.update(_PRIVATE.findall(text))
            if _ASTRAL.search(text):
                self.astral.append((len(self.events), text))
                self.events.append(None)  # its event once the mapping is chosen
            else:
                self.events.append(_str_event(text))

    def translate_astral(self) -> list[tuple[str, str]]:
        """Give each string with characters beyond U+FFFF its event, those characters
        replaced by private-use ones the case does not hold; the pairs (astral, private)."""
        chars = sorted({c for _, text in self.astral for c in _ASTRAL.findall(text)})
        free = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in self.private)
        pairs = list(zip(chars, free, strict=False))
        if len(pairs) < len(chars):
            raise _Unsupported
        for at, text in self.astral:
            event = _str_event(_replace(text, pairs))
            event.implicit = (_plain_tag(text) == _STR, True)  # PyYAML's: of the text itself
            self.events[at] = event
        return pairs


def _replace(text: str, pairs: list[tuple[str, str]], back: bool = False) -> str:
    """``text`` with each first of ``pairs`` replaced by the second (``back``: the other
    way); ``str.replace`` a pair at a time is many times faster than ``str.translate``."""
    for a, b in pairs:
        text = text.replace(b, a) if back else text.replace(a, b)
    return text


class _Sink:
    __slots__ = ("parts", "write")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.write = self.parts.append


def libyaml_case_yaml(case: Any) -> tuple[str, bool] | None:
    """:func:`case_yaml` written by libyaml, or None when the case is left to PyYAML."""
    item = _built(case)
    return None if item is None else _finished(item)


def _built(case: Any) -> _Case | None:
    """``case``'s events for libyaml (None: the case is left to PyYAML)."""
    if _CEmitter is None:
        return None
    item = _Case()
    try:
        item.node(case, 0, False)
        item.back = item.translate_astral() if item.astral else None
    except _Unsupported:
        return None
    return item


def _emitted(events: list[Event | None]) -> str:
    """libyaml's text of a document of ``events`` (the end marker of a ``|+`` block off)."""
    sink = _Sink()
    emitter = _CEmitter(sink, allow_unicode=True, width=WIDTH)
    emit = emitter.emit
    for event in events:
        emit(event)
    text = "".join(sink.parts)
    if text.endswith("\n" + END_MARKER):  # libyaml's, after any "|+" block (a line of its own)
        text = text[:-len(END_MARKER)]
    return text


def _finished(item: _Case) -> tuple[str, bool] | None:
    """The text of a case built by :func:`_built`, and whether it ends open."""
    events = item.events
    events += _CLOSE
    text = _emitted(events)
    if item.back:
        text = _replace(text, item.back, back=True)
    if item.quoted:
        if text.count(_PLACEHOLDER) != len(item.quoted):  # the placeholder in a case's text
            return None
        text = _put_quoted(text, item.quoted)
    # Open-ended: the last scalar is a "|+" block, the one thing here that ends in an empty
    # line (other blocks end with their last line; folded lines are indented).
    return text, text.endswith("\n\n")


def cases_yaml(cases: Sequence[Any]) -> tuple[str, bool]:
    """The texts of :func:`case_yaml` of ``cases``, one after the other, and whether the last
    ends open (False without a case).

    The cases libyaml writes as they are (neither double-quoted strings nor characters
    beyond U+FFFF to put back) are written together, as the items of one sequence: the same
    text as one at a time (items of a block sequence are written one after the other, each
    from the start of a line), without an emitter and a document per case."""
    parts: list[str] = []
    together: list[tuple[Any, _Case]] = []
    open_ended = False
    for case in cases:
        item = _built(case)
        if item is not None and not item.quoted and not item.back:
            together.append((case, item))
            continue
        if together:
            parts.append(_together(together))
            together = []
        text, open_ended = case_yaml(case) if item is None else \
            (_finished(item) or slow_case_yaml(case))
        parts.append(text)
    if together:
        parts.append(_together(together))
    text = "".join(parts)
    return text, (text.endswith("\n\n") if together else open_ended)


def _together(run: list[tuple[Any, _Case]]) -> str:
    """The text of cases built by :func:`_built` without strings to put back, written as
    the items of one document's sequence."""
    events: list[Event | None] = list(_OPEN)
    skip = len(_OPEN)
    for _, item in run:
        events += item.events[skip:]
    events += _CLOSE
    text = _emitted(events)
    if _PLACEHOLDER in text:  # a case holds the placeholder: each one by itself
        return "".join(case_yaml(case)[0] for case, _ in run)
    return text


def _put_quoted(text: str, quoted: list[tuple[str, int]]) -> str:
    """``text`` with each placeholder (after its space) replaced by its string,
    double-quoted from that column."""
    parts: list[str] = []
    at = 0
    for value, indent in quoted:
        here = text.index(_PLACEHOLDER, at)
        column = here - (text.rfind("\n", 0, here) + 1)
        parts += (text[at:here], double_quoted(value, column, indent))
        at = here + len(_PLACEHOLDER)
    parts.append(text[at:])
    return "".join(parts)


# --- a suite's file written a case at a time ---------------------------------------------------
CASES_TOGETHER: Final = 64
"""Cases a :class:`SuiteYaml` writes together (:func:`cases_yaml`)."""


class SuiteYaml:
    """A suite's output file written to ``out`` a case at a time: the same text as
    :func:`dump_yaml` of the whole suite, ``dump_yaml(cases)`` (``shape`` ``list``) or
    ``dump_yaml({**top_level, "test_cases": cases})`` (``shape`` ``mapping``)."""

    def __init__(self, out: Writable, shape: str, top_level: Mapping[str, Any]) -> None:
        if shape not in ("list", "mapping"):
            raise ValueError(f"a suite's shape is list or mapping, not {shape!r}")
        if shape == "mapping" and "test_cases" in top_level:
            raise ValueError("the top-level keys hold 'test_cases'")
        self.out = out
        self.shape = shape
        self.top_level = dict(top_level)
        """A mapping's other keys, written before ``test_cases``."""
        self.count = 0
        self.open_ended = False
        self._pending: list[Any] = []
        """Cases added and not written yet (:data:`CASES_TOGETHER` at most)."""

    def _document(self, cases: list[Any]) -> Any:
        return cases if self.shape == "list" else {**self.top_level, "test_cases": cases}

    def add(self, case: Any) -> None:
        """Add ``case`` (written with the next ones, by :func:`cases_yaml`: it must not
        change until :meth:`close`)."""
        if not self.count and self.shape == "mapping":
            head = dump_yaml(self._document([0]))
            assert head.endswith("test_cases:\n- 0\n"), head[-40:]
            self.out.write(head[:-len("- 0\n")])
        self._pending.append(case)
        self.count += 1
        if len(self._pending) >= CASES_TOGETHER:
            self._write()

    def _write(self) -> None:
        if self._pending:
            text, self.open_ended = cases_yaml(self._pending)
            self.out.write(text)
            self._pending = []

    def close(self) -> None:
        self._write()
        if not self.count:
            self.out.write(dump_yaml(self._document([])))
        elif self.open_ended:
            self.out.write(END_MARKER)
