"""Task runs end to end against the fake chat server (the real ``openai`` provider):
every kind's runner, store, cache, resume, result files and summaries."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console
from tests.tasks.conftest import EXAMPLE_SUITE, write
from tests.tasks.fake_llm import FakeLLM

from eunomia.api import RunOptions, TaskRunReport, TaskSelection, run_tasks
from eunomia.judge import SCORES
from eunomia.kinds.tasks import print_tasks_summary
from eunomia.models import resolve_spec
from eunomia.scheduler import RetryPolicy
from eunomia.stats import quadratic_weighted_kappa
from eunomia.store import RunStore
from eunomia.tasks import TaskSuite, load_suites
from eunomia.viewer import render_run

OPTIONS = RunOptions(4, RetryPolicy(retries=1, timeout_s=10, backoff_initial_s=0.001,
                                    backoff_max_s=0.01))


def verdict(score: int, feedback: str = "fine") -> str:
    return json.dumps({"score": score, "feedback": feedback})


async def run(suites: list[TaskSuite], results: Path, name: str = "r1",
              **kwargs: Any) -> TaskRunReport:
    return await run_tasks(
        suites, candidate=resolve_spec("openai:fake-candidate"),
        judge=resolve_spec("openai:fake-judge"), run_name=name, results_dir=results,
        options=kwargs.pop("options", OPTIONS), console=Console(quiet=True),
        **kwargs)


def example() -> list[TaskSuite]:
    suites, problems = load_suites([EXAMPLE_SUITE])
    assert problems == []
    return suites


async def test_example_suite_every_kind_end_to_end(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.candidate("two mugs", "Two mugs added.")
    fake_llm.candidate("remove one of the mugs", "Done: one mug, the teapot and a tea tin.")
    fake_llm.candidate("What is in my basket", "One mug, one teapot, one tea tin: 45 EUR.")
    fake_llm.candidate("Tell the customer their parcel", " ".join(["word"] * 30))
    report = await run(example(), tmp_path)
    s = report.summary
    assert s is not None
    assert (s.total, s.scored, s.unscored, s.failed) == (35, 35, 0, 0)
    kinds = {g.value: g for g in s.groups if g.grouping == "kind"}
    assert set(kinds) == {"summarization", "instruction_following", "general_knowledge",
                          "ethical_reasoning", "common_sense_reasoning", "context_retention",
                          "inference_speed"}
    assert all(g.scored == 5 and g.mean is not None and g.mean.estimate == 4 for g in
               kinds.values())
    # context retention: earlier replies are fed back as assistant messages
    last = next(b for b in fake_llm.requests if b["model"] == "fake-candidate"
                and "What is in my basket" in b["messages"][-1]["content"])
    roles = [m["role"] for m in last["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user",
                     "assistant", "user"]
    assert last["messages"][2]["content"] == "Two mugs added."
    # only turns with an eval_point are judged
    judged = [b for b in fake_llm.requests if b["model"] == "fake-judge"
              and "basket now" in b["messages"][-1]["content"]]
    assert len(judged) == 1
    # inference speed: streamed, with the asked length in the instruction
    speed = [b for b in fake_llm.requests if b["model"] == "fake-candidate" and b.get("stream")]
    assert len(speed) == 5
    assert "Answer in about 30 words." in speed[0]["messages"][-1]["content"]
    rows = {r.case_name: r for r in s.speed}
    assert rows["sp-01"].output_words == 30 and rows["sp-01"].length_adherence == 1.0
    assert rows["sp-01"].time_to_first_token_s is not None
    assert s.speed_fit is not None
    # files
    base = tmp_path / "r1"
    for f in ("tables/cases.csv", "tables/summary.csv", "tables/judge_agreement.csv",
              "tables/inference_speed.csv", "inference_speed.svg", "tasks_results.json",
              "failures.json", "run.json", "tasks/context_retention.yaml"):
        assert (base / f).is_file(), f
    svg = (base / "inference_speed.svg").read_text()
    assert svg.startswith("<svg") and ": 5 points</title>" in svg and "slope" in svg
    cr = yaml.safe_load((base / "tasks/context_retention.yaml").read_text())
    basket = next(c for c in cr["test_cases"] if c["case_id"] == "cr-03")
    assert len(basket["turns"]) == 4 and basket["turns"][3]["score"] == 4
    assert basket["turns"][3]["check_results"][0]["passed"]


async def test_output_yaml_keeps_key_order_and_appends_results(fake_llm: FakeLLM,
                                                               tmp_path: Path) -> None:
    src = write(tmp_path / "in" / "summarization.yaml", """\
