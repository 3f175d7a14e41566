"""Relaying to another OpenAI-compatible endpoint (``eunomia serve-model --upstream URL``),
metered: the request goes upstream as the client sent it, the answer comes back as the
upstream gave it, and the server records the call (model, tokens, times) like its own.

Two changes only, both to measure: a request for one of the ``--alias`` ids is sent for the
upstream model they stand for (``--model``); a streamed request that did not ask for usage
asks for it upstream (``stream_options.include_usage``), and the usage-only last chunk this
adds is not passed on (the other chunks then carry ``"usage": null``, as OpenAI sends them
to a client that asked). The upstream's API key comes from the environment, goes into the
``Authorization`` header of upstream requests only, and is never stored, logged or shown.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp import web

from eunomia import defaults
from eunomia.bounds import check_url
from eunomia.errors import EunomiaError, redact
from eunomia.model_server._note import CallNote
from eunomia.model_server._replies import error_response, json_response, model_entry
from eunomia.models import Usage
from eunomia.scheduler import CallError, read_body

_HOP_HEADERS = {"content-length", "transfer-encoding", "connection", "keep-alive",
                "content-encoding"}
_CONNECT_TIMEOUT_S = 30.0


def _usage(payload: Any) -> Usage | None:
    """OpenAI's ``usage`` object, if the payload has a valid one."""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not (isinstance(prompt, int) and isinstance(completion, int)) or isinstance(
            prompt, bool) or isinstance(completion, bool) or prompt < 0 or completion < 0:
        return None
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    cached = cached if isinstance(cached, int) and not isinstance(cached, bool) else 0
    return Usage(input_tokens=prompt, output_tokens=completion,
                 cached_input_tokens=max(0, min(cached, prompt)))


