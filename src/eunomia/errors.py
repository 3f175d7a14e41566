"""Errors and diagnostics that name the file, the key path and what is wrong.

Every problem found in user input becomes a :class:`Diagnostic`. Loaders collect
them instead of stopping at the first one, so ``eunomia validate`` can list every
problem at once. :class:`EunomiaError` carries diagnostics up to the CLI, which
prints them without a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

if TYPE_CHECKING:
    from rich.console import Console


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem in one file: where it is and what is wrong."""

    severity: Severity
    file: Path | None
    message: str
    key: str = ""
    line: int | None = None
    column: int | None = None

    def location(self) -> str:
        where = str(self.file) if self.file is not None else "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return where

    def __str__(self) -> str:
        key = f" [{self.key}]" if self.key else ""
        return f"{self.severity.value}: {self.location()}{key}: {self.message}"


def error(file: Path | None, message: str, key: str = "", line: int | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, file, message, key, line)


def warning(file: Path | None, message: str, key: str = "", line: int | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, file, message, key, line)


def print_diagnostics(out: Console, diagnostics: Iterable[Diagnostic]) -> None:
    """Every problem with its file, key path and line, one a line: errors red, warnings
    yellow."""
    for d in diagnostics:
        colour = "red" if d.severity is Severity.ERROR else "yellow"
        out.print(f"[{colour}]{escape(str(d))}[/]", soft_wrap=True)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


class EunomiaError(Exception):
    """A user-facing failure. The CLI prints it (never a traceback) and exits non-zero."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)

    def __str__(self) -> str:
        lines = [self.message, *(f"  {d}" for d in self.diagnostics)]
        return "\n".join(lines)


def key_path(loc: Sequence[int | str]) -> str:
    """Render a pydantic error location as ``criteria[2].instructions[0].credits``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = str(part) or '""'  # an empty key must still show where the problem is
            out += f".{part}" if out else part
    return out


def join_key(prefix: str, loc: Sequence[int | str]) -> str:
    rest = key_path(loc)
    if not prefix:
        return rest
    if not rest:
        return prefix
    return f"{prefix}{rest}" if rest.startswith("[") else f"{prefix}.{rest}"


_SECRETISH = re.compile(
    r"(?i)(authorization|api[-_]?key|secret|token)(['\"]?\s*[:=]\s*['\"]?)"
    r"(?:(?:bearer|basic|token)\s+)?[^\s'\",}]+"
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove secrets (given values, and anything that looks like ``key: value``) from text."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return _SECRETISH.sub(lambda m: f"{m.group(1)}{m.group(2)}***", text)
