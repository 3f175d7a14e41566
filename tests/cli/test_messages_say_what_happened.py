"""Messages that say what happened, as a user reads them after a command (issue #30, 4)."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "scenarios" / "project_management"


def flat(text: str) -> str:
    return " ".join(text.split())


def test_cache_line_counts_the_requests_made_beside_the_answers_reused(tmp_path: Path
                                                                        ) -> None:
    """The built-in example module's answers are cached: a first run of 5 cases, then all
    14: 5 answered from the cache and 9 asked (it said "(none made)")."""
    first = run_cli("run", SCENARIO, "--target", "example", "--results", tmp_path,
                    "--run-name", "five", "--max-cases", "5", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "answered from the cache" not in first.stdout + first.stderr
    both = run_cli("run", SCENARIO, "--target", "example", "--results", tmp_path,
                   "--run-name", "all", cwd=tmp_path)
    assert both.returncode == 0, both.stderr
    out = flat(both.stdout + both.stderr)
    assert "5 request(s) answered from the cache, 9 made; --no-cache to ask again" in out
    again = run_cli("run", SCENARIO, "--target", "example", "--results", tmp_path,
                    "--run-name", "again", cwd=tmp_path)
    assert "14 request(s) answered from the cache, none made" in flat(again.stdout
                                                                       + again.stderr)
