"""Fixtures shared by the test folders: the scripted Athena stand-in and scenario copies."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "scenarios"

try:  # ``tests`` is importable under pytest's importlib mode; make sure of it.
    import tests.support.scripted_server  # noqa: F401
except ModuleNotFoundError:  # pragma: no cover - depends on how pytest was started
    sys.path.insert(0, str(ROOT))

from tests.support.scripted_server import ScriptedServer  # noqa: E402

pytest_plugins = ["tests.support.browser"]  # the headless-Chromium fixtures: browser, page


@pytest_asyncio.fixture
async def scripted_server() -> AsyncIterator[ScriptedServer]:
    """A started :class:`ScriptedServer`; script it in the test (``server.script(...)``)."""
    server = ScriptedServer()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
def examples_copy(tmp_path: Path) -> Path:
    """A private copy of ``examples/scenarios`` (scenario + llm_cost.yml) to modify freely."""
    dest = tmp_path / "scenarios"
    shutil.copytree(EXAMPLES, dest, ignore=shutil.ignore_patterns("_generate.py", "__pycache__"))
    return dest


@pytest.fixture
def threaded_server() -> Iterator[ScriptedServer]:
    """A :class:`ScriptedServer` served from a background thread (for subprocess tests)."""
    server = ScriptedServer()
    with server.in_thread():
        yield server
