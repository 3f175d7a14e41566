"""A run stopped by a configuration error before its first request (a key variable not set:
exit 2) leaves no run behind: the same command with the same ``--run-name`` works once the
variable is set (issue #30, 5: it stored an empty "interrupted" run that took the name)."""

from __future__ import annotations

from pathlib import Path

from tests.http_target.docs_examples import write_models
from tests.http_target.fake_apps import KEYS, FakeApps
from tests.support.cli import run_cli, run_statuses

SUITE = """\
- {case_id: ok, instruction: hello, checks: [{contains: "answer to hello"}]}
"""


def _folder(tmp_path: Path, apps: FakeApps) -> Path:
    write_models(tmp_path, "openai-app", "custom-api", "athena-gateway",
                 base_url=apps.url.rstrip("/"))
    return tmp_path


def _runs(folder: Path) -> dict[str, str]:
    if not (folder / "results" / "eunomia.db").exists():
        return {}  # stopped before the store was opened
    done = run_cli("runs", cwd=folder, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stdout + done.stderr
    return run_statuses(done.stdout)


def test_eval_stopped_by_a_missing_key_keeps_no_run(apps: FakeApps, tmp_path: Path) -> None:
    folder = _folder(tmp_path, apps)
    (folder / "suites").mkdir()
    (folder / "suites" / "general_knowledge.yaml").write_text(SUITE, encoding="utf-8")
    command = ("eval", "suites", "--model", "http:support-bot", "--judge", "none",
               "--run-name", "bot")
    done = run_cli(*command, cwd=folder, env={"SUPPORT_BOT_KEY": ""})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "SUPPORT_BOT_KEY" in done.stderr
    assert "bot" not in _runs(folder)
    assert not (folder / "results" / "bot").exists()
    done = run_cli(*command, cwd=folder, env=KEYS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _runs(folder) == {"bot": "complete"}
    assert (folder / "results" / "bot" / "tasks_results.json").is_file()


def test_scenario_run_stopped_by_a_missing_key_keeps_no_run(
        apps: FakeApps, tmp_path: Path, examples_copy: Path) -> None:
    folder = _folder(tmp_path, apps)
    command = ("run", examples_copy, "--target", "http:athena-gateway", "--max-cases", "2",
               "--run-name", "gw")
    done = run_cli(*command, cwd=folder, env={"ATHENA_GATEWAY_KEY": ""})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "ATHENA_GATEWAY_KEY" in done.stderr
    assert "gw" not in _runs(folder)
    done = run_cli(*command, cwd=folder, env=KEYS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _runs(folder) == {"gw": "complete"}


def test_a_run_with_cases_stored_stays_to_be_resumed(tmp_path: Path,
                                                     examples_copy: Path) -> None:
    """The first target's cases are stored before the second's key is found missing: that
    run is kept, interrupted, for --resume."""
    done = run_cli("run", examples_copy, "--target", "baseline:default", "--target",
                   "llm:openai:gpt-4o-mini", "--max-cases", "2", "--run-name", "two",
                   cwd=tmp_path, env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "OPENAI_API_KEY" in done.stderr
    assert _runs(tmp_path)["two"].startswith("interrupted")
