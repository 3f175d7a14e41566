"""A system under test reached over HTTP may change behind the same URL: a new run asks it
again unless --cache is given (its answers are still cached); --no-cache asks everything."""

from __future__ import annotations

from pathlib import Path

from tests.http_target.fake_apps import KEYS, FakeApps
from tests.http_target.test_cli_e2e import APP_SUITES, _folder, _write
from tests.support.cli import run_cli

ROUTE = "/v1/chat/completions"


def test_a_new_run_asks_an_http_system_again(apps: FakeApps, tmp_path: Path) -> None:
    folder = _folder(tmp_path, apps)
    _write(folder / "suites" / "general_knowledge.yaml", APP_SUITES["general_knowledge.yaml"])

    def ask(name: str, *options: str) -> int:
        before = len(apps.requests(ROUTE))
        done = run_cli("eval", "suites", "--model", "http:myapp", "--judge", "none",
                       "--run-name", name, *options, cwd=folder, env=KEYS)
        assert done.returncode == 0, done.stdout + done.stderr
        return len(apps.requests(ROUTE)) - before

    assert ask("first") == 1
    assert ask("again") == 1  # the system may have changed: asked again
    assert ask("cached", "--cache") == 0  # the answer of the last run, reused
    assert ask("fresh", "--no-cache") == 1
    both = run_cli("eval", "suites", "--model", "http:myapp", "--judge", "none",
                   "--run-name", "x", "--cache", "--no-cache", cwd=folder, env=KEYS)
    assert both.returncode == 2 and "contradict" in both.stderr + both.stdout
