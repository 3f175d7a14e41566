"""``eunomia compare`` says what it could detect and never calls a handful of cases a
regression: the example module against ``baseline:default`` on the bundled scenario, as a
user runs them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"
Z = 1.959964 + 0.841621


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("power")
    for target, name, cases in (("example", "ex2", ["missing_a*"]),
                                ("baseline:default", "base2", ["missing_a*"]),
                                ("example", "ex", []), ("example", "ex_again", []),
                                ("baseline:default", "base", [])):
        picked = [a for c in cases for a in ("--case", c)]
        done = run_cli("run", EXAMPLES, "--target", target, "--results", where / "results",
                       "--run-name", name, *picked, cwd=where, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    return where


def _compare(results: Path, a: str, b: str, *extra: str) -> tuple[int, dict[str, object], str]:
    out = results / f"{a}-{b}.json"
    done = run_cli("compare", a, b, "--results", results / "results", "--json", out,
                   "--fail-on-regression", *extra, cwd=results, timeout=120)
    return done.returncode, json.loads(out.read_text(encoding="utf-8")), done.stdout


def test_two_cases_are_too_few_to_call_a_regression(results: Path) -> None:
    # B (the baseline) is 25 points worse on both cases: before, "-25.00 (CI -25.00 to
    # -25.00, p<0.001)" and exit 1
    code, data, text = _compare(results, "ex2", "base2")
    assert code == 0, text
    assert data["verdict"]["kind"] == "no_significant_change"  # type: ignore[index]
    assert data["verdict"]["summary"].startswith("TOO FEW CASES TO TELL")  # type: ignore[index]
    score = data["overall"]["metrics"]["score"]  # type: ignore[index]
    assert score["delta"] == -25.0 and score["too_few"] is True
    assert score["low"] is None and score["p_value"] is None and not score["significant"]
    assert "too few cases to tell" in " ".join(text.split())
    assert data["power"]["score"]["mde"] is None  # type: ignore[index]


def test_the_minimum_detectable_effect_and_the_cases_an_effect_needs(results: Path) -> None:
    code, data, text = _compare(results, "base", "ex", "--effect", "5")
    assert code == 0
    power = data["power"]  # type: ignore[index]
    score = power["score"]
    assert score["n"] == 14 and not score["too_few"]
    assert score["mde"] == pytest.approx(Z * score["sd"] / math.sqrt(14), rel=1e-4)
    assert score["needed"] == math.ceil((Z * score["sd"] / 5) ** 2)
    detection = power["detection"]
    assert detection["min_changed"] == 6 and detection["discordant"] == 12
    flat = " ".join(text.split())
    assert f"detecting 5 points with 80% power needs {score['needed']} cases" in flat
    assert "Could detect: score: with 14 cases this comparison detects" in flat


def test_an_unchanged_system_is_not_a_regression(results: Path) -> None:
    code, data, _ = _compare(results, "ex", "ex_again")
    assert code == 0
    assert data["verdict"]["kind"] == "no_significant_change"  # type: ignore[index]
    assert data["overall"]["metrics"]["score"]["delta"] == 0  # type: ignore[index]


def test_the_markdown_summary_says_too_few_and_what_it_could_detect(results: Path) -> None:
    for a, b, name in (("ex2", "base2", "few.md"), ("base", "ex", "many.md")):
        done = run_cli("compare", a, b, "--results", results / "results", "--summary-md",
                       results / name, "--effect", "5", cwd=results, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    few = (results / "few.md").read_text(encoding="utf-8")
    assert "TOO FEW CASES TO TELL" in few
    assert "| Score (%) | 100.00 | 75.00 | -25.00 | too few cases to tell | - |" in few
    assert "**What this comparison could detect**" in few
    assert "- score: too few cases to tell (2 cases; at least 10 are needed)" in few
    many = (results / "many.md").read_text(encoding="utf-8")
    assert "- score: with 14 cases this comparison detects a true change of" in many
    assert "- score: detecting 5 points with 80% power needs" in many
    assert "too few cases to tell" not in many
