"""``--judge none``: no judge call; each case is scored by its deterministic checks only."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from tests.tasks.conftest import write
from tests.tasks.fake_llm import FakeLLM
from tests.tasks.test_cli import invoke, served  # noqa: F401 - the fixture
from tests.tasks.test_run import OPTIONS

from eunomia.api import run_tasks
from eunomia.models import resolve_spec
from eunomia.store import RunStore
from eunomia.tasks import load_suites

SUITE = """\
- case_id: all
  instruction: ALL-Q
  checks: [{contains: "42"}, {max_words: 10}]
- case_id: half
  instruction: HALF-Q
  checks: [{contains: "42"}, {contains: "seven"}]
- case_id: none
  instruction: NONE-Q
  checks: [{contains: "nope"}]
- case_id: unchecked
  instruction: BARE-Q
"""


async def test_no_judge_scores_by_the_checks(fake_llm: FakeLLM, tmp_path: Path) -> None:
    for q in ("ALL-Q", "HALF-Q", "NONE-Q", "BARE-Q"):
        fake_llm.candidate(q, "It is 42.")
    suites, _ = load_suites([write(tmp_path / "general_knowledge.yaml", SUITE)])
    report = await run_tasks(
        suites, candidate=resolve_spec("openai:fake-candidate"), judge=None, run_name="r1",
        results_dir=tmp_path, options=OPTIONS, console=Console(quiet=True))
    assert fake_llm.judge_requests == 0 and fake_llm.candidate_requests == 4
    assert report.requests_made == 4
    s = report.summary
    assert s is not None and (s.scored, s.unscored, s.failed) == (3, 1, 0)
    db = RunStore(tmp_path / "eunomia.db")
    try:
        run_info = db.require_run("r1")
        rows = {r.case_name: r for r in db.iter_cases(run_info)}
        assert run_info.settings["judge"] == "none"
        result = db.get_json(rows["half"].response or "")
    finally:
        db.close()
    assert rows["all"].score == 5 and rows["none"].score == 0
    assert rows["half"].score == 2  # round(5 × 1 / 2)
    assert rows["unchecked"].status == "unscored" and rows["unchecked"].score is None
    assert "checks: 1/2 passed" in result["verdicts"][0]["feedback"]
    again = await run_tasks(
        suites, candidate=resolve_spec("openai:fake-candidate"), judge=None, run_name="r2",
        results_dir=tmp_path, options=OPTIONS, console=Console(quiet=True))
    assert again.requests_made == 0 and again.cache_hits == 4


def test_eval_judge_none_cli(served: FakeLLM, tmp_path: Path) -> None:  # noqa: F811
    suite = write(tmp_path / "general_knowledge.yaml", SUITE)
    results = tmp_path / "results"
    code, out = invoke("eval", str(suite), "--model", "openai:fake-candidate", "--judge",
                       "none", "--results", str(results), "--run-name", "nj")
    assert served.judge_requests == 0 and served.candidate_requests == 4
    assert code == 0, out  # an unscored case (no checks) is not a failure
    assert "judged by none" in out
    assert (results / "nj" / "tasks_results.json").is_file()
