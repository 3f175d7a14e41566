"""Fixtures of the judge-check tests: scripted judges and the command line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from tests.judge_check.scripted_judge import ScriptedJudge
from typer.testing import CliRunner

from eunomia.kinds import Selection
from eunomia.kinds._task_suites import selected
from eunomia.tasks import load_suites

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SUITE = ROOT / "examples" / "tasks" / "ecommerce"


def ten_case_suite(folder: Path, name: str = "summarization") -> Path:
    """An example suite with its cases twice (ids ``-b`` the second time): 10 cases, the
    fewest an AUC's interval and a verdict need (``defaults.MIN_CASES_FOR_INTERVAL``)."""
    import yaml

    data = yaml.safe_load((EXAMPLE_SUITE / f"{name}.yaml").read_text(encoding="utf-8"))
    data["test_cases"] += [{**c, "case_id": f"{c['case_id']}-b",  # asked anew, not cached
                            "instruction": f"{c['instruction']}\n(Asked again.)"}
                           for c in data["test_cases"]]
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def cli_app() -> typer.Typer:
    """The ``eunomia`` command."""
    from eunomia.cli import app

    return app


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli_app(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


@pytest.fixture
def judges(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ScriptedJudge]:
    """Scripted judges (``openai:<rule>``) served from a thread; run in an empty folder so
    no models.yml of the checkout applies."""
    monkeypatch.chdir(tmp_path)
    fake = ScriptedJudge()
    with fake.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("COLUMNS", "200")
        yield fake


def answers_of(path: Path) -> int:
    """How many answers judge-check builds for the checkable cases of the suites at ``path``
    (the five easy ones each, and the answers that look right and are wrong that each case
    allows: their number depends on the case, tests/controls checks which are built)."""
    return sum(len(answers) for suite in load_suites([path])[0] for _, answers in
               selected(suite, Selection()))
