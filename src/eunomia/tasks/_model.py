"""The task-suite format: pydantic models at the file boundary.

Two published shapes are read: a bare YAML list of cases (llmevalforge v1) and
``{metadata: {...}, test_cases: [...]}`` (v2). Every case keeps its original
mapping (``raw``, in file order, unknown fields included) so results can be
written back in the input's key order with the new fields appended.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Literal, Protocol, overload, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from eunomia import defaults
from eunomia.bounds import check_text_id
from eunomia.tasks.checks import AnyCheck, Check

Difficulty = Literal["easy", "medium", "hard"]


class Turn(BaseModel):
    """One user turn of a multi-turn (context retention) case."""

    model_config = ConfigDict(extra="allow", frozen=True)

    user: str
    eval_point: str | None = None
    """What the reply to this turn must get right (judged on this turn)."""
    check: AnyCheck | list[AnyCheck] | None = None
    """Deterministic check(s) of the reply to this turn."""

    @property
    def checks(self) -> list[Check]:
        if self.check is None:
            return []
        return list(self.check) if isinstance(self.check, list) else [self.check]


class TaskCase(BaseModel):
    """One test case. Unknown fields are allowed and carried into the results."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    case_id: str | int | None = None
    id: str | int | None = None
    category: str | None = None
    sub_category: str | list[str] | None = None
    system_prompt: str | None = None
    instruction: str | None = None
    expected_response: str | None = None
    potential_challenges: str | list[str] | None = None
    challenges: str | list[str] | None = None
    difficulty_level: Difficulty | None = None
    expected_output_length: int | None = Field(default=None, gt=0, le=defaults.MAX_WORDS)
    conversation: list[Turn] | None = None
    checks: list[AnyCheck] | None = None
    human_score: float | None = Field(default=None, ge=0, le=5)

    @field_validator("difficulty_level", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("case_id", "id", mode="before")
    @classmethod
    def _an_id(cls, value: Any) -> Any:
        """Text, or a whole number (the published datasets number their cases: ``case_id:
        1``); never empty, a boolean or another number (``.nan`` would be "nan"). A key
        written without a value (null) is refused by the loader (a stored case has them)."""
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        return check_text_id(value)

    @field_validator("conversation")
    @classmethod
    def _not_empty(cls, value: list[Turn] | None) -> list[Turn] | None:
        if value is not None and not value:
            raise ValueError("a conversation needs at least one turn")
        return value

    @property
    def challenges_text(self) -> str:
        value = self.potential_challenges if self.potential_challenges is not None \
            else self.challenges
        if value is None:
            return ""
        if isinstance(value, list):
            return "\n".join(f"- {v}" for v in value)
        return value.strip()

    @property
    def sub_categories(self) -> list[str]:
        if self.sub_category is None:
            return []
        if isinstance(self.sub_category, list):
            return [str(s).strip() for s in self.sub_category if str(s).strip()]
        return [self.sub_category.strip()] if self.sub_category.strip() else []


class SuiteFile(BaseModel):
    """The v2 shape: ``{metadata, test_cases}``. Other top-level keys are kept."""

    model_config = ConfigDict(extra="allow")

    metadata: dict[str, Any] = Field(default_factory=dict)
    test_cases: list[Any]


class LoadedCase(BaseModel):
    """A validated case with its name, kind, position and original mapping."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: str
    index: int
    """Position in the file's list of cases."""
    line: int | None = None
    case: TaskCase
    raw_json: str
    """The case as written, as JSON text: file key order kept (also through the store,
    whose JSON is key-sorted), unknown fields included."""

    @property
    def raw(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.raw_json)
        return value

    @property
    def difficulty(self) -> str:
        return self.case.difficulty_level or "unspecified"

    @property
    def category(self) -> str:
        return (self.case.category or self.kind).strip()


CaseSource = Callable[[], Iterator[LoadedCase]]
"""Where a suite's cases come from: each call starts a new pass over them, in file order."""

Entry = tuple[str, str, int, int | None, str]
"""One usable case as stored: name, kind, index in the file, line, the case as JSON text."""


@runtime_checkable
class EntrySource(Protocol):
    """A :data:`CaseSource` that also gives its cases as :data:`Entry` s, without building
    (validating) them: a pass that only copies or selects cases takes these."""

    def __call__(self) -> Iterator[LoadedCase]: ...

    def entries(self) -> Iterator[Entry]: ...


class CaseList(Sequence[LoadedCase]):
    """The cases of a suite, read on demand: every iteration is a new pass over the source
    (the suite file, or the snapshot in the run store), so no case is held in memory.

    Behaves like a read-only list (``len``, truthiness, indexing, ``==`` with a list); a
    ``len`` not given up front costs one pass, indexing reads up to the index.
    """

    __slots__ = ("_length", "_source")

    def __init__(self, source: CaseSource | Sequence[LoadedCase],
                 length: int | None = None) -> None:
        if isinstance(source, Sequence):
            items = source
            self._source: CaseSource = lambda: iter(items)
            length = len(items) if length is None else length
        else:
            self._source = source
        self._length = length

    def __iter__(self) -> Iterator[LoadedCase]:
        return self._source()

    def __len__(self) -> int:
        if self._length is None:
            self._length = sum(1 for _ in self._source())
        return self._length

    def __bool__(self) -> bool:
        if self._length is not None:
            return self._length > 0
        return next(self._source(), None) is not None

    @overload
    def __getitem__(self, index: int) -> LoadedCase: ...

    @overload
    def __getitem__(self, index: slice) -> list[LoadedCase]: ...

    def __getitem__(self, index: int | slice) -> LoadedCase | list[LoadedCase]:
        if isinstance(index, slice):
            start, stop, step = index.start, index.stop, index.step
            if all(x is None or x >= 0 for x in (start, stop)) and (step or 1) > 0:
                return list(islice(self._source(), start, stop, step))
            return list(self)[index]
        if index < 0:
            index += len(self)
        if index >= 0:
            for found in islice(self._source(), index, None):
                return found
        raise IndexError("case index out of range")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (CaseList, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = "?" if self._length is None else str(self._length)
        return f"CaseList({shown} cases)"


@dataclass(frozen=True, eq=False, slots=True)
class TaskSuite:
    """One suite file, loaded: what describes the file, the count of its usable cases and
    the unusable ones. The cases themselves are read again on each pass (:attr:`cases`)."""

    name: str
    """Unique within a run: the file stem (made unique when two files share one)."""
    path: str
    shape: Literal["list", "mapping"]
    top_level_json: str = "{}"
    """The top-level keys of a mapping-shaped file other than ``test_cases`` (``metadata``
    first), as JSON text in file order, for the output file."""
    rubric: str | None = None
    """Text of this suite's own rubric prompt (``metadata.rubric``: a file beside the suite)."""
    rubric_path: str | None = None
    source: CaseSource | Sequence[LoadedCase] = ()
    """The usable cases, in file order: a list, or a callable starting a pass over them."""
    case_count: int | None = None
    """How many usable cases ``source`` yields (None: unknown until counted)."""
    invalid: list[tuple[str, str]] = field(default_factory=list)
    """(name, reason) of the cases that could not be used."""

    @property
    def cases(self) -> CaseList:
        return CaseList(self.source, self.case_count)

    @property
    def top_level(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.top_level_json)
        return value

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.top_level.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskSuite:
        """A suite stored whole (the run-store snapshot of Eunomia before streaming)."""
        stored = StoredSuite.model_validate(data)
        return cls(name=stored.name, path=stored.path, shape=stored.shape,
                   top_level_json=stored.top_level_json, rubric=stored.rubric,
                   rubric_path=stored.rubric_path, source=stored.cases,
                   case_count=len(stored.cases), invalid=stored.invalid)


class SuiteFields(BaseModel):
    """What every stored snapshot of a suite says about its file (both formats)."""

    name: str
    path: str
    shape: Literal["list", "mapping"]
    top_level_json: str = "{}"
    rubric: str | None = None
    rubric_path: str | None = None
    invalid: list[tuple[str, str]] = Field(default_factory=list)


class StoredSuite(SuiteFields):
    """A whole suite as older run stores hold it (one JSON document with every case)."""

    cases: list[LoadedCase]
