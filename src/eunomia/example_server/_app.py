"""The aiohttp application: the Athena ``feedback_suggestions`` HTTP contract."""

from __future__ import annotations

import hmac
import json
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from eunomia.apollon import parse_diagram
from eunomia.athena import FeedbackRequest
from eunomia.errors import join_key
from eunomia.example_server.grading import grade

MODEL_NAME = "eunomia-example-rules"
"""The ``model`` reported in ``meta.llmRequests`` (priced at 0.0 in ``llm_cost.yml``)."""
MODULE_NAME = "module_modeling_llm"
MODULE_PATH = "/feedback_suggestions"
MANAGER_PATH = f"/modules/modeling/{MODULE_NAME}/feedback_suggestions"
MAX_BODY_BYTES = 16 * 1024 * 1024

SECRET: web.AppKey[str | None] = web.AppKey("secret", str)


def _error(status: int, message: str, detail: list[dict[str, Any]] | None = None) -> web.Response:
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
    return _error(422, f"invalid request: {first['loc']}: {first['msg']}", detail)


def _estimate_tokens(text: str) -> int:
    """A deterministic *estimate* (about 4 characters per token); no tokenizer is run."""
    return len(text) // 4


def _authorized(request: web.Request) -> web.Response | None:
    """The 401 answer for a request without the required headers, or ``None``."""
    secret = request.app[SECRET]
    if secret is not None:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            return _error(401, "invalid or missing Authorization header")
    if not request.headers.get("X-Server-URL"):
        return _error(401, "missing X-Server-URL header")
    return None


async def feedback_suggestions(request: web.Request) -> web.Response:
    """``POST .../feedback_suggestions``: rule-based feedback on a class diagram."""
    denied = _authorized(request)
    if denied is not None:
        return denied
    text = await request.text()
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        detail = [{"loc": "body", "msg": str(exc), "type": "json_invalid"}]
        return _error(422, f"invalid request: body is not JSON: {exc}", detail)
    try:
        body = FeedbackRequest.model_validate(payload)
    except ValidationError as exc:
        return _unprocessable(exc, "")
    try:
        diagram = parse_diagram(json.loads(body.submission.model))
    except json.JSONDecodeError as exc:
        detail = [{"loc": "submission.model", "msg": str(exc), "type": "json_invalid"}]
        return _error(422, f"invalid request: submission.model is not JSON: {exc}", detail)
    except ValidationError as exc:
        return _unprocessable(exc, "submission.model")

    feedback = grade(body.exercise, body.submission.id, diagram)
    data = [item.wire() for item in feedback]
    num_in = _estimate_tokens(text)
    num_out = _estimate_tokens(json.dumps(data))
    usage = {
        "model": MODEL_NAME,
        "numInputTokens": num_in,
        "numOutputTokens": num_out,
        "numTotalTokens": num_in + num_out,
    }
    response: dict[str, Any] = {"data": data, "meta": {"llmRequests": [usage]}}
    if request.path == MANAGER_PATH:  # the module manager wraps a module's answer
        response = {"module_name": MODULE_NAME, "status": 200, **response}
    return web.json_response(response)


async def health(_: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


def create_app(secret: str | None = None) -> web.Application:
    """The example feedback server; with a ``secret``, requests need ``Authorization: <secret>``."""
    app = web.Application(client_max_size=MAX_BODY_BYTES)
    app[SECRET] = secret
    app.router.add_post(MODULE_PATH, feedback_suggestions)
    app.router.add_post(MANAGER_PATH, feedback_suggestions)
    app.router.add_get("/health", health)
    return app
