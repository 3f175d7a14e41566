"""What the server answers, in OpenAI's shapes: completions, stream chunks, the model list,
usage and errors (``{"error": {"message", "type", "param", "code"}}``)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web
from pydantic import ValidationError

from eunomia.models import Usage

OWNER = "eunomia"
"""``owned_by`` of every listed model."""


def new_completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"


def json_response(body: Any, status: int = 200,
                  headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, headers=headers,
                        content_type="application/json")


def error_body(message: str, *, kind: str = "invalid_request_error", param: str | None = None,
               code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_response(status: int, message: str, *, kind: str = "invalid_request_error",
                   param: str | None = None, code: str | None = None,
                   headers: dict[str, str] | None = None) -> web.Response:
    return json_response(error_body(message, kind=kind, param=param, code=code), status,
                         headers)


def _loc(loc: tuple[int | str, ...]) -> str:
    """``("messages", 0, "role")`` → ``messages[0].role``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def invalid_body(exc: ValidationError) -> web.Response:
    """400 naming the first bad parameter (``param``) and every problem in the message."""
    problems = []
    for err in exc.errors(include_url=False):
        where = _loc(tuple(err["loc"])) or "body"
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unrecognized request argument"
        problems.append((where, msg))
    message = "; ".join(f"{where}: {msg}" for where, msg in problems)
    return error_response(400, f"Invalid request: {message}", param=problems[0][0])


def usage_body(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_input_tokens},
    }


@dataclass(frozen=True, slots=True)
class Completion:
    """The fields every completion and chunk of one answer share."""

    model: str
    fingerprint: str
    id: str = field(default_factory=new_completion_id)
    created: int = field(default_factory=lambda: int(time.time()))

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model,
                "system_fingerprint": self.fingerprint}

    def body(self, text: str, finish_reason: str | None, usage: Usage) -> dict[str, Any]:
        """The ``chat.completion`` answer."""
        return {
            **self._head("chat.completion"),
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason or "stop",
            }],
            "usage": usage_body(usage),
        }

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None, *,
              with_usage_field: bool = False) -> dict[str, Any]:
        """A ``chat.completion.chunk`` with one choice (``usage: null`` when the client asked
        for usage at the end, as OpenAI sends it)."""
        body = {
            **self._head("chat.completion.chunk"),
            "choices": [{"index": 0, "delta": delta, "logprobs": None,
                         "finish_reason": finish_reason}],
        }
        if with_usage_field:
            body["usage"] = None
        return body

    def usage_chunk(self, usage: Usage) -> dict[str, Any]:
        """The last chunk of a stream with ``stream_options.include_usage``: no choice."""
        return {**self._head("chat.completion.chunk"), "choices": [], "usage": usage_body(usage)}


def model_entry(model_id: str, created: int) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": OWNER}


def models_body(ids: list[str], created: int) -> dict[str, Any]:
    return {"object": "list", "data": [model_entry(i, created) for i in ids]}


def sse(payload: Any) -> bytes:
    """One server-sent event: ``data: <json>`` and a blank line."""
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    return b"data: " + data + b"\n\n"


SSE_DONE = b"data: [DONE]\n\n"
