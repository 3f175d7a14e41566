"""The export of a task run reads each stored answer once (in each suite's file order, for
its YAML) and writes the tables, failures.json and the summary in the store's order: the
same files and figures as reading every record at once (the reference below), whether the
parked rows stay in memory or go to a file, with rows no case of the suite names, with a
name met twice, for one candidate and for several."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from rich.console import Console
from tests.tasks.conftest import EXAMPLE_SUITE, write

from eunomia.api import RunOptions, run_tasks
from eunomia.judge import Verdict
from eunomia.kinds.tasks import (
    TasksSummary,
    _reorder,
    stored_summary,
    suite_yaml,
    summarize,
    task_records,
)
from eunomia.kinds.tasks import _files as files_module
from eunomia.kinds.tasks._figures import case_figures
from eunomia.kinds.tasks._files import export_tasks, stored_record
from eunomia.kinds.tasks._reorder import Parked
from eunomia.kinds.tasks._tables import CASE_COLUMNS, _check_json, failure_json, table_row
from eunomia.models import ChatRequest, ChatResult, Usage, resolve_spec
from eunomia.scheduler import RetryPolicy
from eunomia.store import CaseRow, RunInfo, RunStore
from eunomia.tasks import (
    CaseMeta,
    CaseRecord,
    CaseResult,
    CheckResult,
    iter_entries,
    load_suites,
    loaded_case,
    read_suite,
)
from eunomia.tasks._snapshot import EntryMetas


class _Provider:
    """Answers at once: some calls fail, some verdicts are unusable, some carry
    log-probabilities, two model names (prices)."""

    name = "openai:fake"

    def __init__(self) -> None:
        self.calls = 0

    async def chat(self, request: ChatRequest) -> ChatResult:
        self.calls += 1
        k = sum(map(ord, request.messages[-1].content)) + self.calls
        if request.json_schema is None and k % 7 == 0:
            raise RuntimeError(f"boom {k % 3}")
        if request.json_schema is not None:
            text = "not json" if k % 11 == 0 else json.dumps(
                {"score": k % 6, "feedback": "ok\nfine" if k % 2 else "ok"})
        else:
            text = ["The answer is 42.", "line one\nline two\n", "ü — ✓", "", "x "][k % 5]
        dist = None
        if request.score_logprobs and k % 3:
            dist = {v: 1 / len(request.score_logprobs) for v in request.score_logprobs}
        return ChatResult(text=text, usage=Usage(input_tokens=k % 90, output_tokens=k % 9),
                          latency_s=(k % 97) / 100, score_distribution=dist,
                          time_to_first_token_s=0.01 if request.stream else None,
                          model="fake" if k % 4 else "fake-b")

    async def close(self) -> None:
        pass


def _shuffled_suite(folder: Path) -> Path:
    """Cases out of name order, human scores, an unusable case, a duplicate name."""
    names = ["m", "c", "x", "a", "q", "b", "z", "k"]
    cases = "".join(
        f"  - {{case_id: {n}, instruction: 'Q {i} {n}?', difficulty_level: "
        f"{('easy', 'medium', 'hard')[i % 3]}"
        + (", checks: [{contains: '42'}]" if i % 2 else "")
        + (f", human_score: {i % 6}" if i % 3 == 0 else "") + "}\n"
        for i, n in enumerate(names))
    return write(folder / "shuffled.yaml",
                 "metadata: {category: general knowledge}\ntest_cases:\n" + cases
                 + "  - {case_id: bad, instruction: x, difficulty_level: extreme}\n"
                 + "  - {case_id: c, instruction: again}\n")


async def _run(folder: Path, candidates: list[str]) -> RunStore:
    suites, problems = load_suites([EXAMPLE_SUITE, _shuffled_suite(folder / "suites")])
    assert len(problems) == 2  # the unusable case and the duplicate name
    provider = _Provider()
    await run_tasks(
        suites, candidate=[resolve_spec(c) for c in candidates],
        judge=resolve_spec("openai:judge"), run_name="r", results_dir=folder / "res",
        console=Console(quiet=True), options=RunOptions(4, RetryPolicy(retries=0, timeout_s=10)),
        providers=(provider, provider), repeats=2, judge_repeats=2)
    return RunStore(folder / "res" / "eunomia.db")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _reference(db: RunStore, run: RunInfo, candidate: str, target: str | None
               ) -> tuple[dict[str, str], TasksSummary]:
    """The files and summary from every record at once, in the store's order."""
    suites, records, prices = task_records(db, run, target)
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(CASE_COLUMNS))
    writer.writeheader()
    for r in records:
        writer.writerow(dict(zip(CASE_COLUMNS, table_row(r), strict=True)))
    failures = [failure_json(f) for f in (r.failure for r in records) if f is not None]
    files = {"tables/cases.csv": table.getvalue(),
             "failures.json": json.dumps(failures, indent=2)}
    for suite in suites:
        files[f"tasks/{suite.name}.yaml"] = suite_yaml(
            suite, [r for r in records if r.suite == suite.name])
    settings = run.settings
    summary = summarize(records, candidate=candidate, judge=str(settings["judge"]),
                        weights=settings["weights"], judge_repeats=settings["judge_repeats"],
                        prices=prices)
    return files, summary


