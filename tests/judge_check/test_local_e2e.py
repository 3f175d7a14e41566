"""``eunomia judge-check`` with the real embedded model (gemma3-270m) as the judge.

Needs the ``local`` extra and the model's weights; skipped otherwise. A 270M model cannot
judge (its AUC is expected near 0.5); what is checked is that the whole pipeline runs on a
local judge through the command line and that a verdict is printed and stored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.judge_check.conftest import invoke
from tests.support.local_model import require_local_model

MODEL = "gemma3-270m"
require_local_model(MODEL)

pytestmark = pytest.mark.slow

SUITE = """\
- case_id: kettle
  category: Summarization
  instruction: "Write a title for: steel kettle, 1.7 litres, 2200 W."
  expected_response: A steel kettle of 1.7 litres with a 2200 W element.
- case_id: ip67
  category: General Knowledge
  instruction: What does IP67 mean on a phone? One sentence.
  expected_response: Dust-tight and protected against immersion up to 1 m for 30 minutes.
"""

MODELS = f"""\
models:
  tiny-judge:
    spec: local:{MODEL}
    settings: {{max_tokens: 96}}
"""


def test_the_smallest_local_model_as_the_judge(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    (tmp_path / "models.yml").write_text(MODELS, encoding="utf-8")
    suite = tmp_path / "mini.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    code, out = invoke("judge-check", str(suite), "--judge", "tiny-judge", "--retries", "0",
                       "--timeout", "600", "--results", str(tmp_path / "out"),
                       "--run-name", "tiny")
    assert code == 0, out
    # a local judge scores by likelihood (no --judge-feedback)
    assert "Judge check: likelihood:local:gemma3-270m" in out
    # 2 cases: too few for a verdict, and it says so
    assert ("Judge check: likelihood:local:gemma3-270m on mini: too few cases to tell whether "
            "this judge") in " ".join(out.split())
    data = json.loads((tmp_path / "out" / "tiny" / "judge_check.json").read_text())
    group = data["suites"][0]
    # two cases: good, other, truncated, refusal, padded each, and the answers that look
    # right and are wrong that each case allows (content-free always)
    floor = group["looks_right_is_wrong"]["kinds"]
    assert "content_free" in floor and "numbers" in floor
    assert group["answers"] > 10 and group["failed"] == 0
    assert group["scored"] + group["unscored"] == group["answers"]
    # the embedded model gives the score values' probabilities: every scored answer has a
    # probability-weighted score, and the weighted AUC is reported beside the sampled one
    assert data["weighted_asked"] is True
    assert group["weighted_answers"] == group["scored"]
    assert group["scored"] < 4 or group["weighted_auc"] is not None
    assert data["verdicts"][0]["level"] in ("good", "weak", "cannot_tell", "unknown")
    assert data["verdicts"][0]["text"]
