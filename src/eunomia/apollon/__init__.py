"""Apollon diagram JSON (the submissions of modeling exercises)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eunomia.apollon._diff import CHANGE_KINDS, Change, ChangeKind, DiagramDiff, diff_diagrams
from eunomia.apollon._model import ApollonDiagram, Element, Endpoint, Relationship, parse_diagram
from eunomia.apollon.mutate import DiagramError
from eunomia.lazy import lazy_names

if TYPE_CHECKING:
    from eunomia.apollon._render import render_diagram
    from eunomia.apollon._svg import render_svg

# lazy: drawing a diagram is for reports; a run reads, mutates and diffs diagrams
__getattr__ = lazy_names(__name__, {"_render": ("render_diagram",), "_svg": ("render_svg",)})

__all__ = [
    "CHANGE_KINDS",
    "ApollonDiagram",
    "Change",
    "ChangeKind",
    "DiagramDiff",
    "DiagramError",
    "Element",
    "Endpoint",
    "Relationship",
    "diff_diagrams",
    "parse_diagram",
    "render_diagram",
    "render_svg",
]
