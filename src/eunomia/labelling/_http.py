"""What every page of the label server shares: who is labelling, the guard in front of every
request, and the responses.

The guard answers only requests addressed to a loopback name while the server listens on
one (a DNS-rebinding page cannot read or write labels), lets through GET, HEAD and POST only,
and accepts a POST only with the form token of this server (a page of another site cannot
know it) and, when the browser says where the form came from (``Origin``), only from this
server. Every response forbids scripts and framing (the viewer's Content-Security-Policy).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from aiohttp import web
from multidict import MultiDictProxy

from eunomia.errors import EunomiaError
from eunomia.labelling._pages import NOTE_MAX, case_href, render_error
from eunomia.report.html import CSP
from eunomia.scenarios._labels import LABELLER_RE
from eunomia.serving import is_loopback

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # (no-referrer would make a form's Origin "null")
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}
COOKIE = "eunomia_labeller"
"""Where a browser keeps its labeller's name (when the server was not given one)."""

TOKEN_KEY = web.AppKey("token", str)
LABELLER_KEY = web.AppKey("labeller", str)
"""The labeller given with ``--labeller`` (empty: each browser says who it is)."""
LOOPBACK_ONLY_KEY = web.AppKey("loopback_only", bool)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def page(html: str, status: int = 200) -> web.Response:
    return web.Response(text=html, status=status, content_type="text/html", charset="utf-8")


def error_page(status: int, message: str) -> web.Response:
    return page(render_error(status, message), status)


def labeller_of(request: web.Request) -> str:
    """Who is labelling: the server's ``--labeller``, else this browser's cookie (checked
    again at every request); empty when nobody said."""
    fixed = request.app[LABELLER_KEY]
    if fixed:
        return fixed
    name = unquote(request.cookies.get(COOKIE, "")).strip()
    return name if LABELLER_RE.fullmatch(name) else ""


def set_labeller(response: web.StreamResponse, name: str) -> None:
    response.set_cookie(COOKIE, quote(name, safe=""), max_age=400 * 24 * 3600, path="/",
                        httponly=True, samesite="Strict")


def redirect(location: str) -> web.Response:
    """See other (303): after a form, the page to show."""
    return web.Response(status=303, headers={"Location": location})


def ask_labeller(request: web.Request) -> web.Response:
    """Off to the form that asks who is labelling, then back here."""
    return redirect("/labeller?next=" + quote(request.path_qs, safe=""))


def token_ok(request: web.Request, sent: str) -> bool:
    return hmac.compare_digest(sent.encode(), request.app[TOKEN_KEY].encode())


@dataclass(frozen=True, slots=True)
class Posted:
    """A case's form, checked: who saves it, the revision it was made from, its note."""

    form: MultiDictProxy[Any]
    labeller: str
    revision: int
    note: str
    restarted: bool = False
    """The form came from a page of this server before it was restarted (its token is an
    earlier one): shown again, with its choices, to be saved knowingly; not saved."""


RESTARTED = ("Not saved: the label server was restarted after this page was opened. Your "
             "choices are still in the form: save again to keep them.")


async def read_form(request: web.Request) -> Posted | web.Response:
    """The form posted to a case page, or the response that refuses it."""
    form = await request.post()
    restarted = not token_ok(request, str(form.get("token", "")))
    # a browser says where a form comes from, and the guard let only this server's through
    if restarted and "Origin" not in request.headers:
        return error_page(403, "This form is not from this label server: open the page "
                               "again.")
    labeller = labeller_of(request)
    if not labeller:
        return ask_labeller(request)
    revision = str(form.get("revision", ""))
    if not revision.isdigit() or len(revision) > 9:
        return error_page(400, "The form's revision is not a number.")
    note = str(form.get("note", "")).replace("\r\n", "\n").strip()
    if len(note) > NOTE_MAX:
        return error_page(400, f"The note is longer than {NOTE_MAX} characters.")
    return Posted(form, labeller, int(revision), note, restarted)


def after_save(posted: Posted, name: str, after: str | None) -> web.Response:
    """Off to the next case (``Save and next``) or back to this one, saying it was saved."""
    target = after if posted.form.get("then") == "next" and after else name
    query = "?saved=" + quote(name, safe="")
    if posted.form.get("layout") == "stacked":
        query += "&layout=stacked"
    return redirect(case_href(target) + query)


def _same_origin(request: web.Request) -> bool:
    origin = request.headers.get("Origin")
    return origin is None or origin == f"{request.scheme}://{request.host}"


def _loopback_host(request: web.Request) -> bool:
    return is_loopback(request.url.host or "")


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.app[LOOPBACK_ONLY_KEY] and not _loopback_host(request):
        response: web.StreamResponse = error_page(
            421, "This label server only answers requests addressed to this machine "
                 "(127.0.0.1).")
    elif request.method not in ("GET", "HEAD", "POST"):
        response = error_page(405, "Only pages (GET) and forms (POST) here.")
    elif request.method == "POST" and not _same_origin(request):
        response = error_page(403, "A form of another site cannot save labels here.")
    else:
        try:
            response = await handler(request)
        except web.HTTPNotFound:
            response = error_page(404, "There is no such page: the index is at /.")
        except web.HTTPMethodNotAllowed:
            response = error_page(405, "Only pages (GET) and forms (POST) here.")
        except EunomiaError as exc:
            response = error_page(500, str(exc))
    response.headers.update(HEADERS)
    return response
