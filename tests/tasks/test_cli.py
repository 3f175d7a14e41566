"""``eunomia eval`` end to end against the fake chat server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.tasks.conftest import EXAMPLE_SUITE, V1, V2
from tests.tasks.fake_llm import FakeLLM
from typer.testing import CliRunner

from eunomia.api import parse_weights
from eunomia.cli import app
from eunomia.errors import EunomiaError

MODELS = ["--model", "openai:fake-candidate", "--judge", "openai:fake-judge", "--controls",
          "none"]  # eval's controls: tests/eval_controls


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, no_model_config: Path) -> Iterator[FakeLLM]:
    fake = FakeLLM()
    with fake.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("COLUMNS", "200")
        yield fake


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_eval_example_suite_then_cache_then_resume(served: FakeLLM, tmp_path: Path) -> None:
    results = tmp_path / "results"
    code, out = invoke("eval", str(EXAMPLE_SUITE), *MODELS, "--results", str(results),
                       "--run-name", "first", "--judge-repeats", "2")
    assert code == 0, out
    assert "Tasks: openai:fake-candidate judged by openai:fake-judge" in out
    assert "By kind" in out and "Judge reliability" in out and "Inference speed" in out
    assert "Latency grows by" in out
    assert (results / "first" / "tables" / "summary.csv").is_file()
    assert (results / "first" / "tasks" / "context_retention.yaml").is_file()
    made = served.total
    # 30 single-turn answers + 16 conversation turns; 30 + 6 judged turns, scored twice each
    assert made == 30 + 16 + 2 * (30 + 6)
    code, out = invoke("eval", str(EXAMPLE_SUITE), *MODELS, "--results", str(results),
                       "--run-name", "second", "--judge-repeats", "2")
    assert code == 0 and served.total == made  # every answer from the cache
    assert "answered from the cache" in out
    code, out = invoke("eval", "--resume", "first", "--results", str(results))
    assert code == 0 and served.total == made
    code, out = invoke("export", "first", "--results", str(results), "--output",
                       str(tmp_path / "again"))
    assert code == 0 and (tmp_path / "again" / "first" / "tasks_results.json").is_file()


@pytest.mark.skipif(not V1.is_dir(), reason="conformance data not present")
def test_eval_conformance_broken_files_reported_rest_runs(served: FakeLLM,
                                                         tmp_path: Path) -> None:
    code, out = invoke("eval", str(V1), str(V2), *MODELS, "--results", str(tmp_path),
                       "--run-name", "conf")
    assert code == 1
    assert out.count("invalid YAML") == 4
    assert "│ Cases" in out and "35" in out
    assert "4 problem(s) in the suite files" in out
    assert served.candidate_requests == 35


def test_eval_case_selection_and_max_cases(served: FakeLLM, tmp_path: Path) -> None:
    code, out = invoke("eval", str(EXAMPLE_SUITE), *MODELS, "--results", str(tmp_path),
                       "--case", "summarization/*", "--max-cases", "2")
    assert code == 0, out
    assert served.candidate_requests == 2


def test_eval_usage_errors(served: FakeLLM, tmp_path: Path) -> None:
    with pytest.raises(EunomiaError, match="--model"):
        invoke("eval", str(EXAMPLE_SUITE), "--results", str(tmp_path))
    with pytest.raises(EunomiaError, match="no test case matches"):
        invoke("eval", str(EXAMPLE_SUITE), *MODELS, "--case", "nothing-*")
    with pytest.raises(EunomiaError, match="no run store"):
        invoke("eval", "--resume", "x", "--results", str(tmp_path / "none"))


def test_parse_weights() -> None:
    assert parse_weights(None) == {"easy": 1.0, "medium": 2.0, "hard": 3.0}
    assert parse_weights("hard=5, easy=0.5") == {"easy": 0.5, "medium": 2.0, "hard": 5.0}
    for bad in ("hard", "extreme=2", "easy=x", "easy=-1"):
        with pytest.raises(EunomiaError):
            parse_weights(bad)


@pytest.mark.parametrize("spec", ["", "nonsense"])
def test_a_bad_model_spec_is_a_clear_error(spec: str, tmp_path: Path) -> None:
    from tests.support.cli import run_cli

    got = run_cli("eval", EXAMPLE_SUITE, "--model", spec, "--model", "openai:x",
                  "--results", tmp_path / "r", cwd=tmp_path)
    assert got.returncode == 2, got.stdout + got.stderr
    assert "Traceback" not in got.stderr
    assert f"invalid model spec {spec!r}" in " ".join(got.stderr.split())
