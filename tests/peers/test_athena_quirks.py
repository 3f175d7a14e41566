"""What Eunomia makes of the legacy Athena modeling module's quirks (issue 13): 500s not retried
unless asked and every attempt logged, failure reasons that name their causes, ids that
overwrite nothing in Athena's database, the module's own cost figure kept, and the unlabelled
scenario of Athena's 39 real submissions built by `eunomia import athena` and run.

The module's LLM is the scripted stand-in; see test_athena_module.py and tests/peers/conftest.py.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.peers.conftest import LMS_DEPLOYMENT, AthenaPeer, RecordingProxy
from tests.peers.test_athena_module import EXAMPLE, ROOT, module_base
from tests.support.cli import run_cli

from eunomia.athena import DEFAULT_ID_BASE, ID_LIMIT, AthenaIds

pytestmark = pytest.mark.slow


def _scenario() -> Any:
    from eunomia.scenarios import load_scenario

    loaded, diags = load_scenario(EXAMPLE)
    assert loaded is not None, diags
    return loaded


def _v2(case: Any) -> Any:
    import dataclasses

    diagram = json.loads(case.submission)
    diagram.update(version="2.0.0", elements=list(diagram["elements"].values()),
                   relationships=list(diagram["relationships"].values()))
    return dataclasses.replace(case, submission=json.dumps(diagram))


async def _attempts(target: Any, scenario: Any, case: Any, policy: Any) -> Any:
    from eunomia.scheduler import CallError, call_with_retry

    try:
        return await call_with_retry(lambda: target.feedback(scenario, case), policy)
    except CallError as exc:
        return exc
    finally:
        await target.close()


async def test_500_is_not_retried_unless_asked_and_every_attempt_is_logged(
        athena_legacy: AthenaPeer) -> None:
    """The module's LLM answers non-JSON: the module answers 500 and reports none of the tokens
    it spent. By default Eunomia asks once; with retry_500 it asks again, and the log tells
    the 500s (each one an LLM call) from connection resets (none)."""
    from tests.support.athena_llm_standin import prompt_kind

    from eunomia.scheduler import CallError, RetryPolicy
    from eunomia.targets.athena import AthenaTarget

    peer = athena_legacy
    scenario = _scenario()
    case = scenario.test_cases[0]
    peer.standin.content_override = (
        lambda request: "this is not JSON" if prompt_kind(request) == "feedback" else None)
    try:
        before = len(peer.standin.completions)
        once = await _attempts(AthenaTarget(peer.module_url, secret=peer.secret), scenario, case,
                               RetryPolicy(retries=3, backoff_initial_s=0.01))
        assert isinstance(once, CallError)
        assert once.attempt_log == ("HTTP 500",) and once.attempts == 1
        assert once.reason == "HTTP 500: Internal Server Error"
        assert len(peer.standin.completions) - before == 1  # one LLM call spent, unreported

        before = len(peer.standin.completions)
        again = await _attempts(
            AthenaTarget(peer.module_url, secret=peer.secret, max_connections=1), scenario, case,
            RetryPolicy(retries=3, backoff_initial_s=0.01, backoff_max_s=0.05, retry_500=True))
        assert isinstance(again, CallError)
        log = again.attempt_log
        assert again.attempts == len(log) == 4
        assert log[0] == "HTTP 500"
        assert set(log) <= {"HTTP 500", "connection reset", "server disconnected"}, log
        # every 500 is one LLM call the module made; a reset reached no LLM
        assert log.count("HTTP 500") == len(peer.standin.completions) - before
    finally:
        peer.standin.content_override = None


async def test_failure_reasons_name_their_causes(athena_legacy: AthenaPeer,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from eunomia.scheduler import CallError, RetryPolicy
    from eunomia.targets import TargetConfig, build_target
    from eunomia.targets.athena import AthenaTarget

    peer = athena_legacy
    scenario = _scenario()
    case = scenario.test_cases[0]
    policy = RetryPolicy(retries=3, backoff_initial_s=0.01)
    # a version-2 diagram: the module's 500, explained, and asked once
    v2 = await _attempts(AthenaTarget(peer.module_url, secret=peer.secret), scenario,
                         _v2(case), policy)
    assert isinstance(v2, CallError) and v2.attempt_log == ("HTTP 500",)
    assert "Apollon version-2 diagram" in v2.reason
    if peer.manager_url is None:
        pytest.skip(f"the module manager did not start here:\n{peer.manager_problem}")
    # the manager's 401 for an X-Server-URL that is none of its deployments, the secret right
    monkeypatch.setenv("EUNOMIA_PEER_SECRET", peer.secret)
    target = build_target(f"athena:{peer.manager_url}",
                          TargetConfig(secret_env="EUNOMIA_PEER_SECRET"))
    assert isinstance(target, AthenaTarget)
    [warning] = target.warnings()
    assert "http://localhost:8080" in warning
    refused = await _attempts(target, scenario, case, policy)
    assert isinstance(refused, CallError) and refused.attempt_log == ("HTTP 401",)
    assert refused.reason.startswith('HTTP 401: {"detail":"Invalid API secret."}')
    assert "$EUNOMIA_PEER_SECRET" in refused.reason
    assert "X-Server-URL (http://localhost)" in refused.reason
    assert peer.secret not in refused.reason
    # with a deployment of the manager, the same secret works
    good = build_target(f"athena:{peer.manager_url}",
                        TargetConfig(secret_env="EUNOMIA_PEER_SECRET",
                                     x_server_url=LMS_DEPLOYMENT))
    assert isinstance(good, AthenaTarget) and good.warnings() == []
    answered = await _attempts(good, scenario, case, policy)
    assert answered.log == ("ok",)
    total = answered.value.raw["meta"]["totalUsage"]
    assert answered.value.reported_cost == total["cost"] > 0


def _rows(peer: AthenaPeer, query: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(peer.run_dir / "data" / "module.sqlite") as db:
        return list(db.execute(query, args).fetchall())


def test_two_scenarios_and_two_runs_overwrite_nothing_in_athena(
        athena_legacy: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    import asyncio
    import shutil

    from eunomia.targets.athena import AthenaTarget

    peer = athena_legacy
    scenarios = tmp_path / "scenarios"
    shutil.copytree(EXAMPLE, scenarios / "project_management",
                    ignore=shutil.ignore_patterns("_generate.py", "__pycache__"))
    shutil.copytree(EXAMPLE, scenarios / "pm_copy",
                    ignore=shutil.ignore_patterns("_generate.py", "__pycache__"))
    shutil.copy(EXAMPLE.parent / "llm_cost.yml", scenarios / "llm_cost.yml")
    proxy = recording_proxy(module_base(peer))
    url = proxy.url + "/feedback_suggestions"
    results = tmp_path / "results"
    for name, extra in (("project_management", ()), ("pm_copy", ("--max-cases", "3"))):
        proc = run_cli("run", scenarios / name, "--target", f"athena:{url}", "--results",
                       results, "--run-name", f"ids-{name}", *extra, cwd=tmp_path,
                       env={"ATHENA_SECRET": peer.secret}, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    sent = [json.loads(r.request_body) for r in proxy.take() if r.method == "POST"]
    assert len(sent) == 14 + 3
    first = {s["submission"]["id"]: s["exercise"]["id"] for s in sent[:14]}
    second = {s["submission"]["id"]: s["exercise"]["id"] for s in sent[14:]}
    assert len(first) == 14 and len(second) == 3 and not set(first) & set(second)
    assert all(DEFAULT_ID_BASE <= i < ID_LIMIT for i in [*first, *first.values()])
    assert set(first.values()) != set(second.values())
    # Every submission of the first scenario is still its own (before: the second scenario's
    # submissions 1..3 took over rows 1..3 of the first, and their feedback with them).
    for submission_id, exercise_id in {**first, **second}.items():
        assert _rows(peer, "SELECT exercise_id FROM modeling_submissions WHERE id = ?",
                     submission_id) == [(exercise_id,)]
    assert _rows(peer, "SELECT COUNT(*) FROM modeling_feedbacks f JOIN modeling_submissions s "
                       "ON f.submission_id = s.id WHERE f.exercise_id != s.exercise_id "
                       "AND s.id >= ?", DEFAULT_ID_BASE) == [(0,)]

    # Two runs (their names as seeds) of one case: two submissions, one exercise.
    scenario = _scenario()
    case = scenario.test_cases[0]

    async def ask(seed: str) -> Any:
        target = AthenaTarget(peer.module_url, secret=peer.secret, id_seed=seed)
        try:
            return await target.feedback(scenario, case)
        finally:
            await target.close()

    run_a, run_b = (asyncio.run(ask(seed)) for seed in ("nightly-1", "nightly-2"))
    ids_a, ids_b = AthenaIds(seed="nightly-1"), AthenaIds(seed="nightly-2")
    sid_a = ids_a.submission_id(scenario.name, case.submission_id)
    sid_b = ids_b.submission_id(scenario.name, case.submission_id)
    assert sid_a != sid_b
    assert {i.submission_id for i in run_a.feedback} == {sid_a}
    assert {i.submission_id for i in run_b.feedback} == {sid_b}
    exercise_id = ids_a.exercise_id(scenario.name)
    assert _rows(peer, "SELECT id, exercise_id FROM modeling_submissions WHERE id IN (?, ?) "
                       "ORDER BY id", sid_a, sid_b) == sorted([(sid_a, exercise_id),
                                                              (sid_b, exercise_id)])


ATHENA_EXERCISE_6 = ROOT.parent / "shared" / "peers" / "athena" / "playground" / "data" / \
    "example" / "exercise-6.json"


@pytest.mark.skipif(not ATHENA_EXERCISE_6.is_file(), reason="Athena's playground data absent")
def test_athena_loan_real_built_by_eunomia_import_runs_on_the_module(
        athena_legacy: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    """The unlabelled scenario of Athena's 39 real submissions, as `eunomia import athena`
    builds it: the files are the playground's bytes, and the module answers three of them (no
    criteria sent, so it first asks its LLM for criteria of its own: two LLM calls per case)."""
    import shutil

    peer = athena_legacy
    scenarios = tmp_path / "scenarios"
    folder = scenarios / "athena_loan_real"
    made = run_cli("import", "athena", ATHENA_EXERCISE_6, "--output", folder, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    shutil.copy(EXAMPLE.parent / "llm_cost.yml", scenarios / "llm_cost.yml")
    source = json.loads(ATHENA_EXERCISE_6.read_text(encoding="utf-8"))
    files = sorted((folder / "test_cases").glob("*.json"))
    assert len(files) == len(source["submissions"]) == 39
    for path, submission in zip(files, source["submissions"], strict=True):
        assert path.read_text(encoding="utf-8") == submission["model"]
    manifest = yaml.safe_load((folder / "manifest.yml").read_text(encoding="utf-8"))
    assert "default_expected" not in manifest and manifest["criteria"] == []
    assert manifest["exercise"]["problem_statement"] == source["problem_statement"]

    proxy = recording_proxy(module_base(peer))
    before = len(peer.standin.completions)
    proc = run_cli("run", folder, "--target", f"athena:{proxy.url}/feedback_suggestions",
                   "--results", tmp_path / "results", "--run-name", "real", "--max-cases", "3",
                   cwd=tmp_path, env={"ATHENA_SECRET": peer.secret}, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    posts = [r for r in proxy.take() if r.method == "POST"]
    assert len(posts) == 3 and all(r.status == 200 for r in posts)
    for record in posts:
        body = json.loads(record.request_body)
        assert body["exercise"]["gradingCriteria"] == []
        assert len(json.loads(record.response_body)["meta"]["llmRequests"]) == 2
    kinds = Counter(e.kind for e in peer.standin.completions[before:])
    assert kinds == Counter({"criteria": 3, "feedback": 3})
