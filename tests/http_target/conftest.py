"""The fake apps of docs/http-targets.md, served once per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.http_target.fake_apps import APP_KEY, BOT_KEY, GATEWAY_KEY, FakeApps


@pytest.fixture(scope="module")
def apps() -> Iterator[FakeApps]:
    server = FakeApps(app_key=APP_KEY, bot_key=BOT_KEY, gateway_key=GATEWAY_KEY)
    with server.in_thread():
        yield server
