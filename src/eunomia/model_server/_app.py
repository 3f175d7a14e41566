"""The aiohttp application: OpenAI's ``/v1/models`` and ``/v1/chat/completions`` in front of
one :class:`~eunomia.model_server._served.ServedModel`.

* ``GET /v1/models`` lists the model's spec and every alias; ``GET /v1/models/{id}`` one
  of them (404 otherwise).
* ``POST /v1/chat/completions`` answers one choice, whole or streamed (server-sent events,
  ``stream: true``; ``stream_options.include_usage`` adds a last chunk with the usage).
* ``GET /health`` answers ``{"status": "ok", "model": spec}`` (no key needed).
* ``GET /eunomia/usage?after=N`` (``&since=T``): the record of the calls served — model,
  tokens, start and end time, status — after call ``N`` (begun at or after ``T``, seconds since
  1970); see :class:`~eunomia.metering.UsagePage`. Needs the API key when there is one.
* With ``upstream`` (:class:`~eunomia.model_server._relay.Upstream`) the server relays
  ``/v1/models`` and ``/v1/chat/completions`` to another endpoint instead, and records the
  calls the same way.
* With an API key, every ``/v1`` request needs ``Authorization: Bearer <key>`` (401).
* Every failure is OpenAI-shaped: ``{"error": {"message", "type", "param", "code"}}`` — 400
  for a body that is not JSON or not a valid request (pydantic names the parameter), 404 for
  an unknown model or path, 405, 413 for a body over :data:`MAX_BODY_BYTES`, 5xx when the
  model fails.

A client that goes away cancels its request: the embedded model stops generating.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from eunomia.jsonbody import loads_fast
from eunomia.metering import USAGE_PATH, UsageRecorder
from eunomia.model_server._note import CallNote
from eunomia.model_server._relay import Upstream
from eunomia.model_server._replies import (
    SSE_DONE,
    Completion,
    error_response,
    invalid_body,
    json_response,
    model_entry,
    models_body,
    sse,
)
from eunomia.model_server._served import Answer, ServedModel, ServeError
from eunomia.model_server._wire import ChatCompletionBody
from eunomia.models import ChatRequest

MAX_BODY_BYTES = 16 * 1024 * 1024
SERVED_KEY = web.AppKey("served", ServedModel)
API_KEY_KEY = web.AppKey("api_key", str)
LOG_KEY: web.AppKey[Callable[[str], None]] = web.AppKey("log")
CREATED_KEY = web.AppKey("created", int)
RECORDER_KEY = web.AppKey("recorder", UsageRecorder)
UPSTREAM_KEY = web.AppKey("upstream", Upstream)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _serve_error(exc: ServeError) -> web.Response:
    headers = None
    if exc.retry_after is not None:
        headers = {"Retry-After": str(max(1, round(exc.retry_after)))}
    return error_response(exc.status, exc.message, kind=exc.kind, param=exc.param,
                          code=exc.code, headers=headers)


def _authorised(request: web.Request) -> bool:
    key = request.app[API_KEY_KEY]
    if not key:
        return True
    given = request.headers.get("Authorization", "")
    scheme, _, token = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(),
                                                              key.encode())


@web.middleware
async def _openai_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Auth for ``/v1``, and every error in OpenAI's shape."""
    if (request.path.startswith("/v1/") or request.path == USAGE_PATH) and not _authorised(
            request):
        return error_response(401, "Incorrect or missing API key: send it as "
                                   "'Authorization: Bearer <key>'.", code="invalid_api_key")
    try:
        return await handler(request)
    except web.HTTPNotFound:
        return error_response(404, f"Unknown path {request.path}: this server answers "
                                   "GET /v1/models and POST /v1/chat/completions.",
                              code="unknown_url")
    except web.HTTPMethodNotAllowed as exc:
        return error_response(405, f"{request.method} is not allowed on {request.path} "
                                   f"(allowed: {', '.join(sorted(exc.allowed_methods))}).",
                              code="method_not_allowed")
    except web.HTTPRequestEntityTooLarge:
        return error_response(413, f"The request body is larger than {MAX_BODY_BYTES} bytes.",
                              code="request_too_large")
    except web.HTTPException:
        raise
    except Exception as exc:  # a bug: still an answer the client can read
        _log(request, f"internal error: {type(exc).__name__}: {exc}")
        return error_response(500, f"Internal error: {type(exc).__name__}: {exc}",
                              kind="server_error")


