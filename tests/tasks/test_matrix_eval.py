"""Matrix runs of judged task suites: several candidate models in one run against the fake
chat server — leaderboard, Pareto front, per-model files, cache, resume, matrix files."""

from __future__ import annotations

import csv
import json
import socket
from pathlib import Path

import pytest
from rich.console import Console
from tests.tasks.conftest import write
from tests.tasks.fake_llm import FakeLLM
from tests.tasks.test_cli import invoke, served  # noqa: F401 - the fixture
from tests.tasks.test_run import OPTIONS, verdict

from eunomia.api import TaskRunReport, run_tasks
from eunomia.models import load_config, resolve_spec
from eunomia.store import RunStore
from eunomia.tasks import TaskSuite, load_suites

SUITE = """\
metadata: {category: general knowledge}
test_cases:
  - {case_id: a, instruction: QUESTION-A, difficulty_level: easy}
  - {case_id: b, instruction: QUESTION-B, difficulty_level: medium}
  - {case_id: c, instruction: QUESTION-C, difficulty_level: hard}
"""
# good: best and dear; poor: worse and cheap; pricey: as poor, and dearer than good
MODELS_YML = """\
providers:
  down: {{type: openai, base_url: "{down}"}}
models:
  openai:fake-good: {{price: {{input_cost_per_million: 10, output_cost_per_million: 10}}}}
  openai:fake-poor: {{price: {{input_cost_per_million: 1, output_cost_per_million: 1}}}}
  openai:fake-pricey: {{price: {{input_cost_per_million: 50, output_cost_per_million: 50}}}}
  down:fake-poor: {{price: {{input_cost_per_million: 1, output_cost_per_million: 1}}}}
"""
GOOD, POOR = "GOOD answer, complete.", "POOR answer."


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there any more


def script(fake: FakeLLM, folder: Path, down: str | None = None) -> None:
    """Per-model answers, the judge's verdicts on them, and prices in models.yml."""
    fake.model_answers.update({"fake-good": GOOD, "fake-poor": POOR, "fake-pricey": POOR})
    fake.judge(GOOD, verdict(5)).judge(POOR, verdict(2))
    (folder / "models.yml").write_text(MODELS_YML.format(down=down or closed_port_url()),
                                       encoding="utf-8")


def suites(folder: Path) -> list[TaskSuite]:
    loaded, problems = load_suites([write(folder / "suite" / "gk.yaml", SUITE)])
    assert problems == []
    return loaded


async def run_models(models: list[str], folder: Path, name: str) -> TaskRunReport:
    config = load_config()
    return await run_tasks(
        suites(folder), candidate=[resolve_spec(m, config) for m in models],
        judge=resolve_spec("openai:fake-judge"), run_name=name, results_dir=folder / "res",
        options=OPTIONS, console=Console(quiet=True))


