"""A tiny HTML inspector for the report tests (standard library parser)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass(slots=True)
class Tag:
    name: str
    attrs: dict[str, str]
    svg: int | None
    """Index of the enclosing <svg> (in document order), if any."""


@dataclass(slots=True)
class Page:
    tags: list[Tag] = field(default_factory=list)
    svgs: list[Tag] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    def find(self, name: str) -> list[Tag]:
        return [t for t in self.tags if t.name == name]

    def bars_of(self, svg_index: int) -> list[Tag]:
        """The bars of a chart: its groups of class ``bar`` (one per bar drawn)."""
        return self.classed(svg_index, "bar")

    def classed(self, svg_index: int, css: str) -> list[Tag]:
        return [t for t in self.tags if t.svg == svg_index
                and css in t.attrs.get("class", "").split()]

    def extent(self, group: Tag) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the first path drawn in ``group`` (a bar's rectangle)."""
        start = next(k for k, t in enumerate(self.tags) if t is group)
        path = next(t for t in self.tags[start:] if t.name == "path")
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path.attrs["d"])]
        xs, ys = numbers[0::2], numbers[1::2]
        return min(xs), min(ys), max(xs), max(ys)

    def within(self, svg_index: int) -> list[Tag]:
        return [t for t in self.tags if t.svg == svg_index]

    def svg_labelled(self, prefix: str) -> list[int]:
        return [k for k, s in enumerate(self.svgs)
                if s.attrs.get("aria-label", "").startswith(prefix)]

    @property
    def all_text(self) -> str:
        return "".join(self.text)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._svg: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "svg":
            self._svg = len(self.page.svgs)
            node = Tag(tag, values, self._svg)
            self.page.svgs.append(node)
        else:
            node = Tag(tag, values, self._svg)
        self.page.tags.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._svg = None

    def handle_data(self, data: str) -> None:
        self.page.text.append(data)


def parse(html: str) -> Page:
    parser = _Parser()
    parser.feed(html)
    parser.close()
    return parser.page
