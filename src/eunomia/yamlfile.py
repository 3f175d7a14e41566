"""Safe YAML loading that remembers on which line every key path starts.

Used by every file format (manifests, price files, task suites, configs) so
errors can name the file, the key path and the line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from eunomia.errors import Diagnostic, EunomiaError, Severity, error, join_key, key_path

M = TypeVar("M", bound=BaseModel)


def _short_input(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def from_validation_error(
    file: Path | None, exc: ValidationError, prefix: str = ""
) -> list[Diagnostic]:
    """Turn every pydantic error into a diagnostic naming the key path."""
    out: list[Diagnostic] = []
    for err in exc.errors(include_url=False):
        msg = err["msg"]
        if err["type"] == "value_error":  # our own validators say what they got
            msg = msg.removeprefix("Value error, ")
        elif err["type"] not in ("missing", "extra_forbidden"):
            msg += f" (got {_short_input(err.get('input'))})"
        out.append(error(file, msg, join_key(prefix, err["loc"])))
    return out


def _tab_at(exc: yaml.MarkedYAMLError, text: str | None) -> bool:
    """Whether the error is at a tab. The C loader does not name the character, so the
    offending line of the source text is inspected when it is given."""
    if "\\t" in str(exc) or "\t" in str(exc):
        return True
    mark = exc.problem_mark
    if mark is None or text is None:
        return False
    lines = text.splitlines()
    if not 0 <= mark.line < len(lines):
        return False
    return "\t" in lines[mark.line][: mark.column + 1]


def from_yaml_error(file: Path, exc: yaml.YAMLError, text: str | None = None) -> Diagnostic:
    """A malformed YAML file: the file, the line and the cause, in one line."""
    line: int | None = None
    column: int | None = None
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            line, column = mark.line + 1, mark.column + 1
        parts = [p for p in (exc.context, exc.problem) if p]
        cause = "; ".join(parts) or "malformed YAML"
        if _tab_at(exc, text):
            cause += " (YAML does not allow tab characters for indentation)"
    else:
        cause = str(exc).splitlines()[0] if str(exc) else "malformed YAML"
        # yaml.reader.ReaderError (a forbidden character) has no mark; its position counts
        # bytes in libyaml and characters in PyYAML, so the character itself is looked up.
        character = getattr(exc, "character", None)
        position = text.find(chr(character)) if isinstance(character, int) and text else -1
        if text is not None and position >= 0:
            line = text.count("\n", 0, position) + 1
            column = position - (text.rfind("\n", 0, position) + 1) + 1
    return Diagnostic(Severity.ERROR, file, f"invalid YAML: {cause}", "", line, column)


_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Path_ = tuple[int | str, ...]


@dataclass(slots=True)
class YamlDocument:
    path: Path
    data: Any
    lines: dict[Path_, int] = field(default_factory=dict)

    def line_of(self, loc: Sequence[int | str]) -> int | None:
        """Line of the deepest known prefix of ``loc`` (1-based). A mapping key YAML read as a
        number (``10:``) is found by its text too (the lines know keys by their text)."""
        parts = tuple(loc)
        while parts:
            if parts in self.lines:
                return self.lines[parts]
            numbers = [i for i, p in enumerate(parts) if isinstance(p, int | float)]
            for i in reversed(numbers):  # a number that is a key, not a list index
                as_text = (*parts[:i], str(parts[i]), *parts[i + 1:])
                if as_text in self.lines:
                    return self.lines[as_text]
            parts = parts[:-1]
        return self.lines.get((), None)


class YamlFileError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def _walk(node: yaml.Node, here: Path_, out: dict[Path_, int]) -> None:
    out[here] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key: int | str = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
            out[(*here, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*here, key), out)
            out[(*here, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*here, index), out)


def parse_yaml(text: str, path: Path) -> YamlDocument:
    """Parse YAML text safely; raises :class:`YamlFileError` with file and line on bad YAML."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument(path, None)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise YamlFileError(from_yaml_error(path, exc, text)) from None
    finally:
        loader.dispose()
    lines: dict[Path_, int] = {}
    _walk(node, (), lines)
    return YamlDocument(path, data, lines)


def read_yaml(path: Path) -> YamlDocument:
    """Read and parse a YAML file; raises :class:`YamlFileError` on unreadable or bad YAML."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise YamlFileError(error(path, reason)) from None
    except OSError as exc:
        raise YamlFileError(error(path, f"cannot read file: {exc.strerror or exc}")) from None
    return parse_yaml(text, path)


def read_named_yaml(path: Path, what: str) -> YamlDocument:
    """:func:`read_yaml` for a file the user named (``what``: e.g. "matrix file"): a missing,
    unreadable or invalid file raises :class:`EunomiaError` naming it."""
    if not path.is_file():
        raise EunomiaError(f"{what} not found: {path}")
    try:
        return read_yaml(path)
    except YamlFileError as exc:
        raise EunomiaError(f"invalid {what} {path}", [exc.diagnostic]) from None


def validation_diagnostics(doc: YamlDocument, exc: ValidationError) -> list[Diagnostic]:
    """Pydantic errors as diagnostics with key path and line number."""
    out: list[Diagnostic] = []
    for diag, err in zip(
        from_validation_error(doc.path, exc), exc.errors(include_url=False), strict=True
    ):
        line = doc.line_of(err["loc"])
        out.append(Diagnostic(diag.severity, diag.file, diag.message, diag.key, line))
    return out


def validate_document(
    doc: YamlDocument, model: type[M]
) -> tuple[M | None, list[Diagnostic]]:
    try:
        return model.model_validate(doc.data), []
    except ValidationError as exc:
        return None, validation_diagnostics(doc, exc)


def diag_at(
    doc: YamlDocument, loc: Sequence[int | str], message: str, severity: Severity = Severity.ERROR
) -> Diagnostic:
    """A diagnostic for a key path of this document, with its line."""
    return Diagnostic(severity, doc.path, message, key_path(loc), doc.line_of(loc))
