"""Reading a task suite file one case at a time: libyaml's events (C), each case built on
its own, so loading holds no more than one case.

The top level is composed into nodes and constructed by PyYAML. A case item is built from
its events directly (no nodes): each scalar resolved and constructed by the safe loader's
own resolver and constructors, so the values are the same. An anchor, an alias, an explicit
tag, a merge key or a key that is not a scalar is left to the whole reading
(:class:`Fallback`). The lines of a case's keys, which only a diagnostic needs, are worked
out from the case's own events, kept until the next case, when a diagnostic asks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml
from yaml._yaml import CParser
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from eunomia.yamlfile import YamlDocument, _walk

Loc = tuple[int | str, ...]
Lines = dict[Loc, int]


class ItemDoc:
    """What a diagnostic needs of a document: its path and the line of a key path (looked
    up in lines computed only when a diagnostic asks for them)."""

    def __init__(self, path: Path, lines: Callable[[], Lines]) -> None:
        self.path = path
        self._make = lines
        self._lines: Lines | None = None

    def line_of(self, loc: Sequence[int | str]) -> int | None:
        if self._lines is None:
            self._lines = self._make()
        return YamlDocument(self.path, None, self._lines).line_of(loc)


_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"


class Fallback(Exception):
    """The file's layout is not one the streaming reader handles: read it whole."""


class StreamLoader(CParser, Composer, SafeConstructor, Resolver):
    """libyaml's parser (C) with PyYAML's composer, so nodes are built one case at a time;
    the safe constructor and resolver of ``yaml.CSafeLoader``."""

    def __init__(self, stream: Any) -> None:
        CParser.__init__(self, stream)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self.anchors: dict[str, yaml.Node] = {}


def _top_lines(key: yaml.Node, value: yaml.Node, out: Lines) -> None:
    """The lines of one top-level entry, as :func:`eunomia.yamlfile._walk` records them."""
    name: int | str = key.value if isinstance(key, yaml.ScalarNode) else "?"
    out[(name,)] = key.start_mark.line + 1
    _walk(value, (name,), out)
    out[(name,)] = key.start_mark.line + 1


