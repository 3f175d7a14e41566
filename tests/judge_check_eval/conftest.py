"""Fixtures of the ``eval --judge-check`` tests: the scripted judges of the judge-check
tests (an OpenAI-compatible server on 127.0.0.1, the outside world) and the command line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.judge_check.scripted_judge import ScriptedJudge


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ScriptedJudge]:
    """Scripted judges (``openai:overlap``, ``openai:constant``...) and the candidate
    ``openai:parrot``, served from a thread; run in an empty folder so no models.yml of the
    checkout applies."""
    monkeypatch.chdir(tmp_path)
    fake = ScriptedJudge()
    fake.parrot_says = "Our kettle is great and ships tomorrow."  # not a controlled answer
    with fake.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        monkeypatch.setenv("COLUMNS", "200")
        yield fake
