"""Messages that say what happened, as a user reads them after a command (issue #30, 4):
the cache line, compare's Markdown and JUnit, the link to an HTML page."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "scenarios" / "project_management"


def flat(text: str) -> str:
    return " ".join(text.split())


def said(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return flat(done.stdout + done.stderr)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | Path]:
    """Runs of the example scenario: ``five`` (the built-in example module on 5 cases),
    ``all`` (the same module on the 14: its answers are cached), ``baseline``
    (``baseline:default``); the output of ``all``."""
    where = tmp_path_factory.mktemp("said")
    out: dict[str, str | Path] = {"folder": where}
    for name, args in (("five", ("--target", "example", "--max-cases", "5")),
                       ("all", ("--target", "example")),
                       ("baseline", ("--target", "baseline:default"))):
        out[name] = said(run_cli("run", SCENARIO, *args, "--results", where, "--run-name",
                                 name, cwd=where))
    return out


def test_cache_line_counts_the_requests_made_beside_the_answers_reused(
        results: dict[str, str | Path]) -> None:
    """5 answered from the cache and 9 asked (it said "(none made)")."""
    assert "answered from the cache" not in str(results["five"])
    assert ("5 request(s) answered from the cache, 9 made; --no-cache to ask again"
            in str(results["all"]))


def test_compare_says_what_b_returns_that_a_missed_and_where_the_html_will_be(
        results: dict[str, str | Path]) -> None:
    """baseline:default misses the error instructions the example module returns: it said
    "returned again" of instructions A never returned, and linked a comparison page that
    did not exist."""
    where = Path(results["folder"])
    md, xml = where / "cmp.md", where / "cmp.xml"
    said(run_cli("compare", "baseline", "all", "--results", where, "--summary-md", md,
                 "--junit", xml, cwd=where))
    junit = xml.read_text(encoding="utf-8")
    assert "returned again" not in junit
    assert ("relationship_type/relationship_not_composition (missing in A, returned now)"
            in junit)
    assert "relationship_type/relationship_correct (returned unexpectedly in A, no longer)" \
        in junit
    page = where / "baseline" / "compare_all.html"
    assert not page.exists()
    summary = md.read_text(encoding="utf-8")
    assert "returned again" not in summary
    command = f"eunomia report baseline --compare all --results {where}"
    shown, shown_command = (t.replace("_", "\\_") for t in (str(where), command))  # Markdown
    assert (f"HTML comparison: not written yet; \\`{shown_command}\\` "
            f"writes it to {shown}/baseline/compare\\_all.html") in summary
    # the command the summary gives writes the page; then the summary links it
    said(run_cli(*command.split()[1:], cwd=where))
    assert page.is_file()
    said(run_cli("compare", "baseline", "all", "--results", where, "--summary-md", md,
                 cwd=where))
    assert md.read_text(encoding="utf-8").rstrip().endswith(
        f"HTML comparison: {shown}/baseline/compare\\_all.html")
