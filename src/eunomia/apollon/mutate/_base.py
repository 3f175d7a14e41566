"""What an operator is: from a rule and a diagram, every concrete way to apply it."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from eunomia.apollon.mutate._doc import Doc
from eunomia.apollon.mutate._select import OpSpec

Apply = Callable[[Doc, random.Random], None]


class SpecError(ValueError):
    """A rule's parameters cannot work with its operator (``eunomia validate`` says why)."""


class MutationError(RuntimeError):
    """A mutation could not be applied to this document (no room left for a new element,
    say); the generator tries another combination."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One concrete mutation: what it does to which elements, and the change itself."""

    op: str
    key: str
    """Stable identity (operator, element ids, target): two choices with one key are one."""
    description: str
    """What changes, in words: ``retype Task -> Project from ClassComposition to
    ClassAggregation``."""
    touched: frozenset[str]
    """Ids of the source diagram the mutation reads or changes; mutations combined in one
    case touch disjoint sets, so none undoes or hides another."""
    apply: Apply
    """Change a document (a copy of the source, maybe with other disjoint mutations
    applied) in place; new ids come from the random generator."""


@dataclass(frozen=True, slots=True)
class Operator:
    name: str
    summary: str
    """One line for ``docs/mutate.md`` and error messages."""
    diagrams: frozenset[str]
    """The diagram types it applies to (empty: every type)."""
    candidates: Callable[[Doc, OpSpec], list[Choice]]
    needs_to: bool = False
    """The rule must say what the element becomes (``to``)."""