class Upstream:
    """An OpenAI-compatible endpoint behind the server: its models, and ``aliases`` that
    stand for its ``model`` (for a client that keeps only some ids, e.g. ones with "gpt")."""

    local = None
    """Never an in-process model (the server's start-up reads this)."""

    def __init__(self, base_url: str, *, api_key: str | None = None, model: str | None = None,
                 aliases: Sequence[str] = ()) -> None:
        try:
            check_url(base_url)
        except ValueError as exc:
            raise EunomiaError(f"--upstream: {exc}") from None
        self.base_url = base_url.rstrip("/")
        if aliases and not model:
            raise EunomiaError("--alias with --upstream needs --model: the upstream model the "
                               "aliases stand for")
        self.model = model
        self.aliases = tuple(dict.fromkeys(aliases))
        self._key = api_key or None
        self._session: aiohttp.ClientSession | None = None
        parts = urlsplit(self.base_url)
        self.spec = f"upstream:{parts.scheme}://{parts.netloc}{parts.path}"
        """What the server says it serves (the URL without credentials or query)."""
        self.ids: tuple[str, ...] = self.aliases

    def knows(self, model_id: str) -> bool:
        return True  # the upstream decides

    def upstream_model(self, model_id: str) -> str:
        return self.model if model_id in self.aliases and self.model else model_id

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", **(extra or {})}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _hide(self, text: str) -> str:
        return redact(text, [self._key or ""])

    async def load(self) -> None:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(
                total=None, sock_connect=_CONNECT_TIMEOUT_S))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _session_(self) -> aiohttp.ClientSession:
        await self.load()
        assert self._session is not None
        return self._session

    async def models(self) -> web.Response:
        """The upstream's model list with the aliases added (first)."""
        session = await self._session_()
        try:
            async with session.get(self.base_url + "/models", headers=self._headers()) as r:
                status, body = r.status, await read_body(r, "the upstream's GET /models")
        except CallError as exc:  # an answer over the response limit
            return error_response(502, exc.reason, kind="server_error", code="upstream_error")
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            return error_response(502, self._hide(f"the upstream {self.base_url} cannot be "
                                                  f"reached: {exc or type(exc).__name__}"),
                                  kind="server_error", code="upstream_error")
        if status != 200:
            return web.Response(body=body, status=status, content_type="application/json")
        try:
            listing = orjson.loads(body)
            data = list(listing["data"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return error_response(502, "the upstream's GET /models is not OpenAI's model list",
                                  kind="server_error", code="upstream_error")
        listed = {m.get("id") for m in data if isinstance(m, dict)}
        added = [model_entry(a, 0) for a in self.aliases if a not in listed]
        return json_response({**listing, "data": [*added, *data]})

    async def chat(self, request: web.Request, note: CallNote) -> web.StreamResponse:
        """Relay one chat completion; ``note`` is filled for the record."""
        raw = await request.read()
        try:
            payload = orjson.loads(raw)
        except orjson.JSONDecodeError:
            payload = None
        if not isinstance(payload, dict):
            return error_response(400, "The body of the request must be a JSON object.")
        note.model = str(payload.get("model") or "")
        note.streamed = payload.get("stream") is True
        changed = dict(payload)
        changed["model"] = self.upstream_model(note.model)
        strip_usage = False
        options = payload.get("stream_options")
        if note.streamed and not (isinstance(options, dict) and options.get("include_usage")):
            changed["stream_options"] = {**(options if isinstance(options, dict) else {}),
                                         "include_usage": True}
            strip_usage = True
        body = raw if changed == payload else orjson.dumps(changed)
        session = await self._session_()
        headers = self._headers({"Content-Type": "application/json"})
        if note.streamed:
            headers["Accept"] = "text/event-stream"
        try:
            upstream = await session.post(self.base_url + "/chat/completions", data=body,
                                          headers=headers)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            note.usage = Usage()  # nothing reached the upstream
            note.error = self._hide(f"cannot reach the upstream: {exc or type(exc).__name__}")
            return error_response(502, note.error, kind="server_error", code="upstream_error")
        try:
            if note.streamed and upstream.status == 200:
                return await self._stream(request, upstream, note, strip_usage)
            try:
                answer = await read_body(upstream, "the upstream")
            except CallError as exc:  # over the response limit: not read, not relayed
                note.usage = None
                note.error = exc.reason
                note.finish(502)
                return error_response(502, exc.reason, kind="server_error",
                                      code="upstream_error")
            try:
                decoded = orjson.loads(answer)
            except orjson.JSONDecodeError:
                decoded = None
            note.usage = _usage(decoded)
            if isinstance(decoded, dict) and isinstance(decoded.get("model"), str):
                note.answered_by = decoded["model"]
            if upstream.status >= 400:
                note.error = self._hide(answer[:300].decode("utf-8", errors="replace"))
            headers_out = {k: v for k, v in upstream.headers.items()
                           if k.lower() not in _HOP_HEADERS}
            note.finish(upstream.status)
            return web.Response(body=answer, status=upstream.status, headers=headers_out)
        finally:
            upstream.release()

    async def _stream(self, request: web.Request, upstream: aiohttp.ClientResponse,
                      note: CallNote, strip_usage: bool) -> web.StreamResponse:
        headers = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_HEADERS}
        response = web.StreamResponse(status=upstream.status, headers=headers)
        await response.prepare(request)
        skip_blank = False
        try:
            async for line in upstream.content:
                if skip_blank and not line.strip():
                    skip_blank = False
                    continue
                skip_blank = False
                if line.startswith(b"data: {"):
                    try:
                        event = orjson.loads(line[6:])
                    except orjson.JSONDecodeError:
                        event = None
                    if isinstance(event, dict):
                        if isinstance(event.get("model"), str):
                            note.answered_by = event["model"]
                        usage = _usage(event)
                        if usage is not None:
                            note.usage = usage
                            if strip_usage and not event.get("choices"):
                                skip_blank = True
                                continue  # the usage chunk the client did not ask for
                        if "error" in event:
                            note.error = self._hide(str(event["error"])[:300])
                await response.write(line)
        except (TimeoutError, aiohttp.ClientError) as exc:
            note.error = self._hide(f"the upstream's stream broke: {exc or type(exc).__name__}")
            note.usage = None
        note.finish(200)
        await response.write_eof()
        return response


def relayed(url: str, key_env: str, model: str, aliases: Sequence[str],
            json_object_schema: object | None = None) -> Upstream:
    """The :class:`Upstream` ``eunomia serve-model --upstream`` serves: its key read from
    ``key_env`` (may be unset: no key sent); ``model`` the upstream model the aliases stand
    for (the ``--model`` default, ``local``, means none)."""
    if json_object_schema is not None:
        raise EunomiaError("--json-object-schema applies to a served model, not to --upstream "
                           "(the upstream answers as it answers)")
    key = os.environ.get(key_env, "").strip() or None
    upstream_model = None if model == defaults.MODEL_SPEC else model
    return Upstream(url, api_key=key, model=upstream_model, aliases=aliases)
