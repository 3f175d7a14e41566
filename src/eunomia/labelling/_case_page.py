"""What a case's page does whatever is labelled (a scenario's case, a judged run's answer):
find the case named in the address, show its page with the banner of a save just made, take
its form, and show the page again when a save is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from aiohttp import web

from eunomia.labelling._http import (
    Posted,
    ask_labeller,
    error_page,
    labeller_of,
    page,
    read_form,
)
from eunomia.labelling._pages import render

Snap = TypeVar("Snap")
State = TypeVar("State")
State_co = TypeVar("State_co", covariant=True)

Context = Callable[[Snap, State, str], dict[str, Any]]
"""A case page's template context from the snapshot, the case's state and the labeller."""


class CaseBook(Protocol[Snap, State_co]):
    """What is labelled (``Book``, ``RunBook``): read anew for every page."""

    def read(self) -> Snap: ...

    def position(self, name: str) -> int | None: ...

    def state(self, snap: Snap, name: str) -> State_co | None: ...


def _named(request: web.Request, book: CaseBook[Snap, State], snap: Snap) -> State | None:
    return book.state(snap, request.match_info["name"])


def show_case(request: web.Request, book: CaseBook[Snap, State], template: str, missing: str,
              context: Context[Snap, State],
              saved: Callable[[Snap, int, str], str | None]) -> web.Response:
    """The page of the case named in the address (404 with ``missing`` when there is none);
    ``saved`` says what was saved of the case ``?saved=`` names (its position), if anything.
    A labeller who has not said who they are is asked first."""
    labeller = labeller_of(request)
    if not labeller:
        return ask_labeller(request)
    snap = book.read()
    state = _named(request, book, snap)
    if state is None:
        return error_page(404, missing)
    shown = context(snap, state, labeller)
    name = request.query.get("saved")
    i = book.position(name) if name else None
    said = saved(snap, i, labeller) if i is not None else None
    if said is not None:
        shown["banners"].append(("ok", said))
    return page(render(template, **shown))


async def posted_case(request: web.Request, book: CaseBook[Snap, State],
                      missing: str) -> tuple[Posted, State] | web.Response:
    """The form posted to a case's page, checked, and the case's state; or the response that
    refuses it (404 with ``missing`` when there is no such case)."""
    posted = await read_form(request)
    if isinstance(posted, web.Response):
        return posted
    state = _named(request, book, book.read())
    if state is None:
        return error_page(404, missing)
    return posted, state


def refused(request: web.Request, book: CaseBook[Snap, State], template: str,
            context: Context[Snap, State], labeller: str, message: str) -> web.Response:
    """The case's page again (409), with the refused form's values (``context`` puts them
    in) and why it was not saved."""
    snap = book.read()
    state = _named(request, book, snap)
    assert state is not None
    shown = context(snap, state, labeller)
    shown["banners"].append(("stale", message))
    return page(render(template, **shown), 409)
