"""A reusable aiohttp application for an Athena-compatible feedback module.

:func:`create_module_app` does everything a module must do on the wire and leaves
only the grading to the caller:

* ``POST /feedback_suggestions`` (a module) and
  ``POST /modules/modeling/<module_name>/feedback_suggestions`` (the module manager,
  whose answer adds ``module_name`` and ``status``);
* ``GET /health``;
* the ``Authorization`` (when a secret is set) and ``X-Server-URL`` checks (401);
* body validation: 422 with ``error`` naming the first bad field and ``detail``
  listing every problem (``loc``, ``msg``, ``type``), including ``submission.model``
  when the diagram is not JSON or not an Apollon diagram;
* a failed grade becomes a JSON ``{"error": ...}``: 503 for a retryable
  :class:`~eunomia.scheduler.CallError` (the client may try again), 500 otherwise.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from eunomia.apollon import parse_diagram
from eunomia.athena._contract import AthenaFeedback, FeedbackRequest, LLMRequestUsage
from eunomia.errors import join_key
from eunomia.scheduler import CallError
from eunomia.serving import http_url, start_app

GradeFunction = Callable[
    [FeedbackRequest], Awaitable[tuple[list[AthenaFeedback], list[LLMRequestUsage]]]
]
"""Feedback items and the LLM calls made for one request."""

DEFAULT_MODULE_NAME = "module_modeling_llm"
MODULE_PATH = "/feedback_suggestions"
MAX_BODY_BYTES = 16 * 1024 * 1024


def manager_path(module_name: str) -> str:
    """The module manager's path for ``module_name``."""
    return f"/modules/modeling/{module_name}/feedback_suggestions"


def error_response(
    status: int, message: str, detail: list[dict[str, Any]] | None = None
) -> web.Response:
    """``{"error": message, "detail"?: [...]}`` with ``status``."""
    body: dict[str, Any] = {"error": message}
    if detail is not None:
        body["detail"] = detail
    return web.json_response(body, status=status)


def _unprocessable(exc: ValidationError, prefix: str) -> web.Response:
    detail = [
        {"loc": join_key(prefix, err["loc"]) or "body", "msg": err["msg"], "type": err["type"]}
        for err in exc.errors(include_url=False)
    ]
    first = detail[0]
    return error_response(422, f"invalid request: {first['loc']}: {first['msg']}", detail)


def _denied(request: web.Request, secret: str | None) -> web.Response | None:
    """The 401 answer for a request without the required headers, or ``None``."""
    if secret is not None:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            return error_response(401, "invalid or missing Authorization header")
    if not request.headers.get("X-Server-URL"):
        return error_response(401, "missing X-Server-URL header")
    return None


def parse_request(text: str) -> FeedbackRequest | web.Response:
    """The validated request, or the 422 answer naming the bad field."""
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        detail = [{"loc": "body", "msg": str(exc), "type": "json_invalid"}]
        return error_response(422, f"invalid request: body is not JSON: {exc}", detail)
    try:
        body = FeedbackRequest.model_validate(payload)
    except ValidationError as exc:
        return _unprocessable(exc, "")
    try:
        parse_diagram(json.loads(body.submission.model))
    except json.JSONDecodeError as exc:
        detail = [{"loc": "submission.model", "msg": str(exc), "type": "json_invalid"}]
        return error_response(422, f"invalid request: submission.model is not JSON: {exc}", detail)
    except ValidationError as exc:
        return _unprocessable(exc, "submission.model")
    return body


def _usage_wire(usage: LLMRequestUsage) -> dict[str, Any]:
    wire = usage.wire()
    if wire.get("numTotalTokens") is None:
        wire["numTotalTokens"] = usage.num_input_tokens + usage.num_output_tokens
    return {k: v for k, v in wire.items() if v is not None}


def response_body(
    feedback: list[AthenaFeedback], usage: list[LLMRequestUsage]
) -> dict[str, Any]:
    """A module's ``{"data": [...], "meta": {"llmRequests": [...], "totalUsage": {...}}}``."""
    requests = [_usage_wire(u) for u in usage]
    num_in = sum(u.num_input_tokens for u in usage)
    num_out = sum(u.num_output_tokens for u in usage)
    meta: dict[str, Any] = {"llmRequests": requests}
    if usage:
        meta["totalUsage"] = {
            "numInputTokens": num_in,
            "numOutputTokens": num_out,
            "numTotalTokens": num_in + num_out,
        }
    return {"data": [item.wire() for item in feedback], "meta": meta}


def create_module_app(
    grade: GradeFunction,
    *,
    secret: str | None = None,
    module_name: str = DEFAULT_MODULE_NAME,
) -> web.Application:
    """An Athena-compatible module whose feedback comes from ``grade``.

    With a ``secret``, requests need ``Authorization: <secret>`` (the raw value).
    ``grade`` receives a validated request whose ``submission.model`` is a parsable
    Apollon diagram; it may raise :class:`CallError` (503 when retryable, else 500).
    Any other exception is a 500 naming the exception type.
    """
    path = manager_path(module_name)

    async def feedback_suggestions(request: web.Request) -> web.Response:
        denied = _denied(request, secret)
        if denied is not None:
            return denied
        parsed = parse_request(await request.text())
        if isinstance(parsed, web.Response):
            return parsed
        try:
            feedback, usage = await grade(parsed)
        except CallError as exc:
            return error_response(503 if exc.retryable else 500, f"grading failed: {exc.reason}")
        except Exception as exc:  # a bug in grading must still answer in JSON
            return error_response(500, f"grading failed: {type(exc).__name__}: {exc}")
        body = response_body(feedback, usage)
        if request.path == path:  # the module manager wraps a module's answer
            body = {"module_name": module_name, "status": 200, **body}
        return web.json_response(body)

    async def health(_: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    app = web.Application(client_max_size=MAX_BODY_BYTES)
    app.router.add_post(MODULE_PATH, feedback_suggestions)
    app.router.add_post(path, feedback_suggestions)
    app.router.add_get("/health", health)
    return app


def module_url(host: str, port: int) -> str:
    """The feedback URL of a module listening on ``host:port``."""
    return http_url(host, port, MODULE_PATH)


async def start_module_server(
    app: web.Application, host: str = "127.0.0.1", port: int = 0
) -> tuple[web.AppRunner, str]:
    """Start ``app`` in the running event loop; ``port=0`` picks a free port.

    Returns the runner (``await runner.cleanup()`` stops it) and the feedback URL.
    """
    runner, real_port = await start_app(app, host, port)
    return runner, module_url(host, real_port)
