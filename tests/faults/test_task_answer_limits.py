"""A model's answers within and over the response limit in a task run (issue 31, point 1), as
a user runs ``eunomia eval`` against an OpenAI-compatible endpoint on 127.0.0.1 that answers
12 MB: refused at the default 10 MB limit, naming it; read with ``--max-response-mb 13``, kept
whole once in the run store and cut, saying so, in the result files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tests.support.cli import run_cli
from tests.support.hostile_server import HostileServer
from tests.support.store_size import stored_blob_bytes

from eunomia import defaults
from eunomia.store import RunStore
from eunomia.tasks import CaseResult

SUITE = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "ecommerce" / \
    "general_knowledge.yaml"
MB = 1_000_000


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer()
    with server.in_thread():
        yield server


def test_eval_refuses_a_12_mb_answer_by_default_and_cuts_it_in_files_when_raised(
        hostile: HostileServer, tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": f"{hostile.base_url}/openai/{12 * MB}", "OPENAI_API_KEY": "k"}
    results = tmp_path / "results"
    common = ("eval", SUITE, "--model", "openai:m", "--judge", "none", "--max-cases", "2",
              "--results", results, "--retries", "0")
    refused = run_cli(*common, "--run-name", "default", cwd=tmp_path, env=env, timeout=120)
    assert "Traceback" not in refused.stdout + refused.stderr
    assert refused.returncode == 1, refused.stdout + refused.stderr
    failures = json.loads((results / "default" / "failures.json").read_text(encoding="utf-8"))
    reasons = [f.get("error") or f.get("reason") or "" for f in failures]
    assert len(reasons) == 2
    assert all("larger than the 10 MB response limit" in r and "--max-response-mb" in r
               for r in reasons), reasons

    raised = run_cli(*common, "--run-name", "raised", "--max-response-mb", "13",
                     "--jsonl", tmp_path / "cases.jsonl", cwd=tmp_path, env=env, timeout=120)
    assert "Traceback" not in raised.stdout + raised.stderr
    written = results / "raised" / "tasks" / "general_knowledge.yaml"
    assert written.stat().st_size < 3 * defaults.FEEDBACK_TEXT_MAX  # not 24 MB
    cases = [c for c in yaml.safe_load(written.read_text(encoding="utf-8"))["test_cases"]
             if "response_candidate_model" in c]
    assert len(cases) == 2
    for case in cases:
        answer = case["response_candidate_model"]
        assert answer.startswith("z" * 1000)
        assert "… [cut by Eunomia at 100,000 of 11,999," in answer
        assert "the whole answer is kept in the run store" in answer
    lines = (tmp_path / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(len(line) < 3 * defaults.FEEDBACK_TEXT_MAX for line in lines)
    assert all("cut by Eunomia at 100,000" in json.loads(line)["answer"] for line in lines)
    # the whole answer is in the store, once per case, compressed
    store = RunStore(results / "eunomia.db")
    try:
        rows = list(store.iter_cases(store.require_run("raised")))
        assert len(rows) == 2
        for row in rows:
            assert row.response is not None
            whole = CaseResult.model_validate(store.get_json(row.response)).response
            assert len(whole) > 11_900_000 and "cut by Eunomia" not in whole
    finally:
        store.close()
    stored = stored_blob_bytes(results / "eunomia.db")
    assert stored < MB