async def _health(request: web.Request) -> web.Response:
    return json_response({"status": "ok", "model": request.app[SERVED_KEY].spec})


async def _upstream_health(request: web.Request) -> web.Response:
    return json_response({"status": "ok", "model": request.app[UPSTREAM_KEY].spec})


async def _models(request: web.Request) -> web.Response:
    served = request.app[SERVED_KEY]
    return json_response(models_body(list(served.ids), request.app[CREATED_KEY]))


def _unknown_model(served: ServedModel, model_id: str) -> web.Response:
    return error_response(
        404, f"The model '{model_id}' does not exist here; this server serves "
             f"{', '.join(repr(i) for i in served.ids)}.",
        param="model", code="model_not_found")


async def _model(request: web.Request) -> web.Response:
    served = request.app[SERVED_KEY]
    model_id = request.match_info["model_id"]
    if not served.knows(model_id):
        return _unknown_model(served, model_id)
    return json_response(model_entry(model_id, request.app[CREATED_KEY]))


def _read_body(raw: bytes) -> ChatCompletionBody | web.Response:
    def strict() -> Any:
        return json.loads(raw.decode("utf-8"))

    try:
        payload = loads_fast(raw, strict)
    except (ValueError, UnicodeDecodeError):
        return error_response(400, "The body of the request is not valid JSON.")
    if not isinstance(payload, dict):
        return error_response(400, "The body of the request must be a JSON object.")
    try:
        return ChatCompletionBody.model_validate(payload)
    except ValidationError as exc:
        return invalid_body(exc)


async def _chat(request: web.Request) -> web.StreamResponse:
    """Answer (or relay) one completion, and record it (:class:`CallNote`)."""
    recorder = request.app[RECORDER_KEY]
    note = CallNote(recorder, recorder.now())
    try:
        upstream = request.app.get(UPSTREAM_KEY)
        if upstream is not None:
            response = await upstream.chat(request, note)
        else:
            response = await _answer(request, note)
    except asyncio.CancelledError:  # the client went away
        note.error = "the client went away before the answer was complete"
        note.usage = None
        note.finish(499)
        raise
    except Exception as exc:
        note.error = f"{type(exc).__name__}: {exc}"[:300]
        note.finish(500)
        raise
    note.finish(response.status)
    return response


async def _answer(request: web.Request, note: CallNote) -> web.StreamResponse:
    served = request.app[SERVED_KEY]
    body = _read_body(await request.read())
    if isinstance(body, web.Response):
        return body
    note.model = body.model
    note.streamed = body.stream
    if not served.knows(body.model):
        return _unknown_model(served, body.model)
    started = time.perf_counter()
    try:
        chat = served.chat_request(body)
        served.check(chat)
        if body.stream:
            return await _stream(request, served, body, chat, started, note)
        answer = await served.answer(chat)
    except ValidationError as exc:
        return invalid_body(exc)
    except ServeError as exc:
        _log(request, f"{body.model}: {exc.status} {exc.message}")
        note.error = exc.message[:300]
        return _serve_error(exc)
    _log_answer(request, body.model, answer, started, streamed=False)
    note.usage, note.answered_by = answer.usage, answer.model
    completion = Completion(model=answer.model, fingerprint=served.fingerprint)
    return json_response(completion.body(answer.text, answer.finish_reason, answer.usage))