async def test_three_models_one_run_leaderboard_pareto_and_files(
        fake_llm: FakeLLM, tmp_path: Path) -> None:
    script(fake_llm, tmp_path)
    models = ["openai:fake-good", "openai:fake-poor", "openai:fake-pricey"]
    report = await run_models(models, tmp_path, "m")
    assert {m: fake_llm.counts[m] for m in ("fake-good", "fake-poor", "fake-pricey")} == \
        {"fake-good": 3, "fake-poor": 3, "fake-pricey": 3}
    # judged once per case and answer text: pricey's answers are poor's, from the cache
    assert fake_llm.judge_requests == 3 * 2
    board = report.leaderboard
    assert [r.target for r in board] == models  # best score first; ties keep run order
    assert [r.pareto for r in board] == [True, True, False]  # pricey: worse, dearer
    good, poor, pricey = board
    assert good.score is not None and good.score.estimate == 5.0
    assert poor.score is not None and poor.score.estimate == 2.0
    assert good.cases == 3 and good.failed == 0 and good.mean_latency_s is not None
    assert good.consistency is None  # a single repeat
    assert poor.total_cost is not None and good.total_cost is not None
    assert poor.total_cost < good.total_cost < (pricey.total_cost or 0.0)
    # the leaderboard's cost is the candidate's own: the (unpriced) judge is left out
    summary = report.summaries["openai:fake-good"]
    assert summary.candidate_cost == good.total_cost and summary.cost is None
    assert list(report.summaries) == models and report.summary is summary
    # one stored run with the three targets; files per model, nothing at the top level
    base = tmp_path / "res" / "m"
    run_file = json.loads((base / "run.json").read_text())
    assert run_file["targets"] == models
    for model, score in (("fake-good", 5), ("fake-poor", 2), ("fake-pricey", 2)):
        folder = base / f"openai_{model}"
        data = json.loads((folder / "tasks_results.json").read_text())
        assert data["candidate"] == f"openai:{model}"
        assert data["overall_mean"]["estimate"] == score
        assert (folder / "tables" / "cases.csv").read_text().count("\n") == 4
        assert (folder / "tasks" / "gk.yaml").is_file()
    assert not (base / "tables").exists()
    # the leaderboard as CSV beside run.json, same order and marks as the terminal's
    with (base / "leaderboard.csv").open(newline="", encoding="utf-8") as fh:
        csv_rows = list(csv.DictReader(fh))
    assert [r["target"] for r in csv_rows] == models
    assert [r["pareto_front"] for r in csv_rows] == ["yes", "yes", "no"]
    assert [float(r["score"]) for r in csv_rows] == [5.0, 2.0, 2.0]
    assert float(csv_rows[0]["total_cost"]) == good.total_cost
    assert csv_rows[0]["consistency"] == "" and "detection_rate" not in csv_rows[0]
    # 3 cases each: too few for an interval, so no bounds (and the CSV says why)
    assert csv_rows[0]["score_ci_low"] == "" and csv_rows[0]["score_too_few"] == "yes"
    db = RunStore(tmp_path / "res" / "eunomia.db")
    try:
        info = db.require_run("m")
        rows = list(db.iter_cases(info))
    finally:
        db.close()
    assert info.targets == models
    assert {(r.target, r.score) for r in rows} == {
        ("openai:fake-good", 5.0), ("openai:fake-poor", 2.0), ("openai:fake-pricey", 2.0)}


async def test_rerun_is_cached_per_model(fake_llm: FakeLLM, tmp_path: Path) -> None:
    script(fake_llm, tmp_path)
    first = await run_models(["openai:fake-good", "openai:fake-poor"], tmp_path, "one")
    made = fake_llm.total
    assert made == first.requests_made == 3 + 3 + 3 * 2  # candidates, judge
    again = await run_models(["openai:fake-good", "openai:fake-poor"], tmp_path, "two")
    assert fake_llm.total == made and again.requests_made == 0
    assert again.cache_hits == made
    # a new model is asked; the known one is not, and its answers' verdicts are cached
    third = await run_models(["openai:fake-poor", "openai:fake-pricey"], tmp_path, "three")
    assert fake_llm.counts["fake-pricey"] == 3 and fake_llm.counts["fake-poor"] == 3
    assert fake_llm.judge_requests == 6 and third.requests_made == 3


async def test_the_same_model_twice_is_refused(fake_llm: FakeLLM, tmp_path: Path) -> None:
    from eunomia.errors import EunomiaError

    script(fake_llm, tmp_path)
    with pytest.raises(EunomiaError, match="given twice: openai:fake-good"):
        await run_models(["openai:fake-good", "openai:fake-good"], tmp_path, "dup")
    assert fake_llm.total == 0


def test_eval_two_models_prints_the_leaderboard(served: FakeLLM, tmp_path: Path) -> None:  # noqa: F811
    script(served, tmp_path)
    write(tmp_path / "suite" / "gk.yaml", SUITE)
    code, out = invoke("eval", str(tmp_path / "suite"), "--model", "openai:fake-poor",
                       "--model", "openai:fake-good", "--judge", "openai:fake-judge",
                       "--results", str(tmp_path / "res"), "--run-name", "cli")
    assert code == 0, out
    assert "Tasks: openai:fake-poor judged by" in out and "Tasks: openai:fake-good" in out
    board = out[out.index("Leaderboard"):].splitlines()
    rows = [line for line in board if "openai:fake-" in line]
    # 3 cases: the leaderboard says too few rather than a certain-looking [5.00, 5.00]
    assert "openai:fake-good" in rows[0] and "5.00 (too few cases to tell, n=3)" in rows[0]
    assert "openai:fake-poor" in rows[1] and "2.00" in rows[1]
    assert rows[0].count("★") == 1 and rows[1].count("★") == 1  # both on the front


