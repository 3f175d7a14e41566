"""``eunomia serve``: the feedback engine as an Athena-compatible module over HTTP."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from eunomia import defaults, serving
from eunomia.athena.server import create_module_app, start_module_server
from eunomia.llm_feedback._engine import FeedbackEngine
from eunomia.llm_feedback._prompt import PromptTemplates
from eunomia.models import ModelProvider


def create_engine_app(
    engine: FeedbackEngine,
    *,
    secret: str | None = None,
    module_name: str = defaults.ENGINE_MODULE_NAME,
) -> web.Application:
    """The engine behind the Athena module contract (see :func:`create_module_app`)."""
    return create_module_app(engine.grade, secret=secret, module_name=module_name)


async def start_engine_server(
    engine: FeedbackEngine,
    host: str = defaults.ENGINE_SERVER_HOST,
    port: int = 0,
    *,
    secret: str | None = None,
) -> tuple[web.AppRunner, str]:
    """Serve ``engine`` in the running loop; returns the runner and the feedback URL."""
    return await start_module_server(create_engine_app(engine, secret=secret), host, port)


async def _serve(
    spec: str, host: str, port: int, secret: str | None, prompt_dir: Path | None
) -> None:
    from eunomia.models import get_model, load_config, resolve_spec

    templates = PromptTemplates.load(prompt_dir)
    resolved = resolve_spec(spec, load_config())
    model: ModelProvider = get_model(resolved)
    try:
        load = getattr(model, "load", None)
        if load is not None:  # in-process models: load before the first request
            serving.say(f"Loading {resolved.spec} ...")
            await load()
        engine = FeedbackEngine(model, templates, settings=resolved.settings)
        runner, url = await start_engine_server(engine, host, port, secret=secret)
        serving.say(f"Eunomia feedback module ({resolved.spec}) listening on {url} "
                    "(Ctrl+C to stop)")
        await serving.until_stopped(runner)
    finally:
        await model.close()


def serve_forever(
    spec: str,
    host: str = defaults.ENGINE_SERVER_HOST,
    port: int = defaults.ENGINE_SERVER_PORT,
    secret: str | None = None,
    prompt_dir: Path | None = None,
) -> None:
    """Serve the engine on ``spec`` until Ctrl+C or SIGTERM."""
    serving.serve_forever(_serve(spec, host, port, secret, prompt_dir),
                          "Eunomia feedback module stopped.")
