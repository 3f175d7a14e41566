"""``eunomia run --matrix`` and ``eunomia eval --matrix``: a scenario matrix end to end, and bad
matrix files rejected with exit code 2, naming the file, the key path and the line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.support.scripted_server import ScriptedServer, feedback_reply, usage
from typer.testing import CliRunner

from eunomia.cli import app, main
from eunomia.store import RunStore


def test_run_matrix_file_two_targets_leaderboard(
        threaded_server: ScriptedServer, examples_copy: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in example module against a module that returns no feedback at all."""
    monkeypatch.setenv("COLUMNS", "200")
    threaded_server.default = feedback_reply([], llm_requests=[usage("gpt-4o", 100, 10)])
    silent = f"athena:{threaded_server.url}"
    plan = tmp_path / "plan"
    plan.mkdir()
    matrix = plan / "matrix.yml"
    matrix.write_text(f"scenarios: [../scenarios]\ntargets: [example, '{silent}']\n"
                      "max_cases: 3\nrepeat: 2\n", encoding="utf-8")
    results = tmp_path / "res"
    got = CliRunner().invoke(app, ["run", "--matrix", str(matrix), "--repeat", "1",
                                   "--results", str(results), "--run-name", "mx"])
    assert got.exit_code == 0, got.output
    assert len(threaded_server.requests) == 3  # max_cases from the file, --repeat 1 wins
    board = got.output[got.output.index("Leaderboard"):].splitlines()
    rows = [line for line in board if "example" in line or "athena:" in line]
    assert "example" in rows[0] and "★" in rows[0]
    assert "athena:" in rows[1] and "★" not in rows[1]  # worse, and not cheaper
    assert (results / "mx" / "example" / "project_management" / "tables").is_dir()
    assert len(list((results / "mx").glob("athena_*/project_management/tables"))) == 1
    db = RunStore(results / "eunomia.db")
    try:
        info = db.require_run("mx")
    finally:
        db.close()
    assert info.targets == ["example", silent]
    assert info.settings["repeats"] == 1 and info.settings["selection"]["max_cases"] == 3
    assert info.settings["paths"] == [str(plan / ".." / "scenarios")]
    run_file = json.loads((results / "mx" / "run.json").read_text())
    assert run_file["targets"] == ["example", silent]
    board_csv = (results / "mx" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()
    assert board_csv[0].startswith("rank,target,pareto_front,score,score_ci_low,")
    assert "detection_rate" in board_csv[0]
    assert board_csv[1].startswith("1,example,yes,") and board_csv[2].startswith(f"2,{silent},no,")
    # `eunomia export` writes the same file again from the store
    (results / "mx" / "leaderboard.csv").unlink()
    again = CliRunner().invoke(app, ["export", "mx", "--results", str(results)])
    assert again.exit_code == 0, again.output
    assert (results / "mx" / "leaderboard.csv").read_text(encoding="utf-8").splitlines() == \
        board_csv


def _main(args: list[str], monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The installed ``eunomia`` entry point, in this process."""
    monkeypatch.setattr(sys, "argv", ["eunomia", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    captured = capsys.readouterr()
    return int(stop.value.code or 0), captured.out + captured.err


BAD_FILES = [
    ("eval", "suites: [s]\nmodels: [openai:x]\nmodles: [openai:y]\n",
     "matrix.yml:3 [modles]", "unknown key (known: "),
    ("eval", "suites: [s]\nmodels: [openai:x]\nrepeat: many\n",
     "matrix.yml:3 [repeat]", "valid integer"),
    ("eval", "suites: [s]\nmodels:\n  - openai:x\n  - nonsense\n",
     "matrix.yml:4 [models[1]]", "unknown model spec: invalid model spec 'nonsense'"),
    ("eval", "suites: [s]\nmodels:\n  - {name: n, spec: 'nope:x'}\n",
     "matrix.yml:3 [models[0].spec]", "unknown provider 'nope'"),
    ("eval", "suites: [s]\nmodels:\n  - {spec: openai:x, settings: {temperature: hot}}\n",
     "matrix.yml:3 [models[0].settings.temperature]", "valid number"),
    ("eval", "suites: [s, nowhere]\nmodels: [openai:x]\n",
     "matrix.yml:1 [suites[1]]", "no such file or folder"),
    ("eval", "suites: [s]\nmodels: [openai:x, {spec: openai:x}]\n",
     "matrix.yml:2 [models[1]]", "listed twice (also models[0])"),
    ("eval", "scenarios: [s]\ntargets: [example]\n",
     "matrix.yml:1 [scenarios]", "run the file with 'eunomia run --matrix'"),
    ("run", "scenarios: [s]\ntargets:\n  - example\n  - bogus\n",
     "matrix.yml:4 [targets[1]]", "unknown target 'bogus'"),
    ("run", "scenarios: [s]\ntargets: example\n",
     "matrix.yml:2 [targets]", "valid list"),
    ("run", "scenarios: [s]\nmodels: [openai:x]\n",
     "matrix.yml:2 [models]", "run the file with 'eunomia eval --matrix'"),
    ("run", "scenarios: [s]\ntargets: [example, example]\n",
     "matrix.yml:2 [targets[1]]", "listed twice"),
    ("run", "scenarios: [s]\ntargets: [example]\nmax_response_mb: 1e999\n",
     "matrix.yml:3 [max_response_mb]", "finite number"),
    ("eval", "suites: [s]\nmodels: [openai:x]\nmax_response_mb: 0\n",
     "matrix.yml:3 [max_response_mb]", "greater than 0"),
    ("eval", "suites: [s]\nmodels: [openai:x]\nmax_response_mb: -1\n",
     "matrix.yml:3 [max_response_mb]", "greater than 0"),
    ("run", "scenarios: [s]\ntargets:\n  - spec: 'athena:http://127.0.0.1:9/f'\n"
            "    llm_usage: my-server\n",
     "matrix.yml:4 [targets[0].llm_usage]", "only absolute http:// or https:// URLs"),
    ("eval", "suites: [s]\nmodels: [openai:x]\ncontrols: 'content-free,bogus'\n",
     "matrix.yml:3 [controls]", "choose none, or one or more of content-free"),
    ("eval", "suites: [s]\nmodels: [openai:x]\ncontrol_cases: 0\n",
     "matrix.yml:3 [control_cases", "greater than or equal to 1"),
    ("eval", "suites: [s]\nmodels: [openai:x]\npass_score: 7\n",
     "matrix.yml:3 [pass_score]", "less than or equal to 5"),
    ("eval", "suites: [s]\nmodels: [openai:x]\njudge_check: sometimes\n",
     "matrix.yml:3 [judge_check]", "valid boolean"),
    ("run", "scenarios: [s]\ntargets: [example]\nllm_usage: 'http://127.0.0.1:8000'\n",
     "matrix.yml:3 [llm_usage]", "athena and http: targets only; none is given"),
]


@pytest.mark.parametrize(("command", "text", "where", "what"), BAD_FILES)
def test_bad_matrix_files_exit_2_naming_file_and_key(
        command: str, text: str, where: str, what: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout applies
    monkeypatch.setenv("COLUMNS", "300")
    (tmp_path / "s").mkdir()
    (tmp_path / "matrix.yml").write_text(text, encoding="utf-8")
    code, out = _main([command, "--matrix", str(tmp_path / "matrix.yml"),
                       "--results", str(tmp_path / "res")], monkeypatch, capsys)
    assert code == 2, out
    assert f"invalid matrix file {tmp_path / 'matrix.yml'}" in out
    assert f"{tmp_path / where}" in out and what in out
    assert "Traceback" not in out
    assert not (tmp_path / "res").exists()  # nothing was run


@pytest.mark.parametrize("command", ["run", "eval"])
def test_missing_matrix_file_and_resume_with_matrix(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = _main([command, "--matrix", "nowhere.yml"], monkeypatch, capsys)
    assert code == 2 and "matrix file not found: nowhere.yml" in out
    (tmp_path / "m.yml").write_text("repeat: 2\n", encoding="utf-8")
    code, out = _main([command, "--matrix", "m.yml", "--resume", "r"], monkeypatch, capsys)
    assert code == 2 and "--matrix cannot be combined with --resume" in out


def test_a_matrix_files_answer_limit_applies_and_a_resumed_run_keeps_it(
        threaded_server: ScriptedServer, examples_copy: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``max_response_mb`` (and ``retry_500``) of a matrix file reach the requests; resumed
    without ``--max-response-mb`` the run keeps the file's limit, given again it is raised."""
    monkeypatch.setenv("COLUMNS", "200")
    threaded_server.default = feedback_reply([1, 2, 3])  # well over 200 bytes
    matrix = tmp_path / "matrix.yml"
    matrix.write_text(f"scenarios: [{examples_copy}]\ntargets: ['athena:{threaded_server.url}']"
                      "\nmax_cases: 2\nmax_response_mb: 0.0002\nretry_500: true\n",
                      encoding="utf-8")
    results = tmp_path / "res"
    got = CliRunner().invoke(app, ["run", "--matrix", str(matrix), "--results", str(results),
                                   "--run-name", "small"])
    assert got.exit_code == 1, got.output
    failures = (results / "small" / "project_management" / "failures.json").read_text()
    assert "larger than the 200 bytes response limit" in failures
    db = RunStore(results / "eunomia.db")
    try:
        settings = db.require_run("small").settings
    finally:
        db.close()
    assert (settings["max_response_mb"], settings["retry_500"]) == (0.0002, True)
    resume = ["run", "--resume", "small", "--retry-failed", "--results", str(results)]
    got = CliRunner().invoke(app, resume)
    assert got.exit_code == 1 and "200 bytes response limit" in " ".join(got.output.split())
    got = CliRunner().invoke(app, [*resume, "--max-response-mb", "1"])
    assert got.exit_code == 0, got.output
    assert len(threaded_server.requests) == 6  # 2 cases, three times


def test_a_scenario_matrix_sets_the_athena_options(
        threaded_server: ScriptedServer, examples_copy: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``server_url``, ``x_server_url``, ``secret_env`` and ``athena_id_base`` of a matrix
    file reach a plain ``athena`` target's requests, and are stored for ``--resume``."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("MATRIX_SECRET", "s3cret")
    threaded_server.default = feedback_reply([])
    matrix = tmp_path / "matrix.yml"
    matrix.write_text(
        f"scenarios: [{examples_copy}]\ntargets: ['athena?graded=false']\n"
        f"server_url: '{threaded_server.url}/feedback_suggestions'\n"
        "x_server_url: 'https://lms.example.org'\nsecret_env: MATRIX_SECRET\n"
        "athena_id_base: 1000000\nmax_cases: 1\n", encoding="utf-8")
    results = tmp_path / "res"
    got = CliRunner().invoke(app, ["run", "--matrix", str(matrix), "--results", str(results),
                                   "--run-name", "ath"])
    assert got.exit_code == 0, got.output
    [request] = threaded_server.requests
    assert request.headers["Authorization"] == "s3cret"
    assert request.headers["X-Server-URL"] == "https://lms.example.org"
    assert request.json["isGraded"] is False
    assert 1_000_000 <= request.json["exercise"]["id"] < 2**53
    db = RunStore(results / "eunomia.db")
    try:
        settings = db.require_run("ath").settings
    finally:
        db.close()
    assert settings["server_url"] == f"{threaded_server.url}/feedback_suggestions"
    assert (settings["secret_env"], settings["athena_id_base"]) == ("MATRIX_SECRET", 1000000)
    assert settings["x_server_url"] == "https://lms.example.org"


@pytest.mark.parametrize(("text", "where", "what"), [
    ("targets: [example]\nserver_url: 'http://127.0.0.1:9/f'\n", "matrix.yml:2 [server_url]",
     "applies to plain athena targets only"),
    ("targets: [athena]\nathena_id_base: 0\n", "matrix.yml:2 [athena_id_base]",
     "the Athena id base must be between 1 and"),
    ("targets: [athena]\nsecret_env: 'MY SECRET'\n", "matrix.yml:2 [secret_env]",
     "should match pattern"),
    ("targets: ['llm:local']\nprompt_dir: nowhere\n", "matrix.yml:2 [prompt_dir]",
     "no such folder"),
    ("targets: [athena]\nx_server_url: lms\n", "matrix.yml:2 [x_server_url]",
     "only absolute http:// or https:// URLs"),
])
def test_bad_athena_options_of_a_matrix_exit_2(
        text: str, where: str, what: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "300")
    (tmp_path / "matrix.yml").write_text(text, encoding="utf-8")
    code, out = _main(["run", "--matrix", str(tmp_path / "matrix.yml"), "--results",
                       str(tmp_path / "res")], monkeypatch, capsys)
    assert code == 2, out
    assert f"{tmp_path / where}" in out and what in out
    assert "Traceback" not in out and not (tmp_path / "res").exists()


def test_a_task_matrixs_judge_check_reaches_the_eval(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``judge_check: true`` of a file is the command line's ``--judge-check``: refused, as
    it is there, with ``--judge none`` (no judge to check)."""
    monkeypatch.chdir(tmp_path)
    suites = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "ecommerce"
    (tmp_path / "m.yml").write_text(f"suites: ['{suites}']\nmodels: [baseline:reference]\n"
                                    "judge: none\njudge_check: true\n", encoding="utf-8")
    code, out = _main(["eval", "--matrix", "m.yml", "--results", str(tmp_path / "res")],
                      monkeypatch, capsys)
    assert code == 2 and "--judge-check checks the judge, and --judge none" in out, out
    assert not (tmp_path / "res").exists()
