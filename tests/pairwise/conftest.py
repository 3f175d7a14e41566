"""Fixtures of the pairwise tests: scripted candidates and judges, the command line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pairwise.scripted import Scripted, references
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SUITE = ROOT / "examples" / "tasks" / "ecommerce"


def invoke(*args: str | Path) -> tuple[int, str]:
    """``eunomia ARGS`` in this process; a user error (exit code 2) is raised."""
    from eunomia.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Scripted]:
    """The scripted server (``openai:<model>``), its oracle knowing the example suites'
    references; run in an empty folder so no models.yml of the checkout applies."""
    monkeypatch.chdir(tmp_path)
    server = Scripted(references(*sorted(EXAMPLE_SUITE.glob("*.yaml"))))
    with server.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("COLUMNS", "200")
        yield server
