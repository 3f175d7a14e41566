"""Runs against a server that fails in every way it can: nothing lost, duplicated or falsified.

The fault server (tests/support/fault_server.py) answers each request with a valid
answer or one injected fault, drawn per (case, attempt) from a seeded RNG. Every
valid answer carries a token ``<submission id>:<attempt>`` in its feedback items and
is recorded by the server, so a scored case can be traced to the valid answer it was
scored from.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.support.fault_server import (
    FAULT_KINDS,
    FaultProfile,
    FaultServer,
    expected_sgis,
)

from eunomia.api import RunOptions, load_all, run_scenarios
from eunomia.scenarios import Scenario, discover
from eunomia.scheduler import RetryPolicy
from eunomia.store import RunStore
from eunomia.targets.athena import AthenaTarget

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
POLICY = RetryPolicy(backoff_initial_s=0.001, backoff_max_s=0.01, retries=3, timeout_s=0.5,
                     retry_after_max_s=0.01, retry_500=True)  # the injected 500s are transient
SEED = 20261122

# About a third of the attempts fail: with 4 attempts per case, roughly 1% of the cases
# fail for good, the rest are scored after 1-4 attempts. Every fault kind occurs.
MIXED = FaultProfile(
    error=0.08, rate_limit=0.02, timeout=0.02, drop=0.05, truncated=0.05, non_json=0.05,
    wrong_shape=0.05, slow_body=0.02, hang_s=1.0, retry_after="0",
)


def make_scenario(root: Path, count: int) -> Path:
    """The example scenario with ``count`` test cases (copies of the 14 under new names)."""
    dest = root / "scenarios"
    shutil.copytree(EXAMPLES, dest, ignore=shutil.ignore_patterns("_generate.py", "__pycache__"))
    cases = dest / "project_management" / "test_cases"
    originals = sorted(cases.glob("*.json"))
    texts = [p.read_text(encoding="utf-8") for p in originals]
    for p in originals:
        p.unlink()
    for i in range(count):
        orig = originals[i % len(originals)].stem
        (cases / f"c{i:04d}_{orig}.json").write_text(texts[i % len(texts)], encoding="utf-8")
    return dest / "project_management"


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


async def run_against(server: FaultServer, folder: Path, results: Path, *,
                      concurrency: int = 50, policy: RetryPolicy = POLICY,
                      run_name: str = "faults") -> Scenario:
    sources, problems = discover([folder])
    assert not [p for p in problems if p.severity == "error"], problems
    loaded, _ = load_all(sources)
    target = AthenaTarget(server.url, secret="fault-secret-1", max_connections=concurrency)
    await run_scenarios(loaded, target, run_name=run_name, results_dir=results,
                        options=RunOptions(concurrency, policy))
    return loaded[0].scenario


def case_jsons(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))
            for p in (folder / "test_cases").glob("*.json")}


async def test_thousand_cases_under_faults(tmp_path: Path) -> None:
    folder = make_scenario(tmp_path, 1000)
    results = tmp_path / "results"
    started = time.monotonic()
    async with FaultServer(MIXED, seed=SEED) as server:
        scenario = await run_against(server, folder, results)
    elapsed = time.monotonic() - started
    # about 10 s on an idle 2-core machine; the bound only catches a hang or a retry storm
    assert elapsed < 60, f"the 1,000-case run took {elapsed:.1f} s"

    stats = server.stats
    by_sid = {c.submission_id: c for c in scenario.test_cases}
    names = {c.name for c in scenario.test_cases}
    assert len(names) == 1000
    # every fault kind was exercised, and most cases needed no more than a retry or two
    assert all(stats.faults[kind] > 0 for kind in FAULT_KINDS), stats.faults
    assert stats.bad_requests == 0
    assert set(stats.counts) == set(by_sid), "every case was requested"
    assert max(stats.counts.values()) <= POLICY.retries + 1

    # the store: exactly one outcome per case
    store = RunStore(results / "eunomia.db")
    try:
        run = store.require_run("faults")
        assert run.status == "complete"
        rows = list(store.iter_cases(run))
    finally:
        store.close()
    assert len(rows) == 1000
    assert Counter(r.case_name for r in rows) == Counter(names)
    assert {r.status for r in rows} <= {"scored", "failed"}

    # the CSV: exactly one row per case, and the same statuses as the store
    out = results / "faults" / "project_management"
    table = read_csv(out / "tables" / "test_case_results.csv")
    assert len(table) == 1000
    assert Counter(r["Test Case"] for r in table) == Counter(names)
    assert {r["Test Case"]: r["Status"] for r in table} == {r.case_name: r.status for r in rows}

    details = case_jsons(out)
    assert set(details) == names
    valid_tokens = stats.valid_tokens()
    scored = failed = 0
    for case in scenario.test_cases:
        sid = case.submission_id
        d = details[case.name]
        if d["status"] == "scored":
            scored += 1
            tokens = {item["meta"]["fault_token"] for item in d["feedback"]}
            # scored from exactly one valid answer the server sent, and the last request
            assert len(tokens) == 1, (case.name, tokens)
            (token,) = tokens
            assert token in valid_tokens, (case.name, token)
            assert token == f"{sid}:{stats.counts[sid]}", "requested again after a valid answer"
            sent = {s.attempt: s.sgis for s in stats.valid[sid]}
            returned = [r["id"] for r in d["returned_instructions"]]
            assert sorted(returned) == sent[int(token.split(":")[1])]
            assert sorted(returned) == expected_sgis(SEED, sid, case.submission,
                                                     sorted(scenario.instructions))
            assert d["attempts"] == stats.counts[sid]
        else:
            failed += 1
            assert d["status"] == "failed"
            assert d["error"], case.name
            assert d["feedback"] == [] and "returned_instructions" not in d
            # a failed case used up its attempts, and its reason is what its last attempt got
            # (a valid answer can only be missed by timing out: on a very busy machine)
            assert stats.counts[sid] == POLICY.retries + 1, (case.name, d["error"])
            last = stats.history[sid][-1]
            pattern = REASONS["timeout"] if last == "valid" else REASONS[last]
            assert re.search(pattern.replace("0.3", "0.5"), d["error"]), (last, d["error"])
    assert scored + failed == 1000
    assert scored > 900 and failed > 0, (scored, failed)

    # the failure list names every failed case with its reason
    failures = json.loads((out / "failures.json").read_text(encoding="utf-8"))
    assert len(failures) == failed
    assert all(f["reason"] for f in failures)
    summary = {r["Metric"]: r["Value"] for r in read_csv(out / "tables" / "scenario_summary.csv")}
    assert summary["Total Cases"] == "1000"
    assert summary["Failed Cases"] == str(failed)
    assert summary["Scored Cases"] == str(scored)


# Each fault alone, on every attempt: every case fails, with a reason that says what happened.
REASONS = {
    "error": r"HTTP 50[023]: injected",
    "rate_limit": r"HTTP 429",
    "timeout": r"timed out after 0.3 s",
    "drop": r"connection error: Server disconnected",
    "truncated": r"connection error: Response payload is not completed",
    "non_json": r"response is not JSON",
    "wrong_shape": r"response has the wrong shape",
    "slow_body": r"timed out after 0.3 s",
}


@pytest.mark.parametrize("kind", FAULT_KINDS)
async def test_each_fault_alone_fails_every_case_with_its_reason(
    kind: str, tmp_path: Path
) -> None:
    folder = make_scenario(tmp_path, 6)
    policy = RetryPolicy(backoff_initial_s=0.001, backoff_max_s=0.005, retries=1, timeout_s=0.3,
                         retry_after_max_s=0.01, retry_500=True)
    only: dict[str, Any] = {kind: 1.0}
    profile = FaultProfile(hang_s=1.0, **only)
    async with FaultServer(profile, seed=1) as server:
        await run_against(server, folder, tmp_path / "results", concurrency=6, policy=policy)
    details = case_jsons(tmp_path / "results" / "faults" / "project_management")
    assert len(details) == 6
    for name, d in details.items():
        assert d["status"] == "failed", (name, d)
        assert re.search(REASONS[kind], d["error"]), (kind, d["error"])
        assert d["attempts"] == 2
    assert server.stats.faults[kind] == 12
    assert sorted(server.stats.counts.values()) == [2] * 6


async def test_fault_free_server_scores_every_case_once(tmp_path: Path) -> None:
    folder = make_scenario(tmp_path, 30)
    async with FaultServer(FaultProfile(), seed=3) as server:
        scenario = await run_against(server, folder, tmp_path / "results", concurrency=8)
    details = case_jsons(tmp_path / "results" / "faults" / "project_management")
    assert {d["status"] for d in details.values()} == {"scored"}
    assert set(server.stats.counts.values()) == {1}
    for case in scenario.test_cases:
        returned = sorted(r["id"] for r in details[case.name]["returned_instructions"])
        assert returned == server.stats.valid[case.submission_id][0].sgis
