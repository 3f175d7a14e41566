"""PyYAML's own writing, the reference the task exports' YAML is held to
(:mod:`eunomia.exports._yaml` writes the same text by libyaml): its pure-Python dumper with
the exports' options, and its double-quoted style computed an escape and a line at a time
(the strings libyaml would write otherwise are written by :func:`double_quoted`)."""

from __future__ import annotations

import io
import re
from itertools import chain
from typing import Any, Final

import yaml
from yaml.emitter import Emitter

STR_TAG: Final = "tag:yaml.org,2002:str"
WIDTH: Final = 100
INDENT: Final = 2
DUMP_OPTIONS: Final[dict[str, Any]] = {"sort_keys": False, "allow_unicode": True,
                                       "width": WIDTH}
END_MARKER: Final = "...\n"
"""Ends a document whose last scalar is an open-ended ``|+`` block."""


# --- the reference: PyYAML's pure-Python dumper ------------------------------------------
class Dumper(yaml.SafeDumper):
    """PyYAML's ``SafeDumper`` with block style (``|``) for multi-line text, so prompts and
    answers stay readable."""


def _represent_str(dumper: yaml.representer.SafeRepresenter, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(STR_TAG, value, style="|" if "\n" in value else None)


Dumper.add_representer(str, _represent_str)


def dump_yaml(data: Any) -> str:
    """``data`` as a whole YAML document, by PyYAML's pure-Python dumper."""
    text: str = yaml.dump(data, Dumper=Dumper, **DUMP_OPTIONS)
    return text


def slow_case_yaml(case: Any) -> tuple[str, bool]:
    """``case_yaml`` (:mod:`eunomia.exports._yaml`) by PyYAML's own dumper, the reference:
    ``dump_yaml([case])`` without the end marker an open-ended last item makes it add."""
    stream = io.StringIO()
    dumper = Dumper(stream, default_flow_style=False, **DUMP_OPTIONS)
    try:
        dumper.open()
        dumper.represent([case])
        open_ended = bool(dumper.open_ended)
        dumper.close()
    finally:
        dumper.dispose()
    text = stream.getvalue()
    if open_ended:
        assert text.endswith("\n" + END_MARKER), text[-20:]
        text = text[:-len(END_MARKER)]
    return text, open_ended


# --- PyYAML's double-quoted style ---------------------------------------------------------
_ESCAPED = re.compile(
    "[\\x00-\\x1f\\x22\\x5c\\x7f-\\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe-\U0010ffff]")
"""What PyYAML escapes in a double-quoted string (with ``allow_unicode``): ``"``, ``\\``,
U+0085, U+2028, U+2029, U+FEFF and every character it does not count printable; that is,
every character outside ``\\x20\\x21\\x23-\\x5b\\x5d-\\x7e\\xa0-\\u2027\\u202a-\\ud7ff``
``\\ue000-\\ufefe\\uff00-\\ufffd``, written as the characters it matches because that
compiles in 0.5 ms instead of 5 (tests/tasks/test_yaml_emit.py checks every code point)."""
_REPLACEMENTS: dict[str, str] = Emitter.ESCAPE_REPLACEMENTS


def _escape(char: str) -> str:
    found = _REPLACEMENTS.get(char)
    if found is not None:
        return "\\" + found
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02X}"
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    return f"\\U{code:08X}"


def double_quoted(text: str, column: int, indent: int, width: int = WIDTH) -> str:
    """``text`` double-quoted as PyYAML's ``Emitter.write_double_quoted`` writes it (with
    ``allow_unicode``, split at the line width) when its opening quote is at ``column`` and
    its continuation lines are indented by ``indent``: the same text, computed an escape
    and a line at a time rather than a character at a time.

    PyYAML breaks the line (a ``\\`` at its end; a ``\\`` before a space that begins the
    next) at a space, or right after an escape sequence, once the text since the last
    break would pass ``width``; never at the first or the last character."""
    out = ['"']
    col = column + 1  # the column of text[start]
    start = 0  # the first character not yet written
    last = len(text) - 1
    fold = "\n" + " " * indent
    pos = 0  # the first character of the run of unescaped characters
    for match in chain(_ESCAPED.finditer(text), (None,)):
        stop = match.start() if match is not None else len(text)
        if pos < stop:  # the run text[pos:stop]
            checked = pos
            if start == pos and 0 < pos < last and col > width:  # right after an escape
                out += ("\\", fold)
                col = indent
                if text[pos] == " ":
                    out.append("\\")
                    col += 1
                checked = pos + 1
            while True:  # the spaces where the line has passed the width
                space = text.find(" ", max(checked, start + width - col + 1, 1), min(stop, last))
                if space < 0:
                    break
                out += (text[start:space], "\\", fold, "\\")
                start, col, checked = space, indent + 1, space + 1
        if match is None:
            break
        out.append(text[start:stop])
        col += stop - start
        escape = _escape(text[stop])
        out.append(escape)
        col += len(escape)
        start = pos = stop + 1
        if 0 < stop < last and col - 1 > width:
            out += ("\\", fold)
            col = indent
            if text[start] == " ":
                out.append("\\")
                col += 1
    out += (text[start:], '"')
    return "".join(out)
