"""The ``http`` provider: any HTTP endpoint as a candidate model of task suites (spec
``http:<name>``, configured under ``models:`` in ``models.yml``; see docs/http-targets.md).

The body template gets the chat request's fields: ``instruction`` (the last user message),
``system_prompt``, ``messages`` (the whole conversation so far, ``[{role, content}]``),
``history`` (the conversation before the instruction, without the system prompt),
``settings`` (temperature, max_tokens, top_p, seed, stop), ``stream`` (true when the case
measures the time to the first token), ``json_schema`` and ``name``. The answer is read at
the ``answer`` JSONPath (in every server-sent event, the pieces joined), or is the whole
body with ``format: text``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from eunomia.errors import EunomiaError
from eunomia.models._http_client import HttpClient, Received, short
from eunomia.models._http_config import HttpEndpoint
from eunomia.models._http_template import find_all
from eunomia.models._json import JSONExtractionError, parse_json_answer
from eunomia.models._types import ChatRequest, ChatResult, Usage
from eunomia.scheduler import CallError


def task_context(request: ChatRequest, name: str) -> dict[str, Any]:
    """What a body template gets for one chat request."""
    messages = [m.model_dump() for m in request.messages]
    users = [i for i, m in enumerate(request.messages) if m.role == "user"]
    last = users[-1] if users else len(messages)
    return {
        "instruction": request.messages[last].content if users else "",
        "system_prompt": "\n\n".join(m.content for m in request.messages
                                     if m.role == "system"),
        "messages": messages,
        "history": [m for m in messages[:last] if m["role"] != "system"],
        "settings": request.settings.model_dump(mode="json"),
        "stream": request.stream,
        "json_schema": request.json_schema,
        "name": name,
    }


class HttpProvider:
    """A chat model behind any HTTP endpoint (an app route, a custom JSON API...)."""

    def __init__(self, endpoint: HttpEndpoint, name: str, *,
                 environ: Mapping[str, str] | None = None) -> None:
        """``name`` is the spec (``http:myapp``). Raises :class:`EunomiaError` when the
        endpoint cannot answer task cases or a header's environment variable is not set."""
        problems = endpoint.check_use(name, "tasks")
        if problems:
            raise EunomiaError("; ".join(problems))
        self.endpoint = endpoint
        self.client = HttpClient(endpoint, name, environ=environ)
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def cache_across_runs(self) -> bool:
        """Whether a later run may reuse this system's cached answers (``cache_across_runs``
        in its config; off by default: what is behind a URL changes without the config
        changing)."""
        return self.endpoint.cache_across_runs

    @property
    def cache_identity(self) -> str:
        """What about this system changes its answers (URL, method, templates, paths; no
        header value from the environment): to be part of its cache keys."""
        return json.dumps({"model": self._name, "http": self.endpoint.identity()},
                          sort_keys=True, default=str)

    def request_body(self, request: ChatRequest) -> bytes:
        """The request as it is sent (method, URL, query, body), for tests and debugging."""
        body, query = self.client.render(task_context(request, self._name))
        return self.client.describe(body, query)

    async def chat(self, request: ChatRequest) -> ChatResult:
        body, query = self.client.render(task_context(request, self._name))
        received = await self.client.send(body, query)
        text, ttft = self._answer(received)
        docs = received.documents
        records = self.client.tokens(docs)
        usage = Usage(
            input_tokens=sum(r.input_tokens for r in records),
            output_tokens=sum(r.output_tokens for r in records),
            cached_input_tokens=sum(r.cached_input_tokens for r in records))
        models = {r.model for r in records if r.model}
        reported = self.client.last_value(self.endpoint.model, docs)
        model = str(reported) if reported is not None else \
            (models.pop() if len(models) == 1 else self._name)
        cost = self.client.cost(docs)  # checked: finite, at least 0
        parsed: Any | None = None
        if request.json_schema is not None:
            try:
                parsed = parse_json_answer(text, request.json_schema)
            except JSONExtractionError as exc:
                raise self.client.fail(f"{self._name}: {exc}", retryable=False,
                                       answer_text=text) from None
        return ChatResult(text=text, parsed=parsed, usage=usage, latency_s=received.latency_s,
                          time_to_first_token_s=ttft, model=model, reported_cost=cost)

    def _answer(self, received: Received) -> tuple[str, float | None]:
        """The answer text and the time to its first piece (server-sent events only)."""
        if received.kind == "text":
            return received.text, None
        path = self.endpoint.answer
        assert path is not None  # checked when built
        if received.kind == "json":
            found = [v for v in find_all(path, received.payload) if v is not None]
            if not found:
                raise self._nothing(path, f"the response: {short(received.payload)}")
            return self._text(found, path), None
        pieces: list[str] = []
        first: float | None = None
        matched = False
        for event in received.events:
            if isinstance(event.data, str):
                continue  # not JSON: a keep-alive or a status line
            found = [v for v in find_all(path, event.data) if v is not None]
            if not found:
                continue
            matched = True
            piece = self._text(found, path)
            if piece and first is None:
                first = event.at
            pieces.append(piece)
        if not matched:
            shown = short([e.data for e in received.events[:3]])
            raise self._nothing(path, f"any of the {len(received.events)} events: {shown}")
        return "".join(pieces), None if first is None else first - received.started

    def _nothing(self, path: str, where: str) -> CallError:
        return self.client.fail(f"{self._name}: the answer path {path} found nothing (or "
                                f"only null) in {where}", retryable=False)

    def _text(self, found: list[Any], path: str) -> str:
        parts = []
        for value in found:
            if isinstance(value, str):
                parts.append(value)
            elif isinstance(value, bool | int | float):
                parts.append(json.dumps(value))
            else:
                raise self.client.fail(
                    f"{self._name}: the answer path {path} found "
                    f"{'an object' if isinstance(value, dict) else 'a list'}, not text: "
                    f"{short(value)}", retryable=False)
        return "".join(parts)

    async def close(self) -> None:
        await self.client.close()
