"""Test cases generated from a scenario's example solution by its declared mutations.

A case combines one to ``max_per_case`` mutations, each a concrete choice of one of the
scenario's usable rules; combined mutations touch disjoint elements and show at most one
instruction per criterion (and a rule marked ``alone`` is never combined), so each keeps
the meaning its rule declares. The case's expected instructions are ``default_expected``
with every shown instruction in place of its criterion's default one. Rules are taken in
turn (shuffled by the seed) so that a few cases already cover many rules; the same seed
gives the same cases, ids and all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eunomia.apollon.mutate import Choice, Doc, MutationError, choices, mutant_problems
from eunomia.errors import EunomiaError
from eunomia.scenarios import MutationRule, Scenario, UsableRule, shown_by

MAX_TRIES_PER_CASE = 50
"""Draws allowed per wanted case before the generator says how many distinct cases the
rules allow."""


@dataclass(frozen=True, slots=True)
class Option:
    """One concrete mutation of one rule."""

    instruction: str
    index: int
    rule: MutationRule
    choice: Choice

    @property
    def rule_name(self) -> str:
        return f"{self.instruction}[{self.index}]"

    @property
    def shows(self) -> list[str]:
        return shown_by(self.instruction, self.rule)


@dataclass(frozen=True, slots=True)
class GeneratedCase:
    name: str
    diagram: dict[str, Any]
    """The mutant (Apollon JSON, the source's version)."""
    mutations: tuple[Option, ...]
    expected: tuple[str, ...]
    """Expected instruction ids (textual), in ``default_expected`` order."""
    replaced: dict[str, str]
    """``{default instruction: instruction expected instead}``."""


@dataclass(frozen=True, slots=True)
class Generation:
    cases: tuple[GeneratedCase, ...]
    rules: tuple[tuple[str, int], ...]
    """Every usable rule (``instruction[i]``) and in how many ways it applies."""
    draws: int
    """Combinations drawn (repeats and combinations with no room included)."""


def _options(doc: Doc, rules: dict[str, list[UsableRule]]) -> list[list[Option]]:
    out = []
    for instruction, usable in rules.items():
        for u in usable:
            found = [Option(instruction, u.index, u.rule, c) for c in choices(doc, u.rule)]
            if found:
                out.append(found)
    return out


def _compatible(picked: Sequence[Option], candidate: Option,
                criterion_of: dict[str, int]) -> bool:
    if candidate.rule.alone:
        return False
    shown: dict[int, str] = {}
    for o in (*picked, candidate):
        for tid in o.shows:
            if shown.setdefault(criterion_of[tid], tid) != tid:
                return False
    touched = set().union(*(o.choice.touched for o in picked))
    return not (touched & candidate.choice.touched)


def _combine(first: Option, size: int, options: Sequence[Sequence[Option]],
             rng: random.Random, criterion_of: dict[str, int]) -> list[Option]:
    """``first`` and up to ``size - 1`` compatible options of other rules, drawn at random."""
    picked = [first]
    if first.rule.alone or size == 1:
        return picked
    others = [o for group in options for o in group if o.rule_name != first.rule_name]
    rng.shuffle(others)
    for o in others:
        if len(picked) == size:
            break
        if _compatible(picked, o, criterion_of):
            picked.append(o)
    return picked


def _expected(scenario: Scenario, options: Sequence[Option]
              ) -> tuple[tuple[str, ...], dict[str, str]]:
    known = scenario.by_textual_id
    default = [scenario.instructions[i] for i in scenario.default_expected]
    replaced: dict[str, str] = {}
    for o in options:
        for tid in o.shows:
            criterion = known[tid].criterion_id
            for d in default:
                if d.criterion_id == criterion:
                    replaced[d.textual_id] = tid
    return tuple(replaced.get(d.textual_id, d.textual_id) for d in default), replaced


def _name(number: int, options: Sequence[Option]) -> str:
    return f"m{number:03d}_" + "+".join(dict.fromkeys(o.choice.op for o in options))


def generate(scenario: Scenario, count: int, *, seed: int = 0,
             max_per_case: int = 2) -> Generation:
    """``count`` distinct mutants of the scenario's example solution with their expected
    instructions. Raises :class:`EunomiaError` when the scenario has no usable rule, when
    the rules allow fewer distinct cases than asked, or (a bug, never silently) when a
    mutant is not a well-formed diagram."""
    if count < 1:
        raise EunomiaError(f"--count must be at least 1, got {count}")
    if max_per_case < 1:
        raise EunomiaError(f"--max-mutations must be at least 1, got {max_per_case}")
    if not scenario.mutation_rules:
        raise EunomiaError(f"the scenario {scenario.name!r} ({scenario.folder}) declares no "
                           "usable mutation rules: add `mutations:` to its manifest or a "
                           "mutations.yml beside it (docs/mutate.md); `eunomia validate` "
                           "names any problem with them")
    assert scenario.exercise.example_solution is not None  # the rules were checked with it
    source = json.loads(scenario.exercise.example_solution)
    base = Doc(source)
    options = _options(base, scenario.mutation_rules)
    criterion_of = {i.textual_id: i.criterion_id for i in scenario.instructions.values()}
    rng = random.Random(seed)
    turns = list(range(len(options)))
    rng.shuffle(turns)
    seen: set[frozenset[str]] = set()
    cases: list[GeneratedCase] = []
    draws = 0
    while len(cases) < count and draws < count * MAX_TRIES_PER_CASE:
        first = rng.choice(options[turns[draws % len(turns)]])
        draws += 1
        # sizes take turns; a combination made already grows by one more mutation
        picked: list[Option] = []
        for size in range(1 + len(cases) % max_per_case, max_per_case + 1):
            picked = _combine(first, size, options, rng, criterion_of)
            if frozenset(o.choice.key for o in picked) not in seen:
                break
        key = frozenset(o.choice.key for o in picked)
        if key in seen:
            continue
        doc = Doc(source)
        case_rng = random.Random(f"{seed}:{sorted(key)}")
        try:
            for o in picked:
                o.choice.apply(doc, case_rng)
        except MutationError:
            continue
        seen.add(key)
        mutant = doc.to_json()
        problems = mutant_problems(source, mutant)
        if problems:
            raise EunomiaError(
                f"internal error: mutating {scenario.name} by "
                f"{'; '.join(o.choice.description for o in picked)} gave an inconsistent "
                f"diagram ({'; '.join(problems[:3])}); please report it")
        expected, replaced = _expected(scenario, picked)
        cases.append(GeneratedCase(_name(len(cases) + 1, picked), mutant, tuple(picked),
                                   expected, replaced))
    if len(cases) < count:
        raise EunomiaError(
            f"the mutation rules of {scenario.name!r} gave only {len(cases)} distinct "
            f"case(s) with up to {max_per_case} mutation(s) each in {draws} draws (asked "
            f"for {count}): "
            "declare more rules or more targets (`to`), or allow more mutations per case "
            "(--max-mutations)")
    return Generation(tuple(cases), tuple((o[0].rule_name, len(o)) for o in options), draws)
