"""The YAML text of the task exports: ``yaml.dump`` of the suite, written a chunk of cases at
a time.

A suite's result file (``tasks/<suite>.yaml``) is :func:`dump_yaml` of the whole suite: keys
in their order, Unicode as it is, lines of :data:`WIDTH` columns, multi-line text in block
style ``|`` so prompts and answers stay readable. :class:`SuiteYaml` writes the same text a
chunk of :data:`CASES_TOGETHER` cases at a time, so memory does not grow with the suite (a
block sequence's items are written one after the other, each from the start of a line,
whether the list is the document or the value of its top-level ``test_cases``).

The dumper is libyaml's (``CSafeDumper``) when PyYAML has it, else PyYAML's pure-Python
``SafeDumper``: what is written reads back as the data. libyaml double-quotes (with escapes)
a string holding a character beyond U+FFFF (an emoji) or U+0085, which PyYAML's pure-Python
dumper would write as it is.

A chunk of the usual cases (dicts, lists, strings, numbers, booleans, None, no object met
twice) is given to libyaml's emitter as events built here, the events ``yaml.dump`` would
give it, with those of short strings and keys remembered: the same text at a fraction of
PyYAML's representer's cost per value (bench/README.md, "The task YAML writer"). Any other
chunk is written by ``yaml.dump``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol

import yaml
from yaml import Event, ScalarEvent

STR_TAG: Final = "tag:yaml.org,2002:str"
WIDTH: Final = 100
DUMP_OPTIONS: Final[dict[str, Any]] = {"sort_keys": False, "allow_unicode": True,
                                       "width": WIDTH}
END_MARKER: Final = "...\n"
"""Ends a document whose last scalar is an open-ended ``|+`` block (its empty lines kept)."""
CASES_TOGETHER: Final = 64
"""Cases a :class:`SuiteYaml` writes as one document."""

_Base: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # without libyaml: pure Python
_CEmitter: Any = getattr(getattr(yaml, "cyaml", None), "CEmitter", None)


class Dumper(_Base):  # type: ignore[misc]
    """PyYAML's safe dumper (libyaml's when present) with block style (``|``) for
    multi-line text."""


def _represent_str(dumper: yaml.representer.SafeRepresenter, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(STR_TAG, value, style="|" if "\n" in value else None)


Dumper.add_representer(str, _represent_str)


def _unmarked(text: str) -> str:
    """``text`` without its end marker.

    libyaml writes the marker after a document whose last *block* scalar is a ``|+`` block,
    PyYAML's pure-Python dumper when its last scalar is one; the writers here put it back by
    the second rule, which a document written a chunk at a time can follow: the text then
    ends with an empty line (no other scalar does)."""
    return text[:-len(END_MARKER)] if text.endswith("\n" + END_MARKER) else text


def _ends_open(text: str) -> bool:
    return text.endswith("\n\n")


def _dumped(data: Any) -> str:
    text: str = yaml.dump(data, Dumper=Dumper, **DUMP_OPTIONS)
    return _unmarked(text)


def dump_yaml(data: Any) -> str:
    """``data`` as a whole YAML document."""
    text = _dumped(data)
    return text + END_MARKER if _ends_open(text) else text


# --- the events of the usual cases -----------------------------------------------------------
class _Unsupported(Exception):
    """A value :class:`_Events` leaves to ``yaml.dump``."""


_OPEN: Final[tuple[Event, ...]] = (
    yaml.StreamStartEvent(), yaml.DocumentStartEvent(explicit=False),
    yaml.SequenceStartEvent(None, None, True, flow_style=False))
_CLOSE: Final[tuple[Event, ...]] = (
    yaml.SequenceEndEvent(), yaml.DocumentEndEvent(explicit=False), yaml.StreamEndEvent())
_MAPPING = yaml.MappingStartEvent(None, None, True, flow_style=False)
_MAPPING_END = yaml.MappingEndEvent()
_SEQUENCE = yaml.SequenceStartEvent(None, None, True, flow_style=False)
_SEQUENCE_END = yaml.SequenceEndEvent()

_resolver = yaml.resolver.Resolver()
_representer = yaml.representer.SafeRepresenter()
_TAGS: Final = {bool: "tag:yaml.org,2002:bool", int: "tag:yaml.org,2002:int",
                float: "tag:yaml.org,2002:float", type(None): "tag:yaml.org,2002:null"}
_CACHED_MAX = 80
_CACHE_SIZE = 20_000
_str_events: dict[str, ScalarEvent] = {}
"""Events of the short strings met (keys and values)."""
_other_events: dict[tuple[type, Any], ScalarEvent] = {}
"""Events of the bools, ints, None and floats met (a float by its ``repr``: -0.0 is equal to
0.0, NaN to nothing)."""


def _remember(cache: dict[Any, ScalarEvent], key: Any, event: ScalarEvent) -> None:
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = event


def _plain_tag(text: str) -> str:
    """The tag the resolver gives ``text`` written plain: a string is written plain only
    when that is ``str`` (``yes``, ``null``, ``.nan``, ``42`` are quoted)."""
    resolvers = _resolver.yaml_implicit_resolvers
    if text and text[0] not in resolvers and None not in resolvers:
        return STR_TAG  # (what resolve does, without its calls)
    tag: str = _resolver.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag


def _str_event(text: str) -> ScalarEvent:
    """``yaml.dump``'s event of a string (the style left to libyaml but for ``|``)."""
    event = _str_events.get(text)
    if event is None:
        event = ScalarEvent(None, STR_TAG, (_plain_tag(text) == STR_TAG, True), text,
                            style="|" if "\n" in text else None)
        if len(text) <= _CACHED_MAX:
            _remember(_str_events, text, event)
    return event


