"""Mutation operators on Apollon diagrams: faulty variants of a model, valid by construction.

An operator (``OPERATORS``) turns a rule (:class:`OpSpec`: the operator and selectors by
element name and type) into every concrete :class:`Choice` it allows on a diagram;
applying choices to a :class:`Doc` (a copy of the source JSON, version 3 or 2) gives the
mutant in the source's version. :func:`mutant_problems` checks a mutant against its source
(ids, owners, class member lists, relationship ends, bounds without new overlaps).
"""

from eunomia.apollon.mutate._base import Choice, MutationError, Operator, SpecError
from eunomia.apollon.mutate._check import mutant_problems, problems
from eunomia.apollon.mutate._class_ops import RELATION_KINDS
from eunomia.apollon.mutate._doc import DiagramError, Doc
from eunomia.apollon.mutate._flow_ops import EVENT_TYPES, GATEWAY_TYPES
from eunomia.apollon.mutate._generic_ops import CONVENTIONS
from eunomia.apollon.mutate._registry import OPERATORS, choices
from eunomia.apollon.mutate._select import FAMILIES, OpSpec, name_matches

__all__ = [
    "CONVENTIONS",
    "EVENT_TYPES",
    "FAMILIES",
    "GATEWAY_TYPES",
    "OPERATORS",
    "RELATION_KINDS",
    "Choice",
    "DiagramError",
    "Doc",
    "MutationError",
    "OpSpec",
    "Operator",
    "SpecError",
    "choices",
    "mutant_problems",
    "name_matches",
    "problems",
]
