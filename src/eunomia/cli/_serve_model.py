"""``eunomia serve-model``: a model behind the OpenAI chat-completions API on this machine."""

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import console
from eunomia.errors import EunomiaError


def serve_model(
    model: Annotated[str, typer.Option(
        help="Model spec to serve, e.g. local, local:qwen2.5-coder-0.5b, an alias from "
             "models.yml, openai:gpt-4o-mini.")] = defaults.MODEL_SPEC,
    host: Annotated[str, typer.Option(
        help="Address to bind; anything but a loopback address lets the network use "
             "the model.")] = defaults.MODEL_SERVER_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = defaults.MODEL_SERVER_PORT,
    alias: Annotated[list[str] | None, typer.Option(
        help="Another model id to list and answer under (repeatable), e.g. gpt-local for "
             "a client that keeps only ids containing 'gpt'.")] = None,
    json_object_schema: Annotated[Path | None, typer.Option(
        help="JSON schema file: every answer asked for as a json_object follows it (for a "
             "client that asks for any JSON object but reads one shape).",
        show_default=False)] = None,
    api_key_env: Annotated[str | None, typer.Option(
        help="Environment variable holding an API key: requests must then send "
             "'Authorization: Bearer <key>'.", show_default=False)] = None,
    upstream: Annotated[str | None, typer.Option(
        help="Relay to this OpenAI-compatible base URL (e.g. https://api.openai.com/v1) "
             "instead of serving --model, recording every call; --model then names the "
             "upstream model the --alias ids stand for.", show_default=False)] = None,
    upstream_key_env: Annotated[str, typer.Option(
        help="Environment variable holding the upstream's API key (sent upstream only; "
             "none sent when it is unset).")] = "OPENAI_API_KEY",
) -> None:
    """Serve a model over the OpenAI API (/v1/models, /v1/chat/completions) on this machine,
    or relay to another endpoint; either way every call is recorded (GET /eunomia/usage)."""
    from eunomia.model_server import is_loopback, relayed, serve_forever, served_model

    if not 0 <= port <= 65535:
        raise EunomiaError(f"--port must be between 0 and 65535, got {port}")
    aliases = [a.strip() for a in alias or []]
    if any(not a for a in aliases):
        raise EunomiaError("--alias must not be empty")
    api_key: str | None = None
    if api_key_env is not None:
        api_key = os.environ.get(api_key_env, "").strip()
        if not api_key:
            raise EunomiaError(f"--api-key-env {api_key_env}: the variable is not set "
                               "(or empty); set it, or leave the option out to serve "
                               "without a key")
    schema = None if json_object_schema is None else _read_schema(json_object_schema)
    out = console()
    if not is_loopback(host):
        guard = "with its API key" if api_key else "without any key"
        out.print(f"[yellow]warning:[/] serving on {escape(host)} {guard}: anyone who can "
                  "reach it can use the model")
    served = (served_model(model, aliases, json_object_schema=schema) if upstream is None
              else relayed(upstream, upstream_key_env, model, aliases, json_object_schema))

    def say(line: str) -> None:
        out.print(escape(line), soft_wrap=True)

    try:
        serve_forever(served, host, port, api_key=api_key, announce=say, log=say)
    except OSError as exc:
        raise EunomiaError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _read_schema(path: Path) -> dict[str, Any]:
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EunomiaError(f"--json-object-schema: cannot read {path}: "
                           f"{exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise EunomiaError(f"--json-object-schema: {path} is not JSON: {exc}") from None
    if not isinstance(schema, dict):
        raise EunomiaError(f"--json-object-schema: {path} must hold a JSON object (a schema)")
    return schema
