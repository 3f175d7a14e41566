"""The label server's pages (Jinja2, autoescape on): every text from a manifest, a submission,
a model or a labels file is escaped; the diagrams are the escaped SVG of ``apollon.render_svg``.
Pages carry no script and load nothing (the viewer's Content-Security-Policy)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from eunomia import __version__
from eunomia.apollon import render_svg
from eunomia.report.html import CSP, read_diagram

_TEMPLATES = Path(__file__).resolve().parent / "templates"
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(_TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)

NOTE_MAX = 4000
"""Longest note kept (characters)."""


def render(template: str, **context: Any) -> str:
    return _ENV.get_template(template).render(csp=CSP, version=__version__, **context)


def render_error(status: int, message: str) -> str:
    return render("error.html.j2", status=status, message=message)


def case_href(name: str) -> str:
    """The address of a case's page (its name quoted, slashes too)."""
    return "/cases/" + quote(name, safe="")


def drawing(text: str | None, what: str) -> Markup:
    """A diagram's SVG, or why it is not drawn."""
    diagram, why = read_diagram(text)
    if diagram is None:
        return Markup('<p class="empty">{}</p>').format(f"The {what} is not drawn: {why}.")
    return Markup(render_svg(diagram))


def fmt_kappa(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"