class Stream:
    """One streaming pass over a suite file: the top level, then the case items."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = path.open(encoding="utf-8")
        self.loader = StreamLoader(self.file)
        self.top: dict[Any, Any] = {}
        self.lines: Lines = {}
        self.shape = "list"
        self._events: list[Any] = []
        """The events of the case item read last."""

    def close(self) -> None:
        self.loader.dispose()
        self.file.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _node(self) -> yaml.Node:
        node = self.loader.compose_node(None, None)  # type: ignore[arg-type]
        if node is None:
            raise Fallback
        return node

    def _data(self, node: yaml.Node) -> Any:
        return self.loader.construct_document(node)

    def start(self) -> bool:
        """Read up to the first case item; False when the file holds no document."""
        ld = self.loader
        if not ld.check_event(StreamStartEvent):
            raise Fallback
        ld.get_event()
        if ld.check_event(StreamEndEvent):
            return False
        ld.get_event()  # the document start
        start = ld.peek_event()
        if start is None or start.start_mark is None:
            raise Fallback
        if isinstance(start, (SequenceStartEvent, MappingStartEvent)) and (
                start.anchor is not None or start.tag not in (None, "!")):
            raise Fallback
        self.lines[()] = start.start_mark.line + 1
        if isinstance(start, SequenceStartEvent):
            ld.get_event()
            self.shape = "list"
            return True
        if not isinstance(start, MappingStartEvent):
            raise Fallback  # a scalar or an alias: not a suite, said by the whole reading
        ld.get_event()
        self.shape = "mapping"
        while not ld.check_event(MappingEndEvent):
            key = self._node()
            name = self._data(key) if isinstance(key, yaml.ScalarNode) else None
            if name == "test_cases":
                event = ld.peek_event()
                if not isinstance(event, SequenceStartEvent) or event.anchor is not None \
                        or event.tag not in (None, "!"):
                    raise Fallback
                ld.get_event()
                self.lines[("test_cases",)] = key.start_mark.line + 1
                return True
            if name is None or name == "<<" or name in self.top:
                raise Fallback
            value = self._node()
            self.top[name] = self._data(value)
            _top_lines(key, value, self.lines)
        raise Fallback  # no test_cases: not a suite, said by the whole reading

    def items(self) -> Iterator[tuple[int, Any, int]]:
        """The case items (index, value, line), in order; afterwards the rest of the top
        level is read. :meth:`item_doc` is where the diagnostics of the item read last
        point."""
        read: Callable[[], Any] = self.loader.get_event
        index = 0
        while type(event := read()) is not SequenceEndEvent:
            events = self._events = [event]

            def get(keep: Callable[[Any], None] = events.append) -> Any:
                got = read()
                keep(got)
                return got

            yield index, self._value(event, get), event.start_mark.line + 1
            index += 1
        self._events = []

    def _value(self, event: Any, get: Callable[[], Any]) -> Any:
        """The value that starts with ``event`` (the next events from ``get``), as the safe
        loader constructs it."""
        kind = type(event)
        if kind is ScalarEvent:
            return self._scalar(event)
        if kind not in (MappingStartEvent, SequenceStartEvent) or event.anchor is not None \
                or event.tag not in (None, "!"):
            raise Fallback  # an alias, an anchor or a tag (or the end of the stream)
        if kind is MappingStartEvent:
            mapping: dict[Any, Any] = {}
            while type(key := get()) is not MappingEndEvent:
                if type(key) is not ScalarEvent:
                    raise Fallback  # a key that is a mapping, a sequence or an alias
                mapping[self._scalar(key)] = self._value(get(), get)
            return mapping
        items: list[Any] = []
        while type(item := get()) is not SequenceEndEvent:
            items.append(self._value(item, get))
        return items

    def _scalar(self, event: Any) -> Any:
        """A scalar's value; a merge key (``<<``) or a tag without a safe constructor is
        left to the whole reading."""
        if event.anchor is not None or event.tag not in (None, "!"):
            raise Fallback
        ld = self.loader
        resolve: Callable[..., str] = ld.resolve
        tag = resolve(ScalarNode, event.value, event.implicit)
        if tag == _STR:
            return event.value
        make = ld.yaml_constructors.get(tag) if tag != _MERGE else None
        if make is None:
            raise Fallback
        return make(ld, ScalarNode(tag, event.value, event.start_mark, event.end_mark,
                                   event.style))

    def finish(self) -> None:
        """The keys after ``test_cases``; the end of the one document."""
        ld = self.loader
        if self.shape == "mapping":
            while not ld.check_event(MappingEndEvent):
                key = self._node()
                name = self._data(key) if isinstance(key, yaml.ScalarNode) else None
                if name is None or name in ("<<", "test_cases", "metadata") or name in self.top:
                    raise Fallback
                value = self._node()
                self.top[name] = self._data(value)
                _top_lines(key, value, self.lines)
            ld.get_event()
        if not ld.check_event(DocumentEndEvent):
            raise Fallback
        ld.get_event()
        if not ld.check_event(StreamEndEvent):
            raise Fallback  # a second document: an error, said by the whole reading
        if isinstance(ld.peek_event(), DocumentStartEvent):
            raise Fallback

    def item_doc(self, here: Loc) -> ItemDoc:
        """Where the diagnostics of the case item read last (at key path ``here``) point: the
        lines of the top level and of that item's keys, worked out from its events when one
        asks."""
        events = self._events

        def lines() -> Lines:
            out = dict(self.lines)
            _event_lines(iter(events[1:]), events[0], here, out)
            return out

        return ItemDoc(self.path, lines)


def _event_lines(rest: Iterator[Any], first: Any, here: Loc, out: Lines) -> None:
    """The lines of the value that starts with ``first`` (the next events in ``rest``), as
    :func:`eunomia.yamlfile._walk` records those of its node: a key's own line, an item's
    first line."""
    out[here] = first.start_mark.line + 1
    kind = type(first)
    if kind is MappingStartEvent:
        while type(key := next(rest)) is not MappingEndEvent:
            name: int | str = key.value if type(key) is ScalarEvent else "?"
            _event_lines(rest, next(rest), (*here, name), out)
            out[(*here, name)] = key.start_mark.line + 1
    elif kind is SequenceStartEvent:
        index = 0
        while type(item := next(rest)) is not SequenceEndEvent:
            _event_lines(rest, item, (*here, index), out)
            index += 1
