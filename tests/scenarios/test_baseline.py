"""Every scenario run beside baseline:default (the system that assumes every diagram is
perfect), computed locally; and the trivial baselines themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.cli import run_cli
from tests.support.scripted_server import ScriptedServer, feedback_reply

from eunomia.scenarios import baseline_feedback, baseline_instructions, load_scenario
from eunomia.scoring import score_case

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"


def _scenario():  # type: ignore[no-untyped-def]
    scenario, problems = load_scenario(EXAMPLES / "project_management")
    assert scenario is not None, problems
    return scenario


def test_the_baselines_answer_without_looking() -> None:
    sc = _scenario()
    assert baseline_instructions(sc, "default") == sc.default_expected
    constant = baseline_instructions(sc, "constant")
    # one instruction per criterion that some case expects, the one most often expected
    assert len(constant) == len({sc.instructions[i].criterion_id for i in constant})
    for i in constant:
        criterion = sc.criterion_of(i)
        counts = {ins.id: sum(ins.id in c.expected for c in sc.test_cases)
                  for ins in criterion.instructions}
        assert counts[i] == max(counts.values())


def test_a_better_system_is_said_to_be_better(tmp_path: Path) -> None:
    got = run_cli("run", EXAMPLES, "--target", "example", "--run-name", "good",
                  "--results", tmp_path / "results", cwd=tmp_path, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    text = " ".join(got.stdout.split())
    assert "significantly better than baseline:default: score 9" in text
    data = json.loads((tmp_path / "results" / "good" / "project_management" /
                       "scenario_results.json").read_text())
    baseline = data["baseline"]
    assert baseline["better"] is True and baseline["cases"] == 14
    assert baseline["score"]["p_value"] < 0.05 and baseline["score"]["delta"] > 0
    assert data["warnings"] == []


def test_a_system_that_answers_like_the_baseline_is_flagged(threaded_server: ScriptedServer,
                                                            tmp_path: Path) -> None:
    sc = _scenario()
    threaded_server.default = feedback_reply(list(sc.default_expected))
    got = run_cli("run", EXAMPLES, "--server-url", threaded_server.url, "--run-name", "flat",
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    text = " ".join(got.stdout.split())
    assert "warning: not significantly better than baseline:default" in text
    folder = tmp_path / "results" / "flat" / "project_management"
    data = json.loads((folder / "scenario_results.json").read_text())
    assert data["baseline"]["better"] is False
    assert data["baseline"]["score"]["delta"] == 0.0  # exactly the baseline's answers
    base_scores = [score_case(sc, c, []).score_percent for c in sc.test_cases]  # no answer
    assert data["average_test_case_score"] > sum(base_scores) / len(base_scores)
    assert any(w.startswith("not significantly better than baseline:default")
               for w in data["warnings"])
    run_cli("report", "flat", "--results", tmp_path / "results", cwd=tmp_path)
    html = (tmp_path / "results" / "flat" / "report.html").read_text()
    assert "not significantly better than baseline:default" in html
    # the verdict in its tile, the figures under the tiles
    assert 'baseline:default</div><div class="v">not significantly better (+0.0 points)<' \
        in html
    assert "<b>Against baseline:default:</b> score " in html


def test_the_baselines_run_as_targets_beside_a_system(tmp_path: Path) -> None:
    got = run_cli("run", EXAMPLES, "--target", "baseline:default", "--target",
                  "baseline:constant", "--target", "example", "--run-name", "three",
                  "--results", tmp_path / "results", cwd=tmp_path, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    sc = _scenario()
    folder = tmp_path / "results" / "three"
    scores = {}
    for target in ("baseline_default", "baseline_constant", "example"):
        found = list(folder.glob(f"*{target}*/project_management/scenario_results.json"))
        assert len(found) == 1, (target, sorted(p.name for p in folder.iterdir()))
        data = json.loads(found[0].read_text())
        scores[target] = data["average_test_case_score"]
        if target != "example":  # no call: a known cost of nothing
            assert data["total_cost"] == 0.0 and data["cases_with_unknown_cost"] == 0
    # baseline:default is not compared with itself
    default = next(folder.glob("*baseline_default*/project_management/scenario_results.json"))
    assert "not significantly better" not in default.read_text()
    assert "baseline" not in json.loads(default.read_text()).get("meta", {})
    # the baseline targets score exactly what the local comparison computes
    for kind in ("default", "constant"):
        answer = baseline_feedback(sc, kind)
        expected = [score_case(sc, c, answer).score_percent for c in sc.test_cases]
        assert scores[f"baseline_{kind}"] == pytest.approx(sum(expected) / len(expected))
    leaderboard = (folder / "leaderboard.csv").read_text()
    assert "baseline:default" in leaderboard and "baseline:constant" in leaderboard
    assert "unknown" not in leaderboard
    assert scores["example"] > scores["baseline_default"]
    bad = run_cli("run", EXAMPLES, "--target", "baseline:nothing", "--run-name", "x",
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown baseline" in bad.stdout + bad.stderr