def _check_export(db: RunStore, out: Path, walked: set[str] | None = None
                  ) -> dict[str, bytes]:
    """Export the run to ``out`` and hold each candidate's files and summary to the
    reference; the files written. ``walked``: the suites whose stored rows the export is
    to read again in the store's order (the others' rows are all met in the suite's)."""
    run = db.require_run("r")
    seen: list[str | None] = []
    iter_cases = db.iter_cases

    def counted(run: RunInfo, suite: str | None = None, target: str | None = None
                ) -> Iterator[CaseRow]:
        seen.append(suite)
        return iter_cases(run, suite, target)

    read: list[tuple[str, str, str, int]] = []

    def record(store: RunStore, suite: str, row: CaseRow, meta: CaseMeta | None,
               blobs: Mapping[str, bytes] | None = None) -> CaseRecord:
        read.append((suite, row.target, row.case_name, row.repeat))
        return stored_record(store, suite, row, meta, blobs)

    db.iter_cases = counted  # type: ignore[method-assign]
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(files_module, "stored_record", record)
            exported = export_tasks(db, run, out)
    finally:
        del db.iter_cases
    assert set(seen) == (walked or set())
    if not walked:  # each stored answer read once
        assert sorted(read) == sorted(db.finished_keys(run))
    assert [e.target for e in exported] == run.targets
    for e in exported:
        target = e.target if len(run.targets) > 1 else None
        files, summary = _reference(db, run, e.target, target)
        for name, text in files.items():
            assert (e.folder / name).read_bytes().decode("utf-8") == text, name
        assert e.summary == summary
        assert stored_summary(db, run, e.target, target) == summary
        assert summary.failed and summary.invalid and summary.repeat_consistency is not None
    return _files(out)


@pytest.mark.parametrize("candidates", [["openai:cand"], ["openai:cand", "openai:other"]])
async def test_one_pass_export_is_every_record_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_model_config: Path,
        candidates: list[str]) -> None:
    db = await _run(tmp_path, candidates)
    try:
        in_memory = _check_export(db, tmp_path / "a")
        monkeypatch.setattr(_reorder, "KEPT_IN_MEMORY", 3)  # every suite's rows in a file
        assert _check_export(db, tmp_path / "b") == in_memory
    finally:
        db.close()


async def test_rows_no_case_names_are_exported_in_store_order(
        tmp_path: Path, no_model_config: Path) -> None:
    """A case taken out of the suite file since (on --resume): its rows are still in the
    tables and the summary, where the store's order puts them."""
    db = await _run(tmp_path, ["openai:cand"])
    try:
        run = db.require_run("r")
        for name, status in (("0-first", "failed"), ("n-between", "unscored"),
                             ("zz-last", "failed")):
            db.record_case(run, CaseRow(
                suite="shuffled", target="openai:cand", case_name=name, repeat=0,
                status=status, error="gone" if status == "failed" else None, attempts=1,
                latency_s=None, cached=False, score=None, input_tokens=0, output_tokens=0,
                cost=None, request=None, response=None, finished="2026-01-01T00:00:00"))
        _check_export(db, tmp_path / "a", {"shuffled"})  # only its suite walked again
        cases = (tmp_path / "a" / "r" / "tables" / "cases.csv").read_text()
        assert cases.index("shuffled,0-first,") < cases.index("shuffled,a,") \
            < cases.index("shuffled,n-between,") < cases.index("shuffled,zz-last,")
    finally:
        db.close()