async def _stream(request: web.Request, served: ServedModel, body: ChatCompletionBody,
                  chat: ChatRequest, started: float, note: CallNote) -> web.StreamResponse:
    """Server-sent events: the role, the text as it comes, the finish reason, the usage."""
    pieces: asyncio.Queue[str | None] = asyncio.Queue()
    task = asyncio.create_task(served.answer(chat, on_text=pieces.put_nowait))
    task.add_done_callback(lambda _: pieces.put_nowait(None))
    response: web.StreamResponse | None = None
    try:
        first = await pieces.get()
        if first is None and task.exception() is not None:
            await task  # a failure before any text: an ordinary error answer (raises)
        model = served.local.model.name if served.local is not None else None
        if model is None:  # whole answers: its model is known once it is done
            await task
            model = task.result().model
        completion = Completion(model=model, fingerprint=served.fingerprint)
        usage_field = body.include_usage
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "Cache-Control": "no-cache"})
        await response.prepare(request)
        await response.write(sse(completion.chunk({"role": "assistant", "content": ""},
                                                  with_usage_field=usage_field)))
        piece = first
        while piece is not None:
            await response.write(sse(completion.chunk({"content": piece},
                                                      with_usage_field=usage_field)))
            piece = await pieces.get()
        try:
            answer: Answer = await task
        except ServeError as exc:  # after the headers: the error is the last event
            note.error = exc.message[:300]
            note.finish(200)
            await response.write(sse({"error": {"message": exc.message, "type": exc.kind,
                                                "param": exc.param, "code": exc.code}}))
            await response.write_eof()
            return response
        await response.write(sse(completion.chunk({}, answer.finish_reason,
                                                  with_usage_field=usage_field)))
        if usage_field:
            await response.write(sse(completion.usage_chunk(answer.usage)))
        note.usage, note.answered_by = answer.usage, answer.model
        note.finish(200)
        await response.write(SSE_DONE)
        await response.write_eof()
        _log_answer(request, body.model, answer, started, streamed=True)
        return response
    finally:
        if not task.done():  # the client went away: stop generating
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, ServeError):
                await task


def _log(request: web.Request, line: str) -> None:
    log = request.app.get(LOG_KEY)
    if log is not None:
        log(line)


def _log_answer(request: web.Request, model_id: str, answer: Answer, started: float, *,
                streamed: bool) -> None:
    u = answer.usage
    _log(request, f"{model_id}: {time.perf_counter() - started:.1f} s, "
                  f"{u.input_tokens} in ({u.cached_input_tokens} reused) + "
                  f"{u.output_tokens} out, finish {answer.finish_reason}"
                  f"{', streamed' if streamed else ''}")


async def _usage(request: web.Request) -> web.Response:
    recorder = request.app[RECORDER_KEY]
    try:
        after = int(request.query.get("after", "0"))
        since = float(request.query["since"]) if "since" in request.query else None
    except ValueError:
        return error_response(400, "after must be a whole number (a call's seq) and since a "
                                   "time in seconds since 1970", param="after")
    if after < 0 or (since is not None and not math.isfinite(since)):
        return error_response(400, "after must not be negative, since must be finite",
                              param="after")
    return web.Response(body=recorder.page(after, since).model_dump_json().encode(),
                        content_type="application/json")


async def _upstream_models(request: web.Request) -> web.Response:
    return await request.app[UPSTREAM_KEY].models()


def create_app(served: ServedModel | Upstream, *, api_key: str | None = None,
               log: Callable[[str], None] | None = None,
               recorder: UsageRecorder | None = None) -> web.Application:
    """The server for ``served`` (or relaying to an :class:`Upstream`); with ``api_key``,
    ``/v1`` and the usage record need ``Authorization: Bearer``; ``log`` gets one line per
    answered (or failed) completion; ``recorder`` keeps the record of calls."""
    app = web.Application(middlewares=[_openai_errors], client_max_size=MAX_BODY_BYTES)
    app[API_KEY_KEY] = api_key or ""
    app[CREATED_KEY] = int(time.time())
    app[RECORDER_KEY] = recorder if recorder is not None else UsageRecorder()
    if log is not None:
        app[LOG_KEY] = log
    app.router.add_get(USAGE_PATH, _usage)
    if isinstance(served, Upstream):
        app[UPSTREAM_KEY] = served
        app.router.add_get("/health", _upstream_health)
        app.router.add_get("/v1/models", _upstream_models)
    else:
        app[SERVED_KEY] = served
        app.router.add_get("/health", _health)
        app.router.add_get("/v1/models", _models)
        app.router.add_get("/v1/models/{model_id:.+}", _model)
    app.router.add_post("/v1/chat/completions", _chat)
    return app
