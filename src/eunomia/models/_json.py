"""Tolerant extraction of a JSON answer from a model's text.

Models wrap JSON in code fences, put prose before or after it, leave trailing
commas, or stop mid-object when they run out of tokens. :func:`extract_json`
recovers the first JSON value it can; :func:`check_required` validates the
result against the schema's ``required`` keys (recursively, for objects and
arrays of objects) without a full JSON-Schema validator.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|jsonc)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)


_NOTHING: Any = object()
_MAX_CUTS = 64


class JSONExtractionError(ValueError):
    """No JSON value could be recovered from the text."""


_PIECES = re.compile(r'"(?:[^"\\]|\\.)*(")?|[][{},]', re.DOTALL)
"""What the scanners below read of a JSON text: a whole string (group 1 None: left open at
the end), or a bracket or comma outside every string."""
_CLOSES_NEXT = re.compile(r"[ \t\r\n]*[}\]]")
_CLOSING = {"{": "}", "[": "]"}


def _strip_trailing_commas(text: str) -> str:
    """Remove commas before ``}`` or ``]`` outside of strings."""
    out: list[str] = []
    kept = 0
    for m in _PIECES.finditer(text):
        if m.group() == "," and _CLOSES_NEXT.match(text, m.end()):
            out.append(text[kept:m.start()])
            kept = m.end()
    out.append(text[kept:])
    return "".join(out)


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the value opened at ``text[start]`` (``{`` or ``[``), or None."""
    stack: list[str] = []
    for m in _PIECES.finditer(text, start):
        piece = m.group()
        if piece in _CLOSING:
            stack.append(_CLOSING[piece])
        elif piece in ("}", "]"):
            if not stack or stack[-1] != piece:
                return None
            stack.pop()
            if not stack:
                return m.end()
    return None


def _close_truncated(text: str) -> str:
    """Close the strings, arrays and objects left open by a truncated answer."""
    stack: list[str] = []
    open_string = False
    for m in _PIECES.finditer(text):
        piece = m.group()
        if piece[0] == '"':
            open_string = m.group(1) is None
        elif piece in _CLOSING:
            stack.append(_CLOSING[piece])
        elif piece in ("}", "]") and stack:
            stack.pop()
    body = (text + ('"' if open_string else "")).rstrip()
    while body and body[-1] in ",:":
        body = body[:-1].rstrip()
    return body + "".join(reversed(stack))


def _recover_truncated(text: str) -> Any:
    """Parse a value cut off mid-way, dropping its last incomplete member if needed."""
    try:
        return _loads(_close_truncated(text))
    except json.JSONDecodeError:
        pass
    cut = len(text)
    for _ in range(_MAX_CUTS):
        cut = max(text.rfind(",", 0, cut), -1)
        if cut <= 0:
            break
        try:
            return _loads(_close_truncated(text[:cut]))
        except json.JSONDecodeError:
            continue
    return _NOTHING


def _loads(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        return json.loads(_strip_trailing_commas(candidate))


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text``.

    Tries, in order: the whole text, each fenced code block, each balanced
    ``{...}``/``[...]`` span (skipping leading prose), and finally the last
    unterminated value with its open brackets closed. Trailing commas are
    tolerated everywhere. Raises :class:`JSONExtractionError` when nothing parses.
    """
    stripped = text.strip()
    if not stripped:
        raise JSONExtractionError("the model's answer is empty")
    candidates: list[str] = [stripped]
    candidates.extend(m.group(1).strip() for m in _FENCE.finditer(text))
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return _loads(candidate)
        except json.JSONDecodeError:
            pass
    for candidate in candidates:
        value = _scan(candidate)
        if value is not _NOTHING:
            return value
    preview = stripped if len(stripped) <= 80 else stripped[:77] + "..."
    raise JSONExtractionError(f"no JSON value found in the model's answer: {preview!r}")


def _scan(text: str) -> Any:
    first_open: int | None = None
    for start, ch in enumerate(text):
        if ch not in "{[":
            continue
        if first_open is None:
            first_open = start
        end = _balanced_end(text, start)
        if end is None:
            continue
        try:
            return _loads(text[start:end])
        except json.JSONDecodeError:
            continue
    if first_open is not None:
        return _recover_truncated(text[first_open:])
    return _NOTHING


def check_required(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Problems with ``value`` against the schema's types and ``required`` keys.

    Checks only what matters for reading an answer: that objects are objects and
    carry their required keys, that arrays are arrays, and recursively the same
    for ``properties`` and ``items``. Returns human-readable problems (empty when
    the value is usable).
    """
    problems: list[str] = []
    kind = schema.get("type")
    if kind == "object" or (kind is None and "properties" in schema):
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        for key in schema.get("required", ()):
            if key not in value:
                problems.append(f"{path}: missing required key {key!r}")
        props = schema.get("properties", {})
        if isinstance(props, dict):
            for key, sub in props.items():
                if key in value and isinstance(sub, dict):
                    problems.extend(check_required(value[key], sub, f"{path}.{key}"))
    elif kind == "array":
        if not isinstance(value, list):
            return [f"{path}: expected an array, got {type(value).__name__}"]
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                problems.extend(check_required(item, items, f"{path}[{i}]"))
    elif kind == "string" and not isinstance(value, str):
        problems.append(f"{path}: expected a string, got {type(value).__name__}")
    elif kind in ("integer", "number") and (
        isinstance(value, bool) or not isinstance(value, int | float)
    ):
        problems.append(f"{path}: expected a number, got {type(value).__name__}")
    elif kind == "boolean" and not isinstance(value, bool):
        problems.append(f"{path}: expected a boolean, got {type(value).__name__}")
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum and not problems:
        problems.append(f"{path}: {value!r} is not one of {enum!r}")
    return problems


def parse_json_answer(text: str, schema: dict[str, Any] | None = None) -> Any:
    """Extract the JSON value from ``text`` and check it against ``schema``.

    Raises :class:`JSONExtractionError` naming every problem.
    """
    value = extract_json(text)
    if schema is not None:
        problems = check_required(value, schema)
        if problems:
            raise JSONExtractionError(
                "the model's JSON answer does not match the schema: " + "; ".join(problems)
            )
    return value


__all__ = ["JSONExtractionError", "check_required", "extract_json", "parse_json_answer"]
