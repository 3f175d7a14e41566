"""Prompt templates: text files with ``{placeholder}`` fields (:meth:`str.format` syntax, a
fixed set of field names per use; ``{{`` and ``}}`` for literal braces). Used by the feedback
engine's prompts and the judge's rubric, each with its own fields."""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from eunomia.errors import EunomiaError


def placeholders(text: str, path: Path, fields: Mapping[str, str], what: str) -> set[str]:
    """The field names ``text`` uses; :class:`EunomiaError` naming ``what`` and ``path`` on
    unbalanced braces, an unknown field or a format spec."""
    names: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise EunomiaError(
            f"{what} {path}: {exc} (write {{{{ and }}}} for literal braces)") from None
    for _literal, name, spec, _conversion in parsed:
        if name is None:
            continue
        if name not in fields:
            shown = name or "(empty)"
            raise EunomiaError(
                f"{what} {path}: unknown placeholder {{{shown}}}; known placeholders: "
                f"{', '.join(sorted(fields))} (write {{{{ and }}}} for literal braces)")
        if spec:
            raise EunomiaError(
                f"{what} {path}: placeholder {{{name}}} has a format spec {spec!r}; "
                "only plain {name} placeholders are supported")
        names.add(name)
    return names


@dataclass(frozen=True, slots=True)
class Template:
    """One checked template: its text and the fields it uses."""

    path: Path
    text: str
    fields: frozenset[str]

    @classmethod
    def parse(cls, text: str, path: Path, fields: Mapping[str, str], what: str) -> Template:
        return cls(path, text, frozenset(placeholders(text, path, fields, what)))

    @classmethod
    def read(cls, path: Path, fields: Mapping[str, str], what: str) -> Template:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise EunomiaError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
        return cls.parse(text, path, fields, what)

    def render(self, values: Mapping[str, str]) -> str:
        return self.text.format_map({name: values[name] for name in self.fields})
