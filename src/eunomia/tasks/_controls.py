"""Control answers: what a judge gives an answer that says nothing, the floor under a score.

``content_free``     fluent, on the task's tone, nothing checkable: a template of
                     ``controls/content_free.yaml`` chosen per case by a hash of its id
                     (:func:`content_free`)
``other_reference``  another case's reference answer: fluent, on the suite's subject, wrong
                     here (:func:`other_references`; the same pairing as ``baseline:reference``
                     and judge-check's ``other``)

An eval scores them for every case of a suite, or for a seeded sample of
:data:`~eunomia.defaults.CONTROL_SAMPLE` cases where the suite is larger
(:func:`control_sample`); judge-check scores the content-free answer of every case.
Nothing here calls a model: the answers are fixed by the cases alone, so their judge calls
are cached from run to run.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.tasks._model import Entry, LoadedCase, TaskSuite
from eunomia.tasks._snapshot import iter_entries, loaded_case
from eunomia.tasks._text import content_words, names, numbers

TEMPLATES_FILE = Path(__file__).resolve().parent / "controls" / "content_free.yaml"
GENERAL = "any"
"""The family of the templates every case may get."""
NO_TOPIC = "your request"

ControlKind = Literal["content_free", "other_reference"]
CONTROL_KINDS: tuple[ControlKind, ...] = ("content_free", "other_reference")


class Template(BaseModel):
    """One content-free answer (``{topic}`` is the case's sub-category)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    family: str = Field(min_length=1)
    why: str = Field(min_length=1)
    text: str = Field(min_length=1)

    @model_validator(mode="after")
    def _nothing_checkable(self) -> Template:
        if numbers(self.text) or re.search(r"\d", self.text):
            raise ValueError(f"template {self.id}: a content-free answer holds no number")
        if set(re.findall(r"{(\w*)}", self.text)) - {"topic"}:
            raise ValueError(f"template {self.id}: the only placeholder is {{topic}}")
        return self


class TemplateFile(BaseModel):
    """``controls/content_free.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(ge=1)
    families: dict[str, list[str]]
    templates: list[Template] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_families(self) -> TemplateFile:
        known = {GENERAL, *self.families}
        for t in self.templates:
            if t.family not in known:
                raise ValueError(f"template {t.id}: unknown family {t.family!r}")
        if not any(t.family == GENERAL for t in self.templates):
            raise ValueError(f"no template of the family {GENERAL!r}")
        return self

    def family_of(self, kind: str) -> str | None:
        return next((f for f, kinds in self.families.items() if kind in kinds), None)


@functools.lru_cache(maxsize=4)
def load_templates(path: Path = TEMPLATES_FILE) -> TemplateFile:
    """The content-free templates (checked: no number, only ``{topic}``)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return TemplateFile.model_validate(data)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise EunomiaError(f"content-free templates {path}: {exc}") from None


@dataclass(frozen=True, slots=True)
class ControlAnswer:
    """A control answer of one case: its kind, its text and how it was made."""

    kind: ControlKind
    text: str
    how: str
    """The template's id, or the case whose reference it is."""


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def topic(case: LoadedCase, reference: str | None = None) -> str:
    """What the case is about, in lower case, from its sub-category (else its category);
    :data:`NO_TOPIC` when that would hold a number or a name of the reference."""
    label = next(iter(case.case.sub_categories), "") or case.category
    label = " ".join(label.replace("_", " ").split()).lower()
    if not label or re.search(r"\d", label):
        return NO_TOPIC
    if reference is not None:
        found = {w.lower() for n in names(reference) for w in n.text.split()}
        if content_words(label) & found:
            return NO_TOPIC
    return label


def content_free(case: LoadedCase, reference: str | None = None,
                 templates: TemplateFile | None = None) -> ControlAnswer:
    """The content-free answer of ``case``: one of the templates of its family and the
    general ones, chosen by a hash of the case's id (the same case, the same answer)."""
    chosen = templates or load_templates()
    family = chosen.family_of(case.kind)
    usable = [t for t in chosen.templates if t.family in (GENERAL, family)]
    template = usable[_hash(case.name) % len(usable)]
    text = template.text.replace("{topic}", topic(case, reference))
    return ControlAnswer("content_free", text, template.id)


def control_sample(names_: Sequence[str], size: int = defaults.CONTROL_SAMPLE,
                   seed: int = defaults.CONTROL_SEED) -> list[int]:
    """The positions (in file order) of the cases whose controls are scored: every case of
    a suite of at most ``size``, else the ``size`` whose seeded hash of their id is smallest.
    Stable: adding or removing a case changes the sample only by that case (and the one it
    displaces), so the controls scored before stay in the cache."""
    if size < 1:
        raise EunomiaError(f"the control sample must hold at least 1 case, got {size}")
    if len(names_) <= size:
        return list(range(len(names_)))
    ranked = sorted(range(len(names_)), key=lambda i: (_hash(f"{seed}:{names_[i]}"), i))
    return sorted(ranked[:size])


def other_references(references: Sequence[str | None]) -> list[int | None]:
    """For each case (its reference, None when it has none), the position of the case whose
    reference is its "another case's reference" control: the previous case that has one;
    before the first such case, the first; the first itself takes the second. None when no
    other case has a reference."""
    having = [i for i, r in enumerate(references) if r is not None and r.strip()]
    out: list[int | None] = []
    previous: int | None = None
    for i, ref in enumerate(references):
        if previous is not None:
            out.append(previous)
        else:
            out.append(next((j for j in having if j != i), None))
        if ref is not None and ref.strip():
            previous = i
    return out


def other_reference(references: Sequence[str | None], case_names: Sequence[str],
                    position: int) -> ControlAnswer | None:
    """The ``other_reference`` control of the case at ``position`` (None: no other case of
    its suite has a reference, or it is the same text)."""
    other = other_references(references)[position]
    if other is None:
        return None
    text = references[other]
    own = references[position]
    if text is None or (own is not None and text.strip() == own.strip()):
        return None
    return ControlAnswer("other_reference", text, f"the reference of case {case_names[other]}")


def case_reference(case: LoadedCase) -> str | None:
    """The reference answer a control is built against: the case's expected response, None
    for a case without one or a conversation (judged against evaluation points)."""
    if case.case.conversation:
        return None
    return (case.case.expected_response or "").strip() or None


def suite_controls(suite: TaskSuite, kinds: Sequence[ControlKind] = ("content_free",), *,
                   size: int = defaults.CONTROL_SAMPLE, seed: int = defaults.CONTROL_SEED
                   ) -> Iterator[tuple[Entry, list[ControlAnswer]]]:
    """The control answers of ``suite`` an eval scores: for each case of its sample
    (:func:`control_sample`), in file order, its entry and its controls of ``kinds`` (a
    case with no other case's reference gets no ``other_reference``; the pairing is
    :func:`other_references`'). Two passes over the suite; its references are never all
    held."""
    others = "other_reference" in kinds
    names_: list[str] = []
    first: list[tuple[int, str]] = []  # the first two cases with a reference
    for i, entry in enumerate(iter_entries(suite)):
        names_.append(entry[0])
        if others and len(first) < 2:
            ref = case_reference(loaded_case(entry))
            if ref is not None:
                first.append((i, ref))
    wanted = set(control_sample(names_, size, seed))
    previous: tuple[int, str] | None = None
    for i, entry in enumerate(iter_entries(suite)):
        if i not in wanted and not others:
            continue
        case = loaded_case(entry)
        ref = case_reference(case)
        if i in wanted:
            out: list[ControlAnswer] = []
            if "content_free" in kinds:
                out.append(content_free(case, ref))
            other = previous or next((f for f in first if f[0] != i), None)
            if others and other is not None and other[1] != ref:
                out.append(ControlAnswer("other_reference", other[1],
                                         f"the reference of case {names_[other[0]]}"))
            yield entry, out
        if ref is not None:
            previous = (i, ref)
