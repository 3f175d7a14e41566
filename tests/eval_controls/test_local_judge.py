"""``eval`` with the real embedded model (gemma3-270m) as the judge, end to end: a local judge
scores by likelihood unless ``--judge-feedback`` (then it writes its feedback too), the
content-free control is scored beside the candidate with its time said first.

Needs the ``local`` extra and the model's weights; skipped otherwise. A 270M model cannot
judge: what is checked is the pipeline, not its scores."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.eval_controls.conftest import EXAMPLE_SUITE
from tests.judge_check.conftest import invoke
from tests.judge_check_eval.test_eval_judge_check import flat, read_json
from tests.support.local_model import require_local_model

from eunomia.store import RunStore

MODEL = "gemma3-270m"
require_local_model(MODEL)

pytestmark = pytest.mark.slow


def test_a_local_judge_scores_by_likelihood_unless_asked_for_feedback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    results = tmp_path / "out"
    base = ["eval", str(EXAMPLE_SUITE / "summarization.yaml"), "--model", "baseline:empty",
            "--judge", f"local:{MODEL}", "--max-cases", "1", "--retries", "0", "--timeout",
            "600", "--results", str(results)]
    code, out = invoke(*base, "--run-name", "fast")
    assert code == 0, out
    text = flat(out)
    assert f"likelihood:local:{MODEL} is a local model: about" in text
    assert "Beside the controls" in text
    data = read_json(results / "fast" / "tasks_results.json")
    assert data["judge"] == f"likelihood:local:{MODEL}"
    assert data["controls"]["comparisons"][0]["cases"] in (0, 1)
    code, out = invoke(*base, "--run-name", "talk", "--judge-feedback", "--controls", "none")
    assert code == 0, out
    db = RunStore(results / "eunomia.db")
    try:
        assert db.require_run("talk").settings["judge"] == \
            f"likelihood+feedback:local:{MODEL}"
    finally:
        db.close()
