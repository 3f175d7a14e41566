"""The label server: an aiohttp application over a scenario folder (or a judged task run).

``/`` the index, ``/cases/NAME`` a case (GET the page, POST its form), ``/labeller`` who is
labelling (when the server was not started with ``--labeller``). Everything else is a 404;
nothing from the disk is served.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from urllib.parse import urlsplit

from aiohttp import web

from eunomia import serving
from eunomia.labelling import _run_views, _scenario_views
from eunomia.labelling._book import Book
from eunomia.labelling._http import (
    LABELLER_KEY,
    LOOPBACK_ONLY_KEY,
    TOKEN_KEY,
    error_page,
    guard,
    labeller_of,
    page,
    redirect,
    set_labeller,
    token_ok,
)
from eunomia.labelling._pages import render
from eunomia.labelling._runbook import RunBook
from eunomia.scenarios._labels import LABELLER_RE
from eunomia.serving import is_loopback


def _back_to(value: str) -> str:
    """A page of this server to go back to (never another site)."""
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not value.startswith("/") or value.startswith("//"):
        return "/"
    return value


async def labeller_form(request: web.Request) -> web.Response:
    if request.app[LABELLER_KEY]:
        return redirect("/")
    return page(render("labeller.html.j2", token=request.app[TOKEN_KEY], error="",
                       name=labeller_of(request),
                       next=_back_to(request.query.get("next", "/"))))


async def labeller_save(request: web.Request) -> web.Response:
    if request.app[LABELLER_KEY]:
        return error_page(400, "This server labels as "
                               f"{request.app[LABELLER_KEY]} (--labeller).")
    form = await request.post()
    if not token_ok(request, str(form.get("token", ""))):
        return error_page(403, "This form is not from this label server: open it again.")
    name = str(form.get("name", "")).strip()
    back = _back_to(str(form.get("next", "/")))
    if LABELLER_RE.fullmatch(name) is None:
        return page(render("labeller.html.j2", token=request.app[TOKEN_KEY], name=name,
                           next=back, error=f"{name!r} cannot be a labeller's name: use "
                           "letters, digits, space and . @ _ - (at most 40)."), 400)
    response = redirect(back)
    set_labeller(response, name)
    return response


def create_app(book: Book | RunBook, *, labeller: str = "",
               loopback_only: bool = True) -> web.Application:
    """The label server of ``book`` (a scenario, or a judged task run); ``labeller``:
    everyone who opens it labels as this name (empty: each browser says who it is, kept in
    a cookie)."""
    app = web.Application(middlewares=[guard], client_max_size=256 * 1024)
    app[LABELLER_KEY] = labeller
    app[TOKEN_KEY] = secrets.token_urlsafe(24)
    app[LOOPBACK_ONLY_KEY] = loopback_only
    if isinstance(book, RunBook):
        app[_run_views.RUNBOOK_KEY] = book
        views = (_run_views.index, _run_views.case_page, _run_views.case_save)
    else:
        app[_scenario_views.BOOK_KEY] = book
        views = (_scenario_views.index, _scenario_views.case_page, _scenario_views.case_save)
    app.router.add_get("/", views[0])
    app.router.add_get("/cases/{name:.+}", views[1])
    app.router.add_post("/cases/{name:.+}", views[2])
    app.router.add_get("/labeller", labeller_form)
    app.router.add_post("/labeller", labeller_save)
    return app


def serve_forever(app_for: Callable[[bool], web.Application], host: str, port: int,
                  announce: Callable[[str], None] = print) -> None:
    """Serve until Ctrl+C or SIGTERM; ``app_for(loopback_only)`` makes the application and
    ``announce`` gets the URL to open, once the server listens."""
    app = app_for(is_loopback(host))
    serving.serve_forever(serving.serve_app(app, host, port, announce), None)
