"""Reading an answer's body with a size limit: a system under test that answers 50 MB (or an
endless stream) fails its case with a reason naming the limit, and never fills memory.

The limit is an operational setting of the attempt, like its timeout:
:attr:`eunomia.scheduler.RetryPolicy.max_response_bytes` (default
:data:`eunomia.defaults.MAX_RESPONSE_BYTES`, 10 MB; on the command line ``--max-response-mb``).
:func:`~eunomia.scheduler.call_with_retry` puts it in force for the attempts it makes
(a context variable, so it reaches every target and provider, also on a Ray worker, without
being threaded through them); outside one, the default applies.

A body is read in the pieces the connection delivers: an answer whose ``Content-Length`` is
over the limit is refused before anything is read, one without (chunked, or a stream of
server-sent events) as soon as its bytes pass the limit; the connection is then closed, not
drained. An error page is read up to :data:`eunomia.defaults.ERROR_BODY_BYTES` only (its start
is all a reason shows).
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator
from contextvars import ContextVar

import aiohttp

from eunomia import defaults
from eunomia.scheduler._errors import CallError

_LIMIT: ContextVar[int | None] = ContextVar("eunomia_response_limit", default=None)
_READ_AT_ONCE = 1_000_000
"""Bodies of at most this many declared bytes are read in one call (faster per answer)."""


def response_limit() -> int:
    """The largest body, in bytes, the attempt being made may read."""
    limit = _LIMIT.get()
    return defaults.MAX_RESPONSE_BYTES if limit is None else limit


def limit_responses(limit: int | None) -> object:
    """Put ``limit`` in force in this context (None: the default); a token for
    :func:`restore_limit`."""
    return _LIMIT.set(limit)


def restore_limit(token: object) -> None:
    _LIMIT.reset(token)  # type: ignore[arg-type]


def size_text(size: int) -> str:
    """``10 MB``, ``1.5 MB``, ``800 KB``, ``512 bytes`` (decimal units, as the limit is set)."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.4g} MB"
    if size >= 1_000:
        return f"{size / 1_000:.4g} KB"
    return f"{size} bytes"


def too_large(what: str, limit: int, declared: int | None = None) -> CallError:
    """The failure of an answer over ``limit`` bytes (``declared``: its Content-Length);
    ``what`` (the system's name) begins the reason when given."""
    got = (f"its Content-Length is {declared:,} bytes" if declared is not None
           else f"more than {limit:,} bytes came")
    return CallError(
        f"{what + ': ' if what else ''}the answer is larger than the {size_text(limit)} "
        f"response limit ({got}); "
        f"the rest was not read. If answers this large are expected, raise the limit: "
        f"{defaults.MAX_RESPONSE_OPTION} <megabytes>",
        retryable=False, label=f"answer over {size_text(limit)}")


async def read_body(response: aiohttp.ClientResponse, what: str) -> bytes:
    """The whole body of ``response``, at most :func:`response_limit` bytes; a
    :class:`CallError` (not retried: the same answer would come again) past it. ``what``
    names the system in the reason."""
    limit = response_limit()
    declared = response.content_length
    if declared is not None and declared > limit:
        response.close()
        raise too_large(what, limit, declared)
    if declared is not None and declared <= _READ_AT_ONCE:
        # a small answer, and the connection delivers no more than it declares: at once
        # (aiohttp joins a large body's pieces into a second copy: those are read below)
        return await response.read()
    body = bytearray()  # one buffer grown in place: no pieces to fragment the heap
    async for chunk in capped(response, what, limit):
        body += chunk
    return bytes(body)


async def capped(response: aiohttp.ClientResponse, what: str,
                 limit: int | None = None) -> AsyncIterator[bytes]:
    """The body's pieces as they arrive (a stream of events is read this way), failing as
    :func:`read_body` does once they add up to more than the limit."""
    limit = response_limit() if limit is None else limit
    declared = response.content_length
    if declared is not None and declared > limit:
        response.close()
        raise too_large(what, limit, declared)
    total = 0
    async for chunk in response.content.iter_any():
        total += len(chunk)
        if total > limit:
            response.close()
            raise too_large(what, limit)
        yield chunk


async def read_start(response: aiohttp.ClientResponse,
                     size: int = defaults.ERROR_BODY_BYTES) -> bytes:
    """The first ``size`` bytes of the body (an error page: only its start is shown); the
    rest is not read (the connection is closed when there is more)."""
    out = bytearray()
    try:
        while len(out) < size:
            chunk = await response.content.read(size - len(out))
            if not chunk:
                return bytes(out)
            out += chunk
    except aiohttp.ClientError:
        return bytes(out)  # what came before the connection broke
    if not response.content.at_eof():
        response.close()
    return bytes(out)


def charset_of(response: aiohttp.ClientResponse) -> str:
    """The answer's declared charset if Python knows it, else UTF-8 (JSON's). Not aiohttp's
    ``get_encoding()``: a body read in pieces leaves it nothing to guess from."""
    charset = response.charset or "utf-8"
    try:
        codecs.lookup(charset)
    except LookupError:
        return "utf-8"
    return charset