- instruction: Describe a kettle.
  case_id: k1
  zzz_custom: keep me
  category: Summarization
  difficulty_level: easy
  expected_response: A kettle.
  checks:
    - contains: kettle
""")
    fake_llm.candidate("Describe a kettle", "A steel kettle.")
    fake_llm.judge("A steel kettle.", verdict(5, "Accurate."))
    suites, _ = load_suites([src])
    await run(suites, tmp_path / "out")
    (case,) = yaml.safe_load((tmp_path / "out/r1/tasks/summarization.yaml").read_text())
    assert list(case) == ["instruction", "case_id", "zzz_custom", "category",
                          "difficulty_level", "expected_response", "checks",
                          "response_candidate_model", "score", "judge_feedback", "status",
                          "check_results"]
    assert case["response_candidate_model"] == "A steel kettle."
    assert case["score"] == 5 and case["judge_feedback"] == "Accurate."
    assert case["checks"] == [{"contains": "kettle"}]  # the input's field, unchanged
    assert case["check_results"][0]["passed"] is True
    rows = list(csv.DictReader((tmp_path / "out/r1/tables/cases.csv").open()))
    assert rows[0]["checks_passed"] == "1" and rows[0]["score"] == "5"


SCORED = """\
metadata: {category: general knowledge}
test_cases:
  - {case_id: e, instruction: EASY-Q, difficulty_level: easy, human_score: 5}
  - {case_id: m, instruction: MEDIUM-Q, difficulty_level: medium, human_score: 3}
  - {case_id: h, instruction: HARD-Q, difficulty_level: hard, human_score: 4}
