"""A scenario's mutation rules (which mutation of the example solution shows which
instruction) and the record of a generated case's mutations: the file format and its checks.

Rules are given in the manifest (``mutations:``) or in ``mutations.yml`` beside it, as
``{instruction id: [rule, ...]}``: a mutant made by one of an instruction's rules gets that
instruction instead of its criterion's ``default_expected`` one (``also``: further
instructions it gets too). ``eunomia validate`` checks them against the example solution:
an unknown operator, element or instruction, or a rule that no mutant can satisfy, is an
error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from eunomia.apollon.mutate import (
    OPERATORS,
    DiagramError,
    Doc,
    OpSpec,
    SpecError,
    choices,
    name_matches,
)
from eunomia.scenarios._model import Criterion, Instruction

Loc = tuple[int | str, ...]
Report = Callable[[Loc, str], None]


def _ids(value: Any) -> Any:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return [str(value)]
    return value


class MutationRule(OpSpec):
    """One declared mutation of the example solution and what it shows."""

    also: list[str] = Field(default_factory=list)
    """Instructions the mutant gets besides the one the rule is listed under (a deleted
    class also misses its relationships, say)."""
    alone: bool = False
    """Never combine this mutation with another in one case."""

    _v_also = field_validator("also", mode="before")(_ids)


class AppliedMutation(BaseModel):
    """What one mutation of a generated case did (the manifest's ``generated_cases``)."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    """``<instruction>[<index>]``: the rule it came from."""
    op: str
    description: str
    shows: list[str] = Field(default_factory=list)
    """The instructions it makes the case expect."""


class GeneratedCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int
    mutations: list[AppliedMutation]


@dataclass(frozen=True, slots=True)
class UsableRule:
    """A rule that passed the checks: its place under its instruction, and in how many
    ways it applies to the example solution."""

    index: int
    rule: MutationRule
    ways: int


RuleSet = dict[str, list[MutationRule | None]]
"""Instruction textual id -> its rules, in file order (None: a rule that did not parse)."""


def parse_rules(data: Any, report: Report) -> RuleSet:
    """Rules from a mapping ``{instruction: [rule, ...]}``; problems go to ``report`` with
    their key path (inside the mapping)."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        report((), "mutation rules must be a mapping of instruction ids to lists of rules")
        return {}
    out: RuleSet = {}
    for key, items in data.items():
        instruction = str(key)
        if items is None:
            continue
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list):
            report((key,), "expected a list of rules (each a mapping with 'op')")
            continue
        for i, item in enumerate(items):
            rules = out.setdefault(instruction, [])
            try:
                rules.append(MutationRule.model_validate(item))
            except ValidationError as exc:
                rules.append(None)
                for problem in exc.errors(include_url=False):
                    where = tuple(problem["loc"])
                    if problem["type"] == "extra_forbidden":
                        message = f"unknown key {where[-1]!r} in a mutation rule"
                    else:
                        message = problem["msg"]
                    report((key, i, *where), message)
    return out


def _names(doc: Doc) -> list[str]:
    return sorted({str(e.get("name")) for e in doc.elements.values() if e.get("name")})


def _bare_match(doc: Doc, name: str) -> bool:
    return any(name_matches(e, name) for e in doc.elements.values())


def check_rules(rules: RuleSet, *, example: str | None, labelled: bool,
                criteria: Sequence[Criterion], default: Sequence[int],
                report: Report) -> dict[str, list[UsableRule]]:
    """Check rules against the instructions and the example solution; the usable rules
    ``{instruction: [UsableRule]}``. ``report(loc, message)`` gets every
    problem (an error), ``loc`` inside the rules mapping."""
    if not rules:
        return {}
    if not labelled:
        report((), "mutation rules need default_expected: a generated case's expected "
                   "instructions are default_expected with the mutation's swapped in")
        return {}
    if example is None:
        report((), "mutation rules need exercise.example_solution: cases are mutants of it")
        return {}
    try:
        doc = Doc(json.loads(example))
    except (ValueError, DiagramError) as exc:
        report((), f"the example solution is not an Apollon diagram ({exc}); no rule can "
                   "be applied")
        return {}
    known: dict[str, Instruction] = {i.textual_id: i for c in criteria for i in c.instructions}
    replaced = {known_i.criterion_id for known_i in known.values() if known_i.id in default}

    def shows(tid: str, loc: Loc) -> bool:
        ins = known.get(tid)
        if ins is None:
            report(loc, f"unknown instruction id {tid!r}")
        elif ins.id in default:
            report(loc, f"instruction {tid!r} is in default_expected: a correct diagram gets "
                        "it already, so no mutation shows it")
        elif ins.criterion_id not in replaced:
            report(loc, f"instruction {tid!r}: its criterion has no instruction in "
                        "default_expected to replace")
        else:
            return True
        return False

    usable: dict[str, list[UsableRule]] = {}
    for instruction, items in rules.items():
        key_ok = shows(instruction, (instruction,))
        for i, rule in enumerate(items):
            if rule is None:
                continue
            rloc: Loc = (instruction, i)
            ok = key_ok and all(shows(tid, (*rloc, "also", j)) for j, tid in
                                enumerate(rule.also))
            criteria_seen: dict[int, str] = {}
            for tid in shown_by(instruction, rule):
                ins = known.get(tid)
                if ins is not None and criteria_seen.setdefault(ins.criterion_id, tid) != tid:
                    report((*rloc, "also"), f"{criteria_seen[ins.criterion_id]!r} and {tid!r} "
                           "are instructions of one criterion: a case gets one of them")
                    ok = False
            if rule.op not in OPERATORS:
                report((*rloc, "op"), f"unknown operator {rule.op!r}; known: "
                                      f"{', '.join(OPERATORS)}")
                continue
            try:
                found = choices(doc, rule)
            except SpecError as exc:
                report(rloc, str(exc))
                continue
            if not found:
                report(rloc, _why_none(doc, rule))
            elif ok:
                usable.setdefault(instruction, []).append(UsableRule(i, rule, len(found)))
    return usable


def _why_none(doc: Doc, rule: MutationRule) -> str:
    """Why no mutant satisfies a rule, as precisely as the selectors tell."""
    names = _names(doc)
    for key, value in (("element", rule.element), ("in", rule.within), ("end", rule.end),
                       ("after", rule.after), ("connect", rule.connect),
                       *((f"between[{k}]", v) for k, v in enumerate(rule.between or []))):
        if value is not None and not _bare_match(doc, value):
            shown = ", ".join(names[:30]) + (" ..." if len(names) > 30 else "")
            return (f"no mutant can satisfy this rule: {key}: no element named {value!r} in "
                    f"the example solution (its names: {shown})")
    return (f"no mutant can satisfy this rule: {rule.op} finds nothing to change with these "
            "selectors in the example solution (the element may already be what 'to' asks, "
            "or of another type)")


def shown_by(rule_key: str, rule: MutationRule) -> list[str]:
    """The instructions a rule's mutants get: the one it is listed under, then ``also``."""
    return [rule_key, *rule.also]


def rules_lines(rules: Mapping[str, Sequence[UsableRule]]) -> list[str]:
    """``instruction[i]: op (n ways)`` lines, for ``eunomia mutate``."""
    return [f"{instruction}[{u.index}]: {u.rule.op} ({u.ways} way{'s' if u.ways != 1 else ''})"
            for instruction, items in rules.items() for u in items]
