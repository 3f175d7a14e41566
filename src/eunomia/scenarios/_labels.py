"""``labels.yml`` beside a scenario's manifest: the instructions tutors chose for its cases.

Written by ``eunomia label`` (``eunomia.labelling``), read here. Per case and labeller, the
instruction chosen per criterion (or "cannot tell"), a note, when, and a revision (the
version check of concurrent saves); superseded labels are kept under ``history``::

    kind: scenario
    expected: majority            # or a labeller's name, or a list of names (first wins)
    cases:
      02_missing_start_event:
        anna:
          choices: {start_event: start_event_not_met, ...}
          note: "no start event at all"
          at: "2026-11-27T08:01:02.345+00:00"
          revision: 2
    history: [{case, labeller, choices, note, at, revision, replaced_at}, ...]

What counts as a case's expected instructions (:func:`resolve_labels`):

* only a labeller's *complete* label counts (every criterion answered; a label saved half
  done is a draft);
* ``expected: majority``: per criterion the instruction most of those labellers chose
  ("cannot tell" abstains); a tie, or nobody choosing, leaves the case unresolved;
* ``expected: NAME`` (or ``[NAME, ...]``): the first named labeller with a complete label;
  a "cannot tell" in it leaves the case unresolved.

A resolved case expects its chosen instructions whatever the manifest says. The loader
(:func:`eunomia.scenarios.load_scenario`) decides what happens to the others.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from eunomia import defaults
from eunomia.errors import Diagnostic, Severity, warning
from eunomia.scenarios._model import Criterion
from eunomia.yamlfile import YamlDocument, YamlFileError, diag_at, read_yaml, validate_document

CANNOT_TELL: Literal["cannot tell"] = "cannot tell"
"""The choice of a labeller who cannot tell which instruction of a criterion applies."""
MAJORITY = "majority"
LABELLER_RE = re.compile(r"^\w[\w .@-]{0,39}$")
"""A labeller's name: a letter or digit first, at most 40 characters."""


