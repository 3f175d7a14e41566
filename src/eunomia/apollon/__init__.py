"""Apollon diagram JSON (the submissions of modeling exercises)."""

from eunomia.apollon._model import ApollonDiagram, Element, Endpoint, Relationship, parse_diagram
from eunomia.apollon._render import render_diagram
from eunomia.apollon._svg import render_svg

__all__ = [
    "ApollonDiagram",
    "Element",
    "Endpoint",
    "Relationship",
    "parse_diagram",
    "render_diagram",
    "render_svg",
]
