"""Every mutation operator by name, and the choices a rule allows on a diagram."""

from __future__ import annotations

from eunomia.apollon.mutate._base import Choice, Operator, SpecError
from eunomia.apollon.mutate._class_ops import CLASS_OPERATORS
from eunomia.apollon.mutate._doc import Doc
from eunomia.apollon.mutate._flow_ops import FLOW_OPERATORS
from eunomia.apollon.mutate._generic_ops import GENERIC_OPERATORS
from eunomia.apollon.mutate._select import OpSpec

OPERATORS: dict[str, Operator] = {
    op.name: op for op in (*CLASS_OPERATORS, *FLOW_OPERATORS, *GENERIC_OPERATORS)}
"""The operators ``eunomia mutate`` knows, by the name a rule's ``op`` gives."""


def choices(doc: Doc, spec: OpSpec) -> list[Choice]:
    """Every concrete mutation ``spec`` allows on ``doc``, in a stable order.

    Raises :class:`SpecError` when the rule cannot work: an unknown operator, one that does
    not apply to this diagram type, a missing ``to``, a value the operator does not know.
    """
    op = OPERATORS.get(spec.op)
    if op is None:
        raise SpecError(f"unknown operator {spec.op!r}; known: {', '.join(OPERATORS)}")
    if op.diagrams and doc.type not in op.diagrams:
        raise SpecError(f"{spec.op} applies to {', '.join(sorted(op.diagrams))} diagrams, "
                        f"not {doc.type}")
    if op.needs_to and not spec.to:
        raise SpecError(f"{spec.op} needs 'to': {op.summary}")
    return op.candidates(doc, spec)