def test_resume_a_matrix_run_with_named_models(served: FakeLLM, tmp_path: Path) -> None:  # noqa: F811
    """One model's endpoint is down: its cases fail; --resume --retry-failed asks only it
    again, with the name and settings the matrix file gave it."""
    script(served, tmp_path)
    write(tmp_path / "suites" / "gk.yaml", SUITE)
    matrix = write(tmp_path / "plan" / "matrix.yml", """\
suites: [../suites]
models:
  - openai:fake-good
  - name: flaky
    spec: down:fake-poor
    settings: {temperature: 0.5}
judge: openai:fake-judge
retries: 0
""")
    results = str(tmp_path / "res")
    code, out = invoke("eval", "--matrix", str(matrix), "--results", results,
                       "--run-name", "mx")
    assert code == 1, out  # the flaky model's cases failed
    assert served.counts["fake-good"] == 3 and served.counts["fake-poor"] == 0
    assert (tmp_path / "res" / "mx" / "flaky" / "failures.json").is_file()
    code, out = invoke("eval", "--resume", "mx", "--results", results)
    assert code == 1 and served.counts["fake-poor"] == 0  # failed cases stay done
    script(served, tmp_path, down=served.url)  # the endpoint is back
    code, out = invoke("eval", "--resume", "mx", "--results", results, "--retry-failed")
    assert code == 0, out
    assert served.counts["fake-good"] == 3 and served.counts["fake-poor"] == 3
    flaky = [b for b in served.requests if b["model"] == "fake-poor"]
    assert {b["temperature"] for b in flaky} == {0.5}
    assert "Leaderboard" in out and "flaky" in out
    data = json.loads((tmp_path / "res" / "mx" / "flaky" / "tasks_results.json").read_text())
    assert data["candidate"] == "flaky" and data["scored"] == 3
    assert data["overall_mean"]["estimate"] == 2.0
    run_file = json.loads((tmp_path / "res" / "mx" / "run.json").read_text())
    assert run_file["targets"] == ["openai:fake-good", "flaky"]


def test_matrix_file_with_command_line_overrides(served: FakeLLM, tmp_path: Path) -> None:  # noqa: F811
    """Suites and --model add to the file's; --repeat replaces its repeat; the file's
    cases and concurrency apply where the command line says nothing."""
    script(served, tmp_path)
    write(tmp_path / "suite" / "gk.yaml", SUITE)
    matrix = write(tmp_path / "matrix.yml", """\
suites: [suite/gk.yaml]
models: [openai:fake-good]
judge: openai:fake-judge
repeat: 3
cases: [a]
concurrency: 2
max_response_mb: 3
retry_500: true
pass_score: 4.5
controls: none
""")
    code, out = invoke("eval", "--matrix", str(matrix), "--model", "openai:fake-poor",
                       "--repeat", "1", "--results", str(tmp_path / "res"), "--run-name", "o",
                       "--max-response-mb", "4", "--junit", str(tmp_path / "j.xml"))
    assert code == 0, out
    assert served.counts["fake-good"] == 1 and served.counts["fake-poor"] == 1
    db = RunStore(tmp_path / "res" / "eunomia.db")
    try:
        info = db.require_run("o")
    finally:
        db.close()
    assert info.targets == ["openai:fake-good", "openai:fake-poor"]
    assert info.settings["repeats"] == 1 and info.settings["selection"]["patterns"] == ["a"]
    assert info.settings["paths"] == [str(tmp_path / "suite" / "gk.yaml")]
    # the command line's --max-response-mb wins; the file's retry_500 applies; both are
    # kept for --resume
    assert (info.settings["max_response_mb"], info.settings["retry_500"]) == (4.0, True)
    # the file's pass score decides who passes in the CI outputs
    junit = (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert '<property name="pass_score" value="4.5"/>' in junit
    assert "controls" not in info.settings  # controls: none, as --controls none
