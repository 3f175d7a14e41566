"""Reading a model server's record of calls over HTTP (``GET /eunomia/usage``)."""

from __future__ import annotations

import ipaddress
import os
import time
from urllib.parse import urlsplit, urlunsplit

import aiohttp
from pydantic import ValidationError

from eunomia.bounds import check_url
from eunomia.errors import EunomiaError, redact
from eunomia.metering._calls import USAGE_PATH, UsagePage

KEY_ENV = "EUNOMIA_LLM_USAGE_KEY"
"""The API key of a model server started with ``--api-key-env`` (its usage record needs it)."""
_TIMEOUT_S = 30.0
_PROBES = 3


def usage_url(url: str) -> str:
    """The usage endpoint of a model server given by any of its URLs: its base
    (``http://127.0.0.1:8000``), its OpenAI base (``.../v1``) or the endpoint itself."""
    try:
        check_url(url)
    except ValueError as exc:
        raise EunomiaError(f"--llm-usage: {exc}") from None
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith(USAGE_PATH):
        path = path.removesuffix("/v1") + USAGE_PATH
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class UsageSource:
    """One model server's usage record, read page by page from a cursor.

    The server's clock may differ from this machine's: on a loopback address it is the same
    clock (offset 0); otherwise :meth:`open` estimates the offset from the server's ``now``
    (best of a few round trips) and :attr:`uncertainty` is half that round trip.
    """

    def __init__(self, url: str, *, api_key: str | None = None) -> None:
        self.url = usage_url(url)
        self._key = api_key if api_key is not None else os.environ.get(KEY_ENV) or None
        self._session: aiohttp.ClientSession | None = None
        self.offset = 0.0
        """Server clock minus this machine's clock, in seconds."""
        self.uncertainty = 0.0
        self.same_clock = _loopback(self.url)
        self.server_started_at: float | None = None

    async def open(self) -> int:
        """Connect, measure the clocks, and return the server's cursor (calls up to it are
        not this run's)."""
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=_TIMEOUT_S))
        best: tuple[float, float, int] | None = None
        for _ in range(1 if self.same_clock else _PROBES):
            sent = time.time()
            page = await self._get({"after": str(2**62)})
            got = time.time()
            round_trip = got - sent
            if best is None or round_trip < best[0]:
                best = (round_trip, page.now - (sent + got) / 2, page.last_seq)
            self.server_started_at = page.started_at
        assert best is not None
        if not self.same_clock:
            self.offset, self.uncertainty = best[1], best[0] / 2
        return best[2]

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def server_time(self, local: float) -> float:
        """A time of this machine's clock in the server's."""
        return local + self.offset

    async def after(self, cursor: int) -> UsagePage:
        """Every call recorded after ``cursor`` (all pages), as one page."""
        calls = []
        dropped = 0
        while True:
            page = await self._get({"after": str(cursor)})
            self._check_restart(page)
            calls.extend(page.calls)
            dropped += page.dropped
            cursor = max(cursor, page.last_seq)
            if not page.more:
                return page.model_copy(update={"calls": calls, "dropped": dropped,
                                               "last_seq": cursor, "more": False})

    def _check_restart(self, page: UsagePage) -> None:
        if self.server_started_at is not None and page.started_at != self.server_started_at:
            raise EunomiaError(f"the model server at {self.url} restarted during the run: its "
                               "record of calls began again, and the calls before the restart "
                               "are lost")

    async def _get(self, query: dict[str, str]) -> UsagePage:
        if self._session is None:
            await self.open()
        assert self._session is not None
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        try:
            async with self._session.get(self.url, params=query, headers=headers) as response:
                body = await response.read()
                status = response.status
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise EunomiaError(f"cannot read the LLM usage record at {self.url}: "
                               f"{redact(str(exc) or type(exc).__name__)}") from None
        if status == 401:
            raise EunomiaError(f"{self.url} answered 401: the model server needs its API key; "
                               f"give it in ${KEY_ENV}")
        if status == 404:
            raise EunomiaError(f"{self.url} answered 404: not an `eunomia serve-model` that "
                               "records its calls (GET /eunomia/usage)")
        if status != 200:
            raise EunomiaError(f"{self.url} answered HTTP {status}: "
                               f"{body[:200].decode('utf-8', errors='replace')}")
        try:
            return UsagePage.model_validate_json(body)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "<body>"
            raise EunomiaError(f"{self.url}: the usage record has the wrong shape: {where}: "
                               f"{first['msg']}") from None
