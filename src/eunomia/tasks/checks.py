"""Deterministic checks beside the judge: a registry of small classes, and checks of your own.

A check in a suite is a mapping of one key, the check's name, to its setting::

    checks:
    - contains: "30 days"            # or a list: every item must appear
    - not_contains: [best, luxury]
    - regex: '\\b(no|won''t)\\b'
    - max_words: 80
    - min_words: 10
    - json: true                     # the answer is valid JSON (false: it is not)
    - python: mypkg.checks:no_pii    # a function or Check class of your own

Each name is one class here (:data:`CHECKS`, filled by :func:`register`): a pydantic model
of that one field with one method, :meth:`Check.check`. A new built-in check is one more
such class. The ``checks`` of a case are read through :data:`AnyCheck`, which picks the class
by the mapping's key, so a wrong setting is reported at its key (``checks[0].regex``).

``python: module:name`` names a check of your own (:class:`PythonCheck`, docs/checks.md):
resolved when the suite is loaded, and given the same :class:`Answer` as the built-ins.
Each check is reported on its own (never folded into the judge's score); a check scores an
answer and never changes it, so no check is part of a call's cache key.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import json
import os
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    TypeAdapter,
    ValidationInfo,
    field_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from eunomia import defaults
from eunomia.bounds import Words
from eunomia.models import JSONExtractionError, extract_json
from eunomia.tasks._result import CheckResult

_WORD = re.compile(r"\b[\w'’-]+\b", re.UNICODE)


def count_words(text: str) -> int:
    """Words in ``text`` (runs of letters, digits, apostrophes and hyphens)."""
    return len(_WORD.findall(text))


@functools.lru_cache(maxsize=defaults.CHECK_PATTERNS_CACHED)
def check_pattern(regex: str) -> re.Pattern[str]:
    """A ``regex`` check's pattern as it is matched (ignoring case, ``^``/``$`` per line),
    compiled once for the loading pass, the run and the export (a suite's cases are read in
    several passes; the ``re`` module's own cache holds 512 patterns)."""
    return re.compile(regex, re.IGNORECASE | re.MULTILINE)


class Answer:
    """What a check looks at: the answer's text and the case it answers."""

    __slots__ = ("_case", "_raw_json", "text")

    def __init__(self, text: str, raw_json: str = "{}") -> None:
        self.text = text
        """The answer (for a check of a conversation's turn: that turn's reply)."""
        self._raw_json = raw_json
        self._case: Mapping[str, Any] | None = None

    @property
    def case(self) -> Mapping[str, Any]:
        """The case as written in its suite: its fields in file order, unknown ones included
        (so a check of your own can read settings you add to a case)."""
        if self._case is None:
            self._case = json.loads(self._raw_json)
        return self._case

    def __repr__(self) -> str:
        return f"Answer({self.text!r})"


class Check(BaseModel, ABC):
    """One deterministic check: a model of one field (its key in the suite) and one method.

    ``Check.model_validate({"regex": "\\\\d+"})`` gives the registered class of that key."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    key: ClassVar[str] = ""
    """The check's name in a suite (set by :func:`register`)."""
    field: ClassVar[str] = ""
    """The name of its one field (set by :func:`register`)."""

    @abstractmethod
    def check(self, answer: Answer) -> CheckResult:
        """The check of ``answer``."""

    @property
    def name(self) -> str:
        return self.key or type(self).__name__

    @functools.cached_property
    def label(self) -> str:
        """The name of its results (``regex '\\d+'``): its key and setting."""
        if self.key and self.field:
            return f"{self.key} {getattr(self, self.field)!r}"
        return self.name

    def result(self, passed: bool, detail: str = "") -> CheckResult:
        return CheckResult(name=self.label, passed=passed, detail=detail)

    @classmethod
    def model_validate(cls, obj: Any, *, strict: bool | None = None,
                       from_attributes: bool | None = None,
                       context: Any | None = None, **rest: Any) -> Any:
        """As pydantic's; on :class:`Check` itself, the registered class of ``obj``'s key."""
        if cls is Check:
            return _ANY.validate_python(obj, strict=strict, context=context)
        return super().model_validate(obj, strict=strict, from_attributes=from_attributes,
                                      context=context, **rest)


CheckSpec = Check
"""The former name of :class:`Check`."""

CHECKS: dict[str, type[Check]] = {}
"""The built-in checks by their key, in the order the suite format documents them."""

C = TypeVar("C", bound=type[Check])


def register(cls: C) -> C:
    """Make ``cls`` (a :class:`Check` of exactly one field) the check of that field's key."""
    checked: type[Check] = cls
    fields = checked.model_fields
    if len(fields) != 1:
        raise TypeError(f"a check has exactly one field (its key), {cls.__name__} has "
                        f"{len(fields)}")
    (name, info), = fields.items()
    checked.key, checked.field = info.alias or name, name
    CHECKS[checked.key] = checked
    return cls


def _names() -> str:
    return ", ".join(CHECKS)


def _validate(value: Any, context: Any = None) -> Check:
    """The check ``value`` describes: the registered class of its one key."""
    if isinstance(value, Check):
        return value
    if not isinstance(value, dict) or len(value) != 1:
        given = ", ".join(map(str, value)) if isinstance(value, dict) else type(value).__name__
        raise ValueError(f"a check needs exactly one of {_names()} (got {given or 'none'})")
    key = next(iter(value))
    cls = CHECKS.get(key)
    if cls is None:
        raise ValueError(f"unknown check {key!r}: a check needs exactly one of {_names()}")
    found: Check = cls.model_validate(value, context=context)
    return found


class _Registered:
    """Validation of a :data:`AnyCheck` through :data:`CHECKS` (errors at their key)."""

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.with_info_plain_validator_function(
            lambda value, info: _validate(value, info.context))

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"oneOf": [handler(cls.__pydantic_core_schema__) for cls in CHECKS.values()]}


