"""Fixtures of the task-suite tests: the fake chat server and small suite files."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from tests.tasks.fake_llm import FakeLLM

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SUITE = ROOT / "examples" / "tasks" / "ecommerce"
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "llmevalforge"
V1 = CONFORMANCE / "v1_862b0db" / "custom_tasks"
V2 = CONFORMANCE / "v2_604cd20" / "datasets"


@pytest.fixture
def no_model_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run in an empty folder so no models.yml of the checkout applies."""
    monkeypatch.chdir(tmp_path)
    yield tmp_path


@pytest_asyncio.fixture
async def fake_llm(monkeypatch: pytest.MonkeyPatch, no_model_config: Path
                   ) -> AsyncIterator[FakeLLM]:
    """A started fake, with OPENAI_BASE_URL pointing at it (``openai:<model>`` specs)."""
    server = FakeLLM()
    await server.start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    try:
        yield server
    finally:
        await server.close()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