def _other_event(value: Any) -> ScalarEvent:
    """``yaml.dump``'s event of a bool, int, float or None."""
    kind = type(value)
    tag = _TAGS.get(kind)
    if tag is None:
        raise _Unsupported
    key = (kind, repr(value) if kind is float else value)
    event = _other_events.get(key)
    if event is None:
        node = _representer.represent_data(value)
        if node.tag != tag or _plain_tag(node.value) != tag:
            raise _Unsupported  # yaml.dump would write the tag
        event = ScalarEvent(None, tag, (True, False), node.value)
        _remember(_other_events, key, event)
    return event


class _Events:
    """The events of a chunk of cases, as items of one document's list."""

    __slots__ = ("events", "seen")

    def __init__(self) -> None:
        self.events: list[Event] = list(_OPEN)
        self.seen: set[int] = set()

    def node(self, value: Any) -> None:
        kind = type(value)
        if kind is str:
            self.events.append(_str_event(value))
        elif kind is dict:
            self.mapping(value)
        elif kind is list:
            self.sequence(value)
        else:
            self.events.append(_other_event(value))

    def _once(self, value: Any) -> None:
        if id(value) in self.seen:  # yaml.dump would write an anchor and an alias
            raise _Unsupported
        self.seen.add(id(value))

    def mapping(self, value: dict[Any, Any]) -> None:
        self._once(value)
        append = self.events.append
        append(_MAPPING)
        for key, item in value.items():
            append(_str_event(key) if type(key) is str else _other_event(key))
            if type(item) is str:  # (self.node inlined for the most frequent value)
                append(_str_event(item))
            else:
                self.node(item)
        append(_MAPPING_END)

    def sequence(self, value: list[Any]) -> None:
        self._once(value)
        self.events.append(_SEQUENCE)
        for item in value:
            self.node(item)
        self.events.append(_SEQUENCE_END)


class _Sink:
    __slots__ = ("parts", "write")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.write = self.parts.append


def cases_yaml(cases: list[Any]) -> str:
    """``cases`` as the items of a list: ``dump_yaml(cases)`` without its end marker."""
    if _CEmitter is None:
        return _dumped(cases)
    built = _Events()
    try:
        for case in cases:
            built.node(case)
    except _Unsupported:
        return _dumped(cases)
    built.events += _CLOSE
    sink = _Sink()
    emit = _CEmitter(sink, allow_unicode=True, width=WIDTH).emit
    for event in built.events:
        emit(event)
    return _unmarked("".join(sink.parts))


# --- a suite's file written a chunk of cases at a time -------------------------------------------
class Writable(Protocol):
    """Where a suite's file is written (a text file, ``io.StringIO``, ``Output``)."""

    def write(self, text: str, /) -> object: ...


class SuiteYaml:
    """A suite's output file written to ``out`` a chunk of cases at a time: the same text as
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
        """Whether the text written so far ends with a ``|+`` block (then so does the
        document, which needs :data:`END_MARKER`)."""
        self._pending: list[Any] = []
        """Cases added and not written yet (:data:`CASES_TOGETHER` at most)."""

    def _document(self, cases: list[Any]) -> Any:
        return cases if self.shape == "list" else {**self.top_level, "test_cases": cases}

    def add(self, case: Any) -> None:
        """Add ``case`` (written with the next ones: it must not change until
        :meth:`close`)."""
        if not self.count and self.shape == "mapping":
            head = _dumped(self._document([0]))
            assert head.endswith("test_cases:\n- 0\n"), head[-40:]
            self.out.write(head[:-len("- 0\n")])
        self._pending.append(case)
        self.count += 1
        if len(self._pending) >= CASES_TOGETHER:
            self._write()

    def _write(self) -> None:
        if self._pending:
            text = cases_yaml(self._pending)
            self.open_ended = _ends_open(text)
            self.out.write(text)
            self._pending = []

    def close(self) -> None:
        self._write()
        if not self.count:
            self.out.write(dump_yaml(self._document([])))
        elif self.open_ended:
            self.out.write(END_MARKER)
