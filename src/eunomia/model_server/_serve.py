"""Running the model server: in the running event loop (tests, embedding) or blocking (the
``eunomia serve-model`` command)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from aiohttp import web

from eunomia import defaults, serving
from eunomia.metering import USAGE_PATH, UsageRecorder
from eunomia.model_server._app import create_app
from eunomia.model_server._relay import Upstream
from eunomia.model_server._served import ServedModel
from eunomia.serving import is_loopback as is_loopback

DEFAULT_HOST = defaults.MODEL_SERVER_HOST
DEFAULT_PORT = defaults.MODEL_SERVER_PORT
"""The port OpenAI-compatible local servers (llama.cpp, vLLM) use by default."""


SHUTDOWN_GRACE_S = 5.0
"""On stop, answers in progress get this long to finish; then they are cancelled (a local
model stops generating) instead of holding the stop for minutes."""


def base_url(host: str, port: int) -> str:
    """The OpenAI base URL clients are given (``.../v1``)."""
    return serving.http_url(host, port, "/v1")


async def start_model_server(
    served: ServedModel | Upstream,
    host: str = DEFAULT_HOST,
    port: int = 0,
    *,
    api_key: str | None = None,
    log: Callable[[str], None] | None = None,
    recorder: UsageRecorder | None = None,
) -> tuple[web.AppRunner, str]:
    """Serve ``served`` in the running loop; ``port=0`` picks a free port.

    Returns the runner (``await runner.cleanup()`` stops it, cancelling answers still in
    progress after :data:`SHUTDOWN_GRACE_S`) and the base URL (``.../v1``). A request whose
    client disconnects is cancelled (the model stops generating for it).
    """
    app = create_app(served, api_key=api_key, log=log, recorder=recorder)
    runner, real_port = await serving.start_app(app, host, port, handler_cancellation=True,
                                                shutdown_timeout=SHUTDOWN_GRACE_S)
    return runner, base_url(host, real_port)


def served_model(spec: str, aliases: Sequence[str] = (), *,
                 json_object_schema: dict[str, Any] | None = None) -> ServedModel:
    """The model named by ``spec`` (read with ``models.yml``) under its spec, the name given
    (when it is a ``models.yml`` alias) and ``aliases``; ``json_object_schema``: see
    :class:`ServedModel`."""
    from eunomia.models import get_model, load_config, resolve_spec

    resolved = resolve_spec(spec, load_config())
    names = [spec.strip()] if spec.strip() != resolved.spec else []
    return ServedModel(get_model(resolved), resolved.spec, aliases=[*names, *aliases],
                       settings=resolved.settings, json_object_schema=json_object_schema)


async def _serve(served: ServedModel | Upstream, host: str, port: int, api_key: str | None,
                 announce: Callable[[str], None], log: Callable[[str], None]) -> None:
    try:
        if served.local is not None:
            announce(f"Loading {served.spec} ...")
        await served.load()
        runner, url = await start_model_server(served, host, port, api_key=api_key, log=log)
        if isinstance(served, Upstream):
            aliases = f" (and {', '.join(served.aliases)} for {served.model})" \
                if served.aliases else ""
            announce(f"Relaying {served.base_url}{aliases} on {url} (OpenAI chat completions; "
                     "Ctrl+C to stop)")
        else:
            announce(f"Serving {', '.join(served.ids)} on {url} (OpenAI chat completions; "
                     "Ctrl+C to stop)")
        announce(f"Every call is recorded: {url.removesuffix('/v1')}{USAGE_PATH}")
        await serving.until_stopped(runner)
    finally:
        await served.close()


def serve_forever(served: ServedModel | Upstream, host: str = DEFAULT_HOST,
                  port: int = DEFAULT_PORT, *, api_key: str | None = None,
                  announce: Callable[[str], None] = print,
                  log: Callable[[str], None] = print) -> None:
    """Serve until Ctrl+C or SIGTERM. ``announce`` gets the start-up lines, ``log`` one line
    per completion."""
    serving.serve_forever(_serve(served, host, port, api_key, announce, log),
                          "Model server stopped.", announce)