"""


async def test_weighted_mean_and_judge_human_agreement(fake_llm: FakeLLM,
                                                       tmp_path: Path) -> None:
    for q, a in (("EASY-Q", "ans-e"), ("MEDIUM-Q", "ans-m"), ("HARD-Q", "ans-h")):
        fake_llm.candidate(q, a)
    fake_llm.judge("ans-e", verdict(5)).judge("ans-m", verdict(3)).judge("ans-h", verdict(1))
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    s = (await run(suites, tmp_path)).summary
    assert s is not None and s.overall is not None
    assert s.overall.mean is not None and s.overall.weighted is not None
    assert s.overall.mean.estimate == pytest.approx(3.0)
    assert s.overall.weighted.estimate == pytest.approx((5 * 1 + 3 * 2 + 1 * 3) / 6)
    assert s.overall.mean.low <= 3.0 <= s.overall.mean.high
    agr = s.agreement
    assert agr is not None and agr.human_cases == 3
    # human 5,3,4 vs judge 5,3,1: MAD = 3/3; QWK hand-computed below
    assert agr.mad == pytest.approx(1.0)
    # O: (5,5),(3,3),(4,1); w=(i-j)^2; sum wO = 9; E = outer(h,j)/3 over pairs:
    # h in {5,3,4}, j in {5,3,1}: sum (i-j)^2 = 0+4+16 + 4+0+4 + 1+1+9 = 39 -> 13
    # ... a figure of 3 cases, too few to mean anything (defaults.MIN_CASES_FOR_INTERVAL):
    # the summary gives no kappa, the formula itself still gives it
    assert agr.qwk is None
    assert s.power is not None and s.power.n == 3 and s.power.too_few and s.power.mde is None
    # every view says so, never a kappa of 0.000 shown as certain
    console = Console(record=True, width=200)
    print_tasks_summary(console, s, str(tmp_path))
    kappa = next(line for line in console.export_text().splitlines()
                 if "quadratic-weighted kappa" in line)
    assert "too few cases to tell (3 cases; at least 10 are needed)" in kappa
    data = json.loads((tmp_path / "r1/tasks_results.json").read_text())
    assert data["judge_agreement"]["qwk"] is None
    assert data["judge_agreement"]["qwk_text"].startswith("too few cases to tell (3 cases")
    db = RunStore(tmp_path / "eunomia.db")
    try:
        page = " ".join(render_run(db, "r1").split())
    finally:
        db.close()
    assert "Mean judge score [95% CI], whole run" in page
    assert "3.00 (too few cases to tell, n=3)" in page
    assert quadratic_weighted_kappa([5, 3, 4], [5, 3, 1], list(SCORES)) \
        == pytest.approx(1 - 9 / 13)


async def test_weights_are_configurable(fake_llm: FakeLLM, tmp_path: Path) -> None:
    for q, a in (("EASY-Q", "ans-e"), ("MEDIUM-Q", "ans-m"), ("HARD-Q", "ans-h")):
        fake_llm.candidate(q, a)
    fake_llm.judge("ans-e", verdict(5)).judge("ans-m", verdict(3)).judge("ans-h", verdict(1))
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    s = (await run(suites, tmp_path, weights={"easy": 1, "medium": 1, "hard": 2})).summary
    assert s is not None and s.overall is not None and s.overall.weighted is not None
    assert s.overall.weighted.estimate == pytest.approx((5 + 3 + 2) / 4)


async def test_judge_repeats_agreement(fake_llm: FakeLLM, tmp_path: Path) -> None:
    for q, a in (("EASY-Q", "ans-e"), ("MEDIUM-Q", "ans-m"), ("HARD-Q", "ans-h")):
        fake_llm.candidate(q, a)
    fake_llm.judge("ans-e", verdict(4), verdict(4))
    fake_llm.judge("ans-m", verdict(2), verdict(3))
    fake_llm.judge("ans-h", verdict(5), verdict(5))
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    report = await run(suites, tmp_path, judge_repeats=2)
    agr = report.summary.agreement if report.summary else None
    assert agr is not None and agr.judge_repeats == 2 and agr.answers == 3
    # interval alpha by hand: observed 2, expected 82, n = 6 -> 1 - 5 * 2 / 82
    assert agr.alpha == pytest.approx(1 - 10 / 82)
    assert agr.icc is not None and 0 < agr.icc < 1
    rows = {r["metric"]: r["value"] for r in
            csv.DictReader((tmp_path / "r1/tables/judge_agreement.csv").open())}
    assert float(rows["krippendorff_alpha_interval"]) == pytest.approx(1 - 10 / 82, abs=1e-4)
    cases = yaml.safe_load((tmp_path / "r1/tasks/gk.yaml").read_text())["test_cases"]
    assert cases[1]["judge_scores"] == [2, 3] and cases[1]["score"] == 2.5


async def test_unscored_case_is_not_a_zero(fake_llm: FakeLLM, tmp_path: Path) -> None:
    for q, a in (("EASY-Q", "ans-e"), ("MEDIUM-Q", "ans-m"), ("HARD-Q", "ans-h")):
        fake_llm.candidate(q, a)
    fake_llm.judge("ans-e", verdict(5)).judge("ans-m", "garbage, not json")
    fake_llm.judge("ans-h", verdict(3))
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    report = await run(suites, tmp_path)
    s = report.summary
    assert s is not None and s.overall is not None and s.overall.mean is not None
    assert (s.scored, s.unscored) == (2, 1)
    assert s.overall.mean.estimate == pytest.approx(4.0)  # (5 + 3) / 2, not (5 + 0 + 3) / 3
    db = RunStore(tmp_path / "eunomia.db")
    try:
        run_info = db.require_run("r1")
        rows = {r.case_name: r for r in db.iter_cases(run_info)}
    finally:
        db.close()
    assert rows["m"].status == "unscored" and rows["m"].score is None
    failures = json.loads((tmp_path / "r1/failures.json").read_text())
    assert failures[0]["case_id"] == "m" and "garbage" in failures[0]["reason"]


async def test_second_run_is_answered_from_the_cache(fake_llm: FakeLLM, tmp_path: Path) -> None:
    suites = example()
    first = await run(suites, tmp_path, "first")
    made = fake_llm.total
    assert made > 0 and first.requests_made == made
    second = await run(suites, tmp_path, "second")
    assert fake_llm.total == made  # zero requests
    assert second.requests_made == 0 and second.cache_hits == first.requests_made
    assert second.summary is not None and second.summary.scored == 35
    third = await run(suites, tmp_path, "third", use_cache=False,
                      selection=TaskSelection(("sum-01",)))
    assert third.requests_made == 2 and fake_llm.total == made + 2


async def test_repeats_are_cached_separately(fake_llm: FakeLLM, tmp_path: Path) -> None:
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    serial = RunOptions(1, OPTIONS.policy)  # repeat 1 starts after repeat 0 has finished
    report = await run(suites, tmp_path, repeats=2, options=serial)
    assert report.summary is not None and report.summary.total == 6
    assert fake_llm.candidate_requests == 6  # the repeat index keys the candidate's cache
    assert fake_llm.judge_requests == 3  # same answers: judged once, then from the cache
    assert {r["seed"] for r in fake_llm.requests} == {0}
    assert report.summary.scored == 6


async def test_resume_runs_only_what_is_missing(fake_llm: FakeLLM, tmp_path: Path) -> None:
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    fake_llm.candidate("HARD-Q", "")  # an empty answer still counts; make the judge fail it
    fake_llm.judge("Reference answer ===\n(none)", verdict(2))
    await fake_llm.close()  # the first run cannot reach the model at all
    report = await run(suites, tmp_path)
    assert report.summary is not None and report.summary.failed == 3
    await fake_llm.start()
    import os

    os.environ["OPENAI_BASE_URL"] = fake_llm.url
    again = await run(suites, tmp_path, resume=True)
    assert fake_llm.total == 0  # failed cases are done unless retry_failed
    assert again.summary is not None and again.summary.failed == 3
    fixed = await run(suites, tmp_path, resume=True, retry_failed=True)
    assert fixed.summary is not None and fixed.summary.scored == 3
    assert fake_llm.candidate_requests == 3
    done = fake_llm.total
    await run(suites, tmp_path, resume=True, retry_failed=True)
    assert fake_llm.total == done


async def test_a_suite_can_bring_its_own_rubric(fake_llm: FakeLLM, tmp_path: Path) -> None:
    write(tmp_path / "my_rubric.txt", "CUSTOM RUBRIC. Grade this: {response}\n"
          'Reply {{"score": 0-5, "feedback": "..."}}')
    suites, problems = load_suites([write(tmp_path / "own.yaml", """\