AnyCheck = Annotated[Check, _Registered()]
"""A check as a suite gives it (the type of a case's ``checks``)."""
_ANY: TypeAdapter[Check] = TypeAdapter(AnyCheck)


# --- the built-in checks -------------------------------------------------------------------------
class _Phrases(Check):
    """A check of phrases that must all appear (:attr:`wanted`) or none (ignoring case)."""

    wanted: ClassVar[bool]
    """Whether the phrases must appear (``contains``) or must not (``not_contains``)."""

    @property
    def phrases(self) -> list[str]:
        value: str | list[str] = getattr(self, self.field)
        return [value] if isinstance(value, str) else list(value)

    @functools.cached_property
    def label(self) -> str:
        return f"{self.key} {self.phrases!r}"

    def check(self, answer: Answer) -> CheckResult:
        folded = answer.text.casefold()
        wrong = [s for s in self.phrases if (s.casefold() in folded) != self.wanted]
        detail = f"{'missing' if self.wanted else 'found'}: {', '.join(map(repr, wrong))}"
        return self.result(not wrong, detail if wrong else "")


@register
class Contains(_Phrases):
    """``contains: "30 days"`` (or a list: every item must appear); ignoring case."""

    wanted = True
    contains: str | list[str]


@register
class NotContains(_Phrases):
    """``not_contains: [best, luxury]``: none of the items may appear; ignoring case."""

    wanted = False
    not_contains: str | list[str]


@register
class Regex(Check):
    """``regex: '\\\\d+'``: the pattern matches somewhere in the answer (ignoring case,
    ``^``/``$`` at each line)."""

    regex: str

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            check_pattern(value)
        except re.error as exc:
            raise ValueError(f"invalid regex {value!r}: {exc}") from None
        return value

    def check(self, answer: Answer) -> CheckResult:
        ok = check_pattern(self.regex).search(answer.text) is not None
        return self.result(ok, "" if ok else "no match")


class _WordCount(Check):
    """A bound on the answer's words (:func:`count_words`): at most or at least."""

    at_most: ClassVar[bool]

    def check(self, answer: Answer) -> CheckResult:
        words = count_words(answer.text)
        bound: int = getattr(self, self.field)
        return self.result(words <= bound if self.at_most else words >= bound,
                           f"{words} words")


@register
class MaxWords(_WordCount):
    """``max_words: 80``: the answer has at most this many words."""

    at_most = True
    max_words: Words


@register
class MinWords(_WordCount):
    """``min_words: 10``: the answer has at least this many words."""

    at_most = False
    min_words: Words


@register
class Json(Check):
    """``json: true``: the answer as a whole is valid JSON (``false``: it is not)."""

    json_valid: bool = Field(alias="json")

    @functools.cached_property
    def label(self) -> str:
        return "json" if self.json_valid else "json: false"

    def check(self, answer: Answer) -> CheckResult:
        try:
            json.loads(answer.text)
            valid, detail = True, ""
        except json.JSONDecodeError as exc:
            valid = False
            try:  # say whether a JSON value is inside (e.g. in a code fence)
                extract_json(answer.text)
                detail = f"not JSON as a whole ({exc.msg}); a JSON value is embedded"
            except JSONExtractionError:
                detail = f"not JSON ({exc.msg})"
        return self.result(valid == self.json_valid, detail)


