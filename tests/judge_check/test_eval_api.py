"""What ``eval --judge-check`` calls: the check of eval's judge, kept as its own run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.judge_check.conftest import EXAMPLE_SUITE, invoke
from tests.judge_check.scripted_judge import ScriptedJudge

from eunomia.api import judge_check_for_eval
from eunomia.errors import EunomiaError
from eunomia.kinds import Selection
from eunomia.kinds._task_suites import selected
from eunomia.kinds.judge_check import stored_verdicts
from eunomia.models import resolve_spec
from eunomia.scheduler import RetryPolicy, RunOptions
from eunomia.store import RunStore
from eunomia.tasks import load_suites


async def test_the_check_before_an_eval_is_stored_once_and_read_back(
        judges: ScriptedJudge, tmp_path: Path) -> None:
    suites, _ = load_suites([EXAMPLE_SUITE / "summarization.yaml",
                             EXAMPLE_SUITE / "general_knowledge.yaml"])
    spec = resolve_spec("openai:constant")
    kwargs: dict[str, Any] = {"eval_run": "nightly", "results_dir": tmp_path, "options":
              RunOptions(4, RetryPolicy(retries=0)), "selection": Selection((), 2),
              "console": Console(quiet=True)}
    first = await judge_check_for_eval(suites, spec, **kwargs)
    assert first.run_name == "nightly-judge-check"
    assert first.folder == tmp_path / first.run_name
    assert [v.suite for v in first.verdicts] == ["summarization", "general_knowledge", None]
    # 2 cases a suite (the selection) are too few for a verdict: none, and it says so
    assert [v.level for v in first.verdicts] == ["unknown"] * 3
    assert not first.trusted
    assert first.lines()[0].startswith("openai:constant on summarization: too few cases to "
                                       "tell whether this judge can judge")
    auc = first.verdicts[0].auc
    assert auc is not None and auc.estimate == 0.5 and auc.too_few
    asked = judges.calls
    assert asked == sum(len(a) for s in suites for _, a in selected(s, Selection((), 2)))
    # eval --resume: the stored check is resumed, nothing is asked again
    again = await judge_check_for_eval(suites, spec, **kwargs)
    assert judges.calls == asked and again.verdicts == first.verdicts
    db = RunStore(tmp_path / "eunomia.db")
    try:
        run = db.require_run("nightly-judge-check")
        assert run.kind == "judge_check" and run.settings["for_eval"] == "nightly"
        assert stored_verdicts(db, run) == first.verdicts
    finally:
        db.close()
    # another judge under the same eval run name is refused, not mixed in
    with pytest.raises(EunomiaError, match="not the judge check of openai:overlap"):
        await judge_check_for_eval(suites, resolve_spec("openai:overlap"),
                                   **kwargs)
    code, out = invoke("runs", "--results", str(tmp_path))
    assert code == 0 and "nightly-judge-check" in out
