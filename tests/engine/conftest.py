"""Fixtures of the engine tests: the example scenario and the fake chat server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from tests.engine.fake_chat import EXAMPLE, FakeChatServer

from eunomia.scenarios import Scenario, load_scenario


@pytest.fixture(scope="session")
def example_scenario() -> Scenario:
    scenario, diagnostics = load_scenario(EXAMPLE)
    assert scenario is not None, diagnostics
    return scenario


@pytest_asyncio.fixture
async def fake_chat(
    example_scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[FakeChatServer]:
    """A started fake, with OPENAI_BASE_URL pointing at it (``get_model("openai:...")``)."""
    server = FakeChatServer(example_scenario)
    await server.start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-secret")
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
def no_model_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run in an empty folder so no models.yml of the checkout applies."""
    monkeypatch.chdir(tmp_path)
    yield tmp_path