async def test_a_name_met_twice_takes_its_last_case(tmp_path: Path,
                                                    no_model_config: Path) -> None:
    """A whole-suite snapshot (older stores) holding two cases of one name: the tables take
    the last one's groups, as when the suite is read whole."""
    db = await _run(tmp_path, ["openai:cand"])
    try:
        run = db.require_run("r")
        info = next(i for i in db.suites(run) if i.name == "shuffled")
        suite = read_suite(db, info)
        cases = [c.model_dump(mode="json", by_alias=True) for c in suite.cases]
        changed = {"difficulty_level": "hard", "category": "summarization"}
        twin = {**cases[0], "case": {**cases[0]["case"], **changed},
                "raw_json": json.dumps({**json.loads(cases[0]["raw_json"]), **changed})}
        whole = {"name": suite.name, "path": suite.path, "shape": suite.shape,
                 "top_level_json": suite.top_level_json, "rubric": suite.rubric,
                 "rubric_path": suite.rubric_path, "invalid": suite.invalid,
                 "cases": [*cases, twin]}
        db.add_suite(run, info.name, info.path, whole, db.get_json(info.prices))
        _check_export(db, tmp_path / "a", {"shuffled"})
        row = next(r for r in csv.DictReader(
            (tmp_path / "a" / "r" / "tables" / "cases.csv").open(encoding="utf-8"))
            if r["case_id"] == cases[0]["name"])
        assert (row["difficulty"], row["category"]) == ("hard", "summarization")
    finally:
        db.close()


# --- the pieces -----------------------------------------------------------------------
async def test_figures_are_what_the_record_gives(tmp_path: Path,
                                                 no_model_config: Path) -> None:
    db = await _run(tmp_path, ["openai:cand"])
    try:
        _, records, _ = task_records(db, db.require_run("r"))
    finally:
        db.close()
    for r in records:
        f = case_figures(r)
        res = r.result
        assert (f.repeat, f.status, f.cached, f.score) == (r.repeat, r.status, r.cached,
                                                           r.score)
        failure = r.failure
        assert f.reason == (failure[4] if failure is not None else None)
        assert f.answered == (res is not None)
        if res is None:
            continue
        checks = res.all_checks()
        assert (f.checks_passed, f.checks_total) == (sum(c.passed for c in checks),
                                                     len(checks))
        assert f.prob == res.prob_score
        assert f.verdicts == tuple(v.score for v in res.all_verdicts())
        assert f.latency == res.candidate_latency_s
        assert [(c.role, c.model, c.input_tokens, c.output_tokens, c.cached_input_tokens,
                 c.reported_cost, c.attempts > 0 or c.cached)
                for c in res.calls] == list(f.calls)


def test_figures_score_is_the_results_score() -> None:
    for scores in ([5], [1, 2], [0, 4, 5], [3, 3, 4, 5, 1]):
        result = CaseResult(kind="general_knowledge",
                            verdicts=[Verdict(score=s, weighted_score=s + 0.1)
                                      for s in scores])
        f = case_figures(_record(result))
        assert f.score == result.score and f.prob == result.prob_score


def _record(result: CaseResult) -> CaseRecord:
    return CaseRecord(suite="s", case_name="c", repeat=0, status=result.status, case=None,
                      result=result)


def test_a_check_is_written_as_its_model_dump() -> None:
    c = CheckResult(name="regex 'x'", passed=False, detail="no match")
    assert _check_json(c) == c.model_dump()
    assert list(_check_json(c)) == list(CheckResult.model_fields)


def test_entry_metas_are_those_of_the_whole_cases() -> None:
    suites, _ = load_suites([EXAMPLE_SUITE])
    metas = EntryMetas()
    entries = [e for s in suites for e in iter_entries(s)]
    for raw in ({"human_score": 3}, {"human_score": 3.0}, {"human_score": "4.5"},
                {"difficulty_level": " Easy ", "sub_category": ["a", " ", "b "]},
                {"sub_category": "x; y", "category": " Summarization "},
                {"category": "astrology"}, {}):
        entries.append(("n", "general_knowledge", 0, None,
                        json.dumps({"case_id": "n", "instruction": "i", **raw})))
    for entry in entries:
        meta = metas.of(entry)
        assert meta == CaseMeta.of(loaded_case(entry))
        assert type(meta.human_score) is type(CaseMeta.of(loaded_case(entry)).human_score)


def test_parked_values_come_back_by_key_in_memory_and_from_a_file() -> None:
    values = {("b", 3 - i % 4, i): ({"x": i, "y": [1.5, None, True]}, (i, "s", (1, 2)))
              for i in range(7)}
    for kept in (100, 2, 0):
        with Parked[tuple[str, int, int]](kept) as parked:
            for key, value in values.items():
                parked.put(key, value)
            assert len(parked) == 7
            assert list(parked.in_order()) == sorted(values.items())
        with Parked[tuple[str, int, int]](kept) as parked:
            for key, value in values.items():
                parked.put(key, value)
            for key in sorted(values, reverse=True):
                assert parked.take(key) == values[key]
                assert parked.take(key) is None
            parked.put(("a", 0, 0), ({}, ()))  # after reading
            assert parked.take(("a", 0, 0)) == ({}, ())
