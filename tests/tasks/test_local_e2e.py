"""A real run on the smallest local model (gemma3-270m): candidate and judge in process.

Needs the ``local`` extra and the model's weights; skipped otherwise. The model's judgements
are meaningless (a tiny base model); what is checked is that every verdict is a score in
0..5 or "unscored" — never an invalid score and never a failed case.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from tests.support.local_model import require_local_model
from tests.tasks.conftest import write

from eunomia.api import RunOptions, run_tasks
from eunomia.models import GenerationSettings, resolve_spec
from eunomia.scheduler import RetryPolicy
from eunomia.tasks import load_suites

MODEL = "gemma3-270m"
require_local_model(MODEL)

pytestmark = pytest.mark.slow

SUITE = """\
- case_id: title
  category: Summarization
  system_prompt: You write short product titles.
  instruction: "Write a title for: steel kettle, 1.7 litres, 2200 W."
  expected_response: Steel Kettle 1.7 L, 2200 W
  difficulty_level: easy
  checks: [{max_words: 40}]
- case_id: ip67
  category: General Knowledge
  instruction: What does IP67 mean on a phone? One sentence.
  expected_response: Dust-tight and protected against immersion up to 1 m for 30 minutes.
  difficulty_level: medium
"""


async def test_two_cases_on_the_smallest_local_model(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout
    spec = resolve_spec(f"local:{MODEL}")
    spec = replace(spec, settings=GenerationSettings(max_tokens=96))
    suites, problems = load_suites([write(tmp_path / "mini.yaml", SUITE)])
    assert problems == []
    report = await run_tasks(
        suites, candidate=spec, judge=spec, run_name="local", results_dir=tmp_path / "out",
        options=RunOptions(1, RetryPolicy(retries=1, timeout_s=600)),
        console=Console(quiet=True))
    s = report.summary
    assert s is not None and s.total == 2 and s.failed == 0 and s.invalid == 0
    assert s.scored + s.unscored == 2
    import json

    rows = json.loads((tmp_path / "out" / "local" / "tasks_results.json").read_text())
    assert rows["cases"] == 2
    from eunomia.kinds.tasks import task_records
    from eunomia.store import RunStore

    db = RunStore(tmp_path / "out" / "eunomia.db")
    try:
        _, records, _ = task_records(db, db.require_run("local"))
    finally:
        db.close()
    for r in records:
        assert r.result is not None and r.result.response.strip()
        for v in r.result.all_verdicts():
            assert (v.status == "scored" and v.score in range(6)) or \
                (v.status == "unscored" and v.score is None and v.raw)