metadata: {category: summarization, rubric: my_rubric.txt}
test_cases:
  - {case_id: a, instruction: Describe a kettle.}
""")])
    assert problems == []
    await run(suites, tmp_path)
    judge_prompt = next(b for b in fake_llm.requests if b["model"] == "fake-judge")
    assert judge_prompt["messages"][-1]["content"].startswith("CUSTOM RUBRIC. Grade this: A ")
    bad, problems = load_suites([write(tmp_path / "bad.yaml", """\
metadata: {rubric: missing.txt}
test_cases: [{case_id: a, category: summarization, instruction: x}]
""")])
    assert bad == []  # not run with another rubric
    assert problems[0].key == "metadata.rubric" and problems[0].line == 1


async def test_summary_table_has_flat_and_weighted_intervals(fake_llm: FakeLLM,
                                                             tmp_path: Path) -> None:
    for q, a in (("EASY-Q", "ans-e"), ("MEDIUM-Q", "ans-m"), ("HARD-Q", "ans-h")):
        fake_llm.candidate(q, a)
    fake_llm.judge("ans-e", verdict(5)).judge("ans-m", verdict(3)).judge("ans-h", verdict(1))
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    await run(suites, tmp_path)
    rows = list(csv.DictReader((tmp_path / "r1/tables/summary.csv").open()))
    overall = rows[0]
    assert (overall["grouping"], overall["value"], overall["cases"]) == ("overall", "all", "3")
    assert float(overall["mean"]) == 3.0
    assert float(overall["weighted_mean"]) == pytest.approx(14 / 6, abs=1e-4)
    # 3 cases: too few for an interval, so none is written (and the JSON says why)
    assert overall["mean_ci_low"] == overall["mean_ci_high"] == ""
    groups = {(r["grouping"], r["value"]) for r in rows}
    assert {("kind", "general_knowledge"), ("difficulty", "hard"), ("suite", "gk"),
            ("category", "General Knowledge"), ("sub_category", "(none)")} <= groups
    data = json.loads((tmp_path / "r1/tasks_results.json").read_text())
    assert data["overall_weighted_mean"]["estimate"] == pytest.approx(14 / 6)
    assert data["overall_mean"]["too_few"] is True and data["overall_mean"]["low"] is None
    assert data["power"]["too_few"] is True
    assert data["power"]["text"].startswith("too few cases to tell (3 cases")


async def test_repeats_show_where_the_candidate_is_inconsistent(
        fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.candidate("EASY-Q", "first-e", "second-e")  # repeat 0, then repeat 1
    fake_llm.candidate("MEDIUM-Q", "ans-m").candidate("HARD-Q", "ans-h")
    fake_llm.judge("first-e", verdict(4)).judge("second-e", verdict(2))
    fake_llm.judge("ans-m", verdict(3)).judge("ans-h", verdict(5))
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    serial = RunOptions(1, OPTIONS.policy)  # repeat 1 starts after repeat 0 has finished
    report = await run(suites, tmp_path, repeats=2, options=serial)
    rc = report.summary.repeat_consistency if report.summary else None
    assert rc is not None and rc.repeats == 2
    by_case = {c.case_name: c for c in rc.cases}
    e = by_case["e"]
    assert e.scores == (4.0, 2.0) and e.flip_rate == 1.0
    assert e.stdev == pytest.approx(2 ** 0.5) and e.distribution == {4: 0.5, 2: 0.5}
    assert by_case["m"].flip_rate == 0.0 and by_case["m"].stdev == 0.0
    assert [c.case_name for c in rc.unstable] == ["e"]
    # interval alpha by hand: within-case 2 * 2**2 = 8; all pairs 2 * (6 * 88 - 22**2) = 88
    assert rc.alpha == pytest.approx(1 - 5 * 8 / 88)
    rows = list(csv.DictReader((tmp_path / "r1/tables/repeat_consistency.csv").open()))
    assert {r["case_id"]: r["scores"] for r in rows} == {"e": "4 2", "m": "3 3", "h": "5 5"}
    data = json.loads((tmp_path / "r1/tasks_results.json").read_text())
    assert data["repeat_consistency"]["alpha"] == pytest.approx(1 - 40 / 88)


async def test_a_single_repeat_has_no_repeat_consistency(
        fake_llm: FakeLLM, tmp_path: Path) -> None:
    suites, _ = load_suites([write(tmp_path / "gk.yaml", SCORED)])
    report = await run(suites, tmp_path)
    assert report.summary is not None and report.summary.repeat_consistency is None
    assert not (tmp_path / "r1/tables/repeat_consistency.csv").exists()
