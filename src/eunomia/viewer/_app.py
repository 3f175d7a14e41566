"""A read-only web view of the run store: the runs, a run's report, two runs compared.

Only three pages exist (``/``, ``/runs/{name}``, ``/compare?a=..&b=..``), all built from
the store; anything else is a 404, and nothing from the disk is ever served. Run names
are checked against the run-name pattern before the store is asked. The server binds to
127.0.0.1 unless told otherwise, and while it does it answers only requests addressed
to a loopback name (a DNS-rebinding page cannot read the runs). Every page forbids
scripts and fetches through its Content-Security-Policy.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

from eunomia import serving
from eunomia.errors import EunomiaError
from eunomia.report.html import CSP, render_error, render_run_list
from eunomia.serving import is_loopback as is_loopback
from eunomia.store import RunStore
from eunomia.viewer._pages import render_comparison, render_run, score_digits

RUN_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
"""The names ``eunomia run`` accepts; anything else is not a run."""

_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}

STORE_KEY = web.AppKey("store_path", Path)
LOOPBACK_ONLY_KEY = web.AppKey("loopback_only", bool)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _page(html: str, status: int = 200) -> web.Response:
    return web.Response(text=html, status=status, content_type="text/html", charset="utf-8")


def _error(status: int, message: str) -> web.Response:
    return _page(render_error(status, message), status)


def _host_of(request: web.Request) -> str:
    host = request.headers.get("Host", "")
    if host.startswith("["):  # [::1]:8750
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.app[LOOPBACK_ONLY_KEY] and not is_loopback(_host_of(request)):
        response: web.StreamResponse = _error(421, "This viewer only answers requests "
                                                   "addressed to this machine (127.0.0.1).")
    elif request.method not in ("GET", "HEAD"):
        response = _error(405, "The viewer is read-only.")
    else:
        try:
            response = await handler(request)
        except web.HTTPNotFound:
            response = _error(404, "There is no such page: the viewer shows the list of "
                                   "runs, a run (/runs/NAME) and two runs compared "
                                   "(/compare?a=NAME&b=NAME).")
        except web.HTTPMethodNotAllowed:
            response = _error(405, "The viewer is read-only.")
        except EunomiaError as exc:
            response = _error(500, str(exc))
    response.headers.update(_HEADERS)
    return response


async def _in_thread(request: web.Request, render: Callable[[RunStore], str]) -> str:
    """Render from a connection of its own, off the event loop (the store is SQLite)."""
    path = request.app[STORE_KEY]

    def work() -> str:
        store = RunStore(path)
        try:
            return render(store)
        finally:
            store.close()

    return await asyncio.to_thread(work)


def _known_run(store: RunStore, name: str) -> bool:
    return RUN_NAME_RE.fullmatch(name) is not None and store.get_run(name) is not None


async def _runs(request: web.Request) -> web.Response:
    return _page(await _in_thread(request, lambda store: render_run_list(store, score_digits)))


async def _run(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if RUN_NAME_RE.fullmatch(name) is None:
        return _error(404, "That is not a run name.")

    def render(store: RunStore) -> str:
        run = store.get_run(name)
        return "" if run is None else render_run(store, run, links=True)

    html = await _in_thread(request, render)
    return _page(html) if html else _error(404, f"No run named {name} in the store.")


async def _compare(request: web.Request) -> web.Response:
    a, b = request.query.get("a", ""), request.query.get("b", "")
    if not a or not b:
        return _error(400, "Give two runs: /compare?a=NAME&b=NAME.")
    if RUN_NAME_RE.fullmatch(a) is None or RUN_NAME_RE.fullmatch(b) is None:
        return _error(404, "That is not a run name.")

    def render(store: RunStore) -> str:
        if not (_known_run(store, a) and _known_run(store, b)):
            return ""
        return render_comparison(store, a, store, b, links=True)

    html = await _in_thread(request, render)
    return _page(html) if html else _error(404, "No such run in the store.")


def create_app(store_path: Path, *, loopback_only: bool = True) -> web.Application:
    """The viewer of one run store (which must exist: the viewer never creates one)."""
    if not store_path.is_file():
        raise EunomiaError(f"no run store at {store_path}; give --results or --store")
    app = web.Application(middlewares=[_guard])
    app[STORE_KEY] = store_path
    app[LOOPBACK_ONLY_KEY] = loopback_only
    app.router.add_get("/", _runs)
    app.router.add_get("/runs/{name}", _run)
    app.router.add_get("/compare", _compare)
    return app


def serve_forever(store_path: Path, host: str, port: int,
                  announce: Callable[[str], None] = print) -> None:
    """Serve until Ctrl+C or SIGTERM; ``announce`` gets the URL to open, once the server
    listens."""
    app = create_app(store_path, loopback_only=is_loopback(host))
    serving.serve_forever(serving.serve_app(app, host, port, announce), None)