# --- checks of your own --------------------------------------------------------------------------
RESOLVE = "eunomia.checks.resolve"
"""Validation context key: resolve ``python`` checks now (the suite's loading pass), so a
reference that cannot be used is reported with its file, line and key. Elsewhere (a run's
stored snapshot, a report) a reference is resolved when the check first runs."""

UserCheck = Callable[[Answer], Any]
_resolved: dict[str, UserCheck] = {}


@contextlib.contextmanager
def _working_folder_importable() -> Iterator[None]:
    """The working folder on ``sys.path`` while importing (as ``python -m`` has it), so a
    module beside where ``eunomia`` is run is found without installing it."""
    here = os.getcwd()
    added = here not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        yield
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(here)


def _split(reference: str) -> tuple[str, str]:
    module, sep, name = reference.strip().partition(":")
    if not sep:
        module, _, name = module.rpartition(".")
    if not module or not name or not all(p.isidentifier() for p in
                                         (*module.split("."), *name.split("."))):
        raise ValueError(f"{reference!r} is not a Python name: write module:name, "
                         "e.g. mypkg.checks:no_pii")
    return module, name


def resolve_check(reference: str) -> UserCheck:
    """The function a ``python`` check names (``module:name``, or ``module.name``), checked
    for its shape; ValueError saying what is wrong. A :class:`Check` subclass is made with
    no settings and its :meth:`Check.check` used."""
    found = _resolved.get(reference)
    if found is not None:
        return found
    module_name, name = _split(reference)
    try:
        with _working_folder_importable():
            target: Any = importlib.import_module(module_name)
    except Exception as exc:  # the user's module failed to import: say how
        raise ValueError(f"cannot import {module_name!r}: {type(exc).__name__}: {exc} "
                         "(the module must be installed, on PYTHONPATH or in the folder "
                         "eunomia is run from)") from None
    for part in name.split("."):
        if not hasattr(target, part):
            raise ValueError(f"{module_name!r} has no {name!r}")
        target = getattr(target, part)
    found = _callable_of(reference, target)
    _resolved[reference] = found
    return found


def _callable_of(reference: str, target: Any) -> UserCheck:
    if isinstance(target, type):
        if not issubclass(target, Check):
            raise ValueError(f"{reference} is a class but not a eunomia.tasks.Check: give a "
                             "function (answer) -> bool, or a subclass of Check")
        try:
            made: Check = target()
        except Exception as exc:  # pydantic's ValidationError, or TypeError of an ABC
            raise ValueError(f"{reference} cannot be made without settings: "
                             f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from None
        return made.check
    if not callable(target):
        raise ValueError(f"{reference} is a {type(target).__name__}, not a function "
                         "(answer) -> bool")
    if inspect.iscoroutinefunction(target):
        raise ValueError(f"{reference} is async: a check is a plain function "
                         "(answer) -> bool")
    try:
        inspect.signature(target).bind(None)
    except TypeError:
        raise ValueError(f"{reference} must take one argument, the answer (its signature "
                         f"is {inspect.signature(target)})") from None
    except ValueError:  # no signature to read (some built-ins): called as it is
        pass
    function: UserCheck = target
    return function


@register
class PythonCheck(Check):
    """``python: mypkg.checks:no_pii``: a function of your own, given the :class:`Answer`,
    returning ``True``/``False`` or a :class:`CheckResult` (its ``passed`` and ``detail``
    kept); or a :class:`Check` subclass without settings. docs/checks.md."""

    python: str

    @field_validator("python")
    @classmethod
    def _resolvable(cls, value: str, info: ValidationInfo) -> str:
        _split(value)
        if isinstance(info.context, Mapping) and info.context.get(RESOLVE):
            resolve_check(value)
        return value

    def check(self, answer: Answer) -> CheckResult:
        try:
            outcome = resolve_check(self.python)(answer)
        except Exception as exc:  # the user's code: its failure is this check's, not the run's
            text = str(exc).splitlines()[0] if str(exc) else ""
            return self.result(False, f"{type(exc).__name__}: {text}"[:300])
        if isinstance(outcome, CheckResult):
            return self.result(outcome.passed, outcome.detail)
        if isinstance(outcome, bool):
            return self.result(outcome)
        return self.result(False, f"returned {type(outcome).__name__}, not True/False or a "
                                  "CheckResult")


# --- running them --------------------------------------------------------------------------------
def run_check(spec: Check, answer: str, raw_json: str = "{}") -> CheckResult:
    """Apply one check to an answer (of the case written as ``raw_json``)."""
    return spec.check(Answer(answer, raw_json))


def run_checks(specs: Iterable[Check], answer: str, raw_json: str = "{}") -> list[CheckResult]:
    """Apply each check to an answer (of the case written as ``raw_json``)."""
    given = Answer(answer, raw_json)
    return [s.check(given) for s in specs]
