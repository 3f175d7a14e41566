"""Request templates and answer paths of an HTTP system under test (``http:<name>``).

Templates are jinja2 in an immutable sandbox with ``StrictUndefined``: a name or key that
does not exist is an error, never an empty string, and a template cannot reach Python
internals or change the data it is given. A body is a template string (sent as rendered)
or a YAML mapping/list whose strings are templates; in a mapping, a string that is one
``{{ expression }}`` and nothing else keeps the expression's value (a list stays a list),
so no ``tojson`` is needed. Answer paths are JSONPath (RFC 9535, python-jsonpath).

jinja2 and python-jsonpath are imported when a template or path is first compiled, so a
command that meets no ``http`` entry does not pay for them at start-up.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    import jsonpath
    from jinja2.sandbox import ImmutableSandboxedEnvironment

TASK_FIELDS: tuple[str, ...] = (
    "instruction", "system_prompt", "messages", "history", "settings", "stream",
    "json_schema", "name",
)
"""What a body template gets for a task case (from the chat request)."""
SCENARIO_FIELDS: tuple[str, ...] = ("exercise", "submission", "request", "name")
"""What a body template gets for a scenario test case (the Athena request and its parts)."""
ALL_FIELDS = frozenset(TASK_FIELDS) | frozenset(SCENARIO_FIELDS)

_WHOLE = re.compile(r"^\s*\{\{(?P<expr>(?:(?!\{\{|\}\}).)*)\}\}\s*$", re.DOTALL)

Body = str | dict[str, Any] | list[Any] | None


class RenderError(ValueError):
    """A template could not be rendered for a case (an unknown key, a type error...)."""


@lru_cache(maxsize=1)
def _env() -> ImmutableSandboxedEnvironment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False,
                                         keep_trailing_newline=True)


# --- JSON paths -------------------------------------------------------------------------

@lru_cache(maxsize=256)
def compile_path(path: str) -> jsonpath.JSONPath | jsonpath.CompoundJSONPath:
    """The compiled JSONPath; ValueError saying where its syntax is wrong."""
    import jsonpath

    try:
        return jsonpath.compile(path)
    except jsonpath.JSONPathError as exc:
        message = str(exc.args[0]) if exc.args else "invalid syntax"
        token = getattr(exc, "token", None)
        index = getattr(token, "index", -1)
        at = f" at character {index + 1}" if isinstance(index, int) and index >= 0 else ""
        raise ValueError(f"invalid JSON path {path!r}: {message}{at}") from None


def check_json_path(path: str) -> str:
    """Pydantic validator: ``path`` when it compiles."""
    if not path.strip():
        raise ValueError("a JSON path cannot be empty (e.g. $.answer)")
    compile_path(path)
    return path


def find_all(path: str, data: Any) -> list[Any]:
    """Every value ``path`` finds in ``data`` (an empty list when it finds none)."""
    import jsonpath

    try:
        return list(compile_path(path).findall(data))
    except jsonpath.JSONPathError:  # e.g. a filter comparing types it cannot
        return []


# --- templates -------------------------------------------------------------------------

def _template_strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """(key path, template text) of every string of a body (mapping keys are not templates)."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _template_strings(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _template_strings(item, f"{where}[{i}]")


def template_names(text: str) -> set[str]:
    """The top-level names a template (or a whole-value expression) uses; ValueError with the
    template line on a syntax error."""
    from jinja2 import TemplateSyntaxError, meta

    whole = _WHOLE.match(text)
    source = text if whole is None else "{{" + whole.group("expr") + "}}"
    try:
        return set(meta.find_undeclared_variables(_env().parse(source)))
    except TemplateSyntaxError as exc:
        raise ValueError(f"template syntax error on line {exc.lineno} of the template: "
                         f"{exc.message}") from None


def check_template(value: Any, allowed: frozenset[str] = ALL_FIELDS) -> Any:
    """Pydantic validator: every template string of ``value`` compiles and uses only
    ``allowed`` names."""
    for where, text in _template_strings(value):
        try:
            names = template_names(text)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}" if where else str(exc)) from None
        unknown = sorted(names - allowed)
        if unknown:
            inside = f" (in {where})" if where else ""
            raise ValueError(f"unknown name {', '.join(map(repr, unknown))} in the "
                             f"template{inside}; known: {', '.join(sorted(allowed))}")
        _compile(text)  # also what parse() does not see (e.g. unknown filters)
    return value


def names_used(*values: Any) -> set[str]:
    """The names every template string of ``values`` uses (all compiled already)."""
    return {n for v in values for _, text in _template_strings(v) for n in template_names(text)}


@lru_cache(maxsize=256)
def _compile(text: str) -> Any:
    """A compiled whole-value expression or template; ValueError on a syntax error."""
    from jinja2 import TemplateError, TemplateSyntaxError

    try:
        whole = _WHOLE.match(text)
        if whole is not None:
            return ("expr", _env().compile_expression(whole.group("expr"),
                                                      undefined_to_none=False))
        return ("text", _env().from_string(text))
    except TemplateSyntaxError as exc:
        raise ValueError(f"template syntax error on line {exc.lineno} of the template: "
                         f"{exc.message}") from None
    except TemplateError as exc:  # an unknown filter or test
        raise ValueError(f"template error: {exc.message}") from None


def _render_value(value: Any, context: Mapping[str, Any], native: bool, where: str) -> Any:
    from jinja2 import TemplateError, Undefined

    if isinstance(value, str):
        kind, compiled = _compile(value)
        try:
            if kind == "text":
                return compiled.render(**context)
            out = compiled(**context)
            if isinstance(out, Undefined):
                out._fail_with_undefined_error()  # StrictUndefined: names what is missing
            return out if native else ("" if out is None else str(out))
        except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError) as exc:
            inside = f" (in {where})" if where else ""
            raise RenderError(f"the template{inside} cannot be rendered: "
                              f"{type(exc).__name__}: {exc}") from None
    if isinstance(value, Mapping):
        return {k: _render_value(v, context, native, f"{where}.{k}" if where else str(k))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_render_value(v, context, native, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def render_text(text: str, context: Mapping[str, Any]) -> str:
    """A template string rendered to text."""
    return str(_render_value(text, context, False, ""))


def render_body(body: Body, context: Mapping[str, Any], *, json_body: bool) -> bytes | None:
    """The request body: a mapping/list rendered and encoded as JSON, a string rendered as
    is (and checked to be JSON when ``json_body``). RenderError when it cannot be."""
    if body is None:
        return None
    if isinstance(body, str):
        value = _render_value(body, context, True, "")
        if not isinstance(value, str):  # "{{ request }}" alone: the value, as JSON
            return _dumps(value)
        text = value
        if json_body:
            try:
                orjson.loads(text)
            except orjson.JSONDecodeError as exc:
                raise RenderError(
                    f"the rendered body is not JSON ({exc}); write values with "
                    "'| tojson' or give the body as a YAML mapping") from None
        return text.encode()
    return _dumps(_render_value(body, context, True, ""))


def _dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError as exc:
        raise RenderError(f"the rendered body cannot be written as JSON: {exc}") from None


def number_at(value: Any) -> float | None:
    """A finite JSON number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None