def _text(value: Any) -> Any:
    # YAML turns ``id: 1`` into an int; ids are strings
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class CaseLabel(BaseModel):
    """One labeller's label of one case."""

    model_config = ConfigDict(extra="forbid")

    choices: dict[str, str] = Field(default_factory=dict)
    """Criterion id → instruction id, or ``cannot tell``."""
    note: str = ""
    at: str
    """When it was saved (UTC, ISO 8601)."""
    revision: int = Field(ge=1)
    """1 for the first save of this case by this labeller, one more at each save."""

    @field_validator("choices", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {_text(k): _text(v) for k, v in value.items()}
        return {} if value is None else value

    @field_validator("note", mode="before")
    @classmethod
    def _note(cls, value: Any) -> Any:
        return "" if value is None else value


class HistoryLabel(CaseLabel):
    """A label as it was before a later save replaced it."""

    case: str
    labeller: str
    replaced_at: str


class ScenarioLabels(BaseModel):
    """The whole ``labels.yml`` of a scenario."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["scenario"] = "scenario"
    expected: str | list[str] = MAJORITY
    """Whose labels count as expected: ``majority``, a labeller, or labellers in order."""
    cases: dict[str, dict[str, CaseLabel]] = Field(default_factory=dict)
    history: list[HistoryLabel] = Field(default_factory=list)

    @field_validator("cases", mode="before")
    @classmethod
    def _case_names(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {_text(k): ({_text(n): v for n, v in v.items()} if isinstance(v, dict)
                               else {} if v is None else v) for k, v in value.items()}
        return {} if value is None else value

    @field_validator("history", mode="before")
    @classmethod
    def _none(cls, value: Any) -> Any:
        return [] if value is None else value

    @property
    def policy(self) -> tuple[str, ...]:
        """``("majority",)`` or the labellers whose labels count, in order."""
        return (self.expected,) if isinstance(self.expected, str) else tuple(self.expected)


def labels_path(folder: Path) -> Path:
    return folder / defaults.LABELS_FILE


def labels_yaml(labels: ScenarioLabels | Mapping[str, Any], header: str = "") -> str:
    """The text of a labels file (``header``: comment lines put first)."""
    data = labels.model_dump(mode="json") if isinstance(labels, BaseModel) else dict(labels)
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    return header + body


def read_labels(path: Path) -> tuple[ScenarioLabels | None, YamlDocument | None,
                                     list[Diagnostic]]:
    """The labels of ``path`` (an absent file: empty labels, no diagnostic)."""
    if not path.is_file():
        return ScenarioLabels(), None, []
    try:
        doc = read_yaml(path)
    except YamlFileError as exc:
        return None, None, [exc.diagnostic]
    if doc.data is None:
        return ScenarioLabels(), doc, []
    labels, problems = validate_document(doc, ScenarioLabels)
    return labels, doc, problems


def complete(label: CaseLabel, criteria: Sequence[Criterion]) -> bool:
    """Whether ``label`` answers every criterion."""
    return all(c.textual_id in label.choices for c in criteria)


@dataclass(slots=True)
class Resolution:
    """What the labels of one case say it expects."""

    expected: tuple[int, ...] | None
    """Instruction ids in criterion order; None when unresolved."""
    labellers: tuple[str, ...] = ()
    """The labellers with a complete label of the case."""
    disagree: tuple[str, ...] = ()
    """Criteria (textual ids) on which those labellers chose different instructions."""
    why: str = ""
    """Why it is unresolved (empty when resolved, or when nobody labelled it)."""


def _complete_labels(by_labeller: Mapping[str, CaseLabel], criteria: Sequence[Criterion],
                     known: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, str]]:
    """Each labeller's usable choices (a choice naming no instruction of its criterion
    makes the label incomplete), for the labellers whose label is complete."""
    out: dict[str, dict[str, str]] = {}
    for name, label in by_labeller.items():
        usable = {c: v for c, v in label.choices.items()
                  if v == CANNOT_TELL or v in known.get(c, {})}
        if all(c.textual_id in usable for c in criteria):
            out[name] = usable
    return out


def resolve_case(by_labeller: Mapping[str, CaseLabel], criteria: Sequence[Criterion],
                 policy: Sequence[str]) -> Resolution:
    """The expected instructions of one case under ``policy`` (see the module)."""
    known = {c.textual_id: {i.textual_id: i.id for i in c.instructions} for c in criteria}
    done = _complete_labels(by_labeller, criteria, known)
    names = tuple(sorted(done))
    disagree = tuple(c.textual_id for c in criteria
                     if len({d[c.textual_id] for d in done.values()
                             if d[c.textual_id] != CANNOT_TELL}) > 1)
    if not done:
        return Resolution(None, names, disagree)
    chosen: list[int] = []
    if tuple(policy) == (MAJORITY,):
        for c in criteria:
            votes = Counter(d[c.textual_id] for d in done.values()
                            if d[c.textual_id] != CANNOT_TELL)
            ranked = votes.most_common(2)
            if not ranked:
                return Resolution(None, names, disagree, f"nobody could tell {c.textual_id}")
            if len(ranked) == 2 and ranked[0][1] == ranked[1][1]:
                return Resolution(None, names, disagree, f"a tie on {c.textual_id}")
            chosen.append(known[c.textual_id][ranked[0][0]])
        return Resolution(tuple(chosen), names, disagree)
    first = next((n for n in policy if n in done), None)
    if first is None:
        return Resolution(None, names, disagree, "not labelled by " + ", ".join(policy))
    for c in criteria:
        choice = done[first][c.textual_id]
        if choice == CANNOT_TELL:
            return Resolution(None, names, disagree, f"{first} cannot tell {c.textual_id}")
        chosen.append(known[c.textual_id][choice])
    return Resolution(tuple(chosen), names, disagree)


@dataclass(slots=True)
class CaseLabels:
    """What a scenario's labels file says, as the loader uses it."""

    path: Path
    present: bool
    resolved: dict[str, Resolution] = field(default_factory=dict)
    """Per case name that has any label."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def expected(self) -> dict[str, tuple[int, ...]]:
        return {k: r.expected for k, r in self.resolved.items() if r.expected is not None}


def _check(doc: YamlDocument, labels: ScenarioLabels, criteria: Sequence[Criterion],
           case_names: Iterable[str]) -> list[Diagnostic]:
    """Labels naming what the scenario does not have."""
    out: list[Diagnostic] = []
    by_id = {c.textual_id: c for c in criteria}
    owner = {i.textual_id: c.textual_id for c in criteria for i in c.instructions}
    names = set(case_names)
    for case, by_labeller in labels.cases.items():
        if case not in names:
            out.append(diag_at(doc, ("cases", case), f"no test case named {case!r}; "
                               "its labels are ignored", Severity.WARNING))
        for labeller, label in by_labeller.items():
            loc: tuple[str, ...] = ("cases", case, labeller)
            if LABELLER_RE.fullmatch(labeller) is None:
                out.append(diag_at(doc, loc, f"{labeller!r} is not a labeller's name "
                                   "(letters, digits, space . @ _ -, at most 40)"))
            for criterion, choice in label.choices.items():
                cloc = (*loc, "choices", criterion)
                if criterion not in by_id:
                    out.append(diag_at(doc, cloc, f"unknown criterion {criterion!r}"))
                elif choice != CANNOT_TELL and choice not in owner:
                    out.append(diag_at(doc, cloc, f"unknown instruction {choice!r}; this "
                                       "label does not count until it is fixed"))
                elif choice != CANNOT_TELL and owner[choice] != criterion:
                    out.append(diag_at(doc, cloc, f"instruction {choice!r} belongs to criterion "
                                       f"{owner[choice]!r}, not {criterion!r}; this label does "
                                       "not count until it is fixed"))
    named = {n for by in labels.cases.values() for n in by}
    for name in labels.policy:
        if name != MAJORITY and name not in named:
            out.append(diag_at(doc, ("expected",), f"expected names {name!r}, who labelled "
                               "no case", Severity.WARNING))
    return out


def case_labels(folder: Path, criteria: Sequence[Criterion],
                case_names: Sequence[str]) -> CaseLabels:
    """Read and check ``folder/labels.yml`` and resolve every labelled case."""
    path = labels_path(folder)
    labels, doc, problems = read_labels(path)
    found = CaseLabels(path, doc is not None, diagnostics=problems)
    if labels is None or doc is None:
        return found
    found.diagnostics += _check(doc, labels, criteria, case_names)
    if not criteria and labels.cases:
        found.diagnostics.append(warning(path, "the scenario has no criteria, so no label can "
                                               "say what a case expects"))
        return found
    names = set(case_names)
    for case, by_labeller in labels.cases.items():
        if case in names and by_labeller:
            found.resolved[case] = resolve_case(by_labeller, criteria, labels.policy)
    return found


def perfect_answer(criteria: Sequence[Criterion]) -> tuple[int, ...]:
    """What a perfect solution gets when the manifest does not say (no ``default_expected``):
    the instruction of each criterion that gives the most credits (the first of equals)."""
    return tuple(max(c.instructions, key=lambda i: (i.credits, -i.id)).id
                 for c in criteria if c.instructions)


def labels_line(found: CaseLabels, total: int) -> str:
    """``12 of 39 cases labelled in labels.yml (anna 12, bob 3)``: for ``validate``."""
    per: Counter[str] = Counter(n for r in found.resolved.values() for n in r.labellers)
    who = ", ".join(f"{n} {k}" for n, k in sorted(per.items()))
    return (f"{len(found.expected)} of {total} cases labelled in {found.path.name}"
            + (f" ({who})" if who else ""))


def left_out_note(found: CaseLabels, total: int, left_out: Sequence[str],
                  folder: Path) -> Diagnostic | None:
    """What a run of the scenario leaves out, or cannot use, of its labels (a warning)."""
    unresolved = sorted(k for k, r in found.resolved.items()
                        if r.expected is None and r.labellers)
    why = "; ".join(f"{k}: {found.resolved[k].why}" for k in unresolved[:3])
    parts: list[str] = []
    if left_out:
        parts.append(f"{len(left_out)} of {total} cases have no label yet and are left out of "
                     f"runs (correctness is measured on the labelled ones); label them with: "
                     f"eunomia label {folder}")
    elif not found.expected and found.resolved:
        parts.append("no case has a complete label yet: the scenario is still unlabelled")
    if unresolved:
        parts.append(f"{len(unresolved)} labelled case(s) expect nothing their labels agree "
                     f"on ({why}{' ...' if len(unresolved) > 3 else ''})")
    return warning(found.path, "; ".join(parts)) if parts else None
