"""Apollon diagram JSON (the submissions of modeling exercises)."""

from eunomia.apollon._diff import CHANGE_KINDS, Change, ChangeKind, DiagramDiff, diff_diagrams
from eunomia.apollon._model import ApollonDiagram, Element, Endpoint, Relationship, parse_diagram
from eunomia.apollon._render import render_diagram
from eunomia.apollon._svg import render_svg
from eunomia.apollon.mutate import DiagramError

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
