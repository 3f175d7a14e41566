"""``eunomia eval --model http:NAME`` and ``eunomia run --target http:NAME`` as a user runs
them (a subprocess in a folder with a ``models.yml``), against the three examples of
docs/http-targets.md served on 127.0.0.1 by :class:`FakeApps`."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.http_target.docs_examples import write_models
from tests.http_target.fake_apps import (
    APP_KEY,
    BOT_KEY,
    GATEWAY_KEY,
    KEYS,
    RETRY_AFTER_S,
    STREAM_DELAY_S,
    FakeApps,
)
from tests.support.cli import run_cli

from eunomia.store import CaseRow, RunStore


def _folder(tmp_path: Path, apps: FakeApps) -> Path:
    base = apps.url.rstrip("/")
    write_models(tmp_path, "openai-app", "custom-api", "athena-gateway", base_url=base)
    return tmp_path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _rows(store: Path, run: str) -> dict[str, CaseRow]:
    db = RunStore(store)
    try:
        return {r.case_name: r for r in db.iter_cases(db.require_run(run))}
    finally:
        db.close()


def _stored(store: Path, digest: str | None) -> object:
    assert digest is not None
    db = RunStore(store)
    try:
        return db.get_json(digest)
    finally:
        db.close()


def assert_secret_nowhere(results: Path, *secrets: str) -> None:
    """No byte of any file under ``results`` (the SQLite store and its journal included)
    holds a secret."""
    files = [p for p in results.rglob("*") if p.is_file()]
    assert any(p.suffix == ".db" for p in files), files
    for path in files:
        data = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in data, f"{secret!r} in {path}"


APP_SUITES = {
    "general_knowledge.yaml": """\
- case_id: gk-1
  system_prompt: Be brief.
  instruction: What is six times seven?
  checks: [{contains: "is 42"}]
""",
    "inference_speed.yaml": """\
- case_id: sp-1
  instruction: Tell me about parcels.
  expected_output_length: 12
  checks: [{contains: "42"}]
""",
    "context_retention.yaml": """\
- case_id: cr-1
  system_prompt: Remember what the customer says.
  conversation:
    - user: My shoe size is 43.
    - user: Which size do I wear?
      eval_point: Says 43.
      check: {contains: "turn 2"}
""",
}


def test_eval_an_openai_compatible_app_route_streamed(apps: FakeApps, tmp_path: Path) -> None:
    folder = _folder(tmp_path, apps)
    for name, text in APP_SUITES.items():
        _write(folder / "suites" / name, text)
    before = len(apps.requests("/v1/chat/completions"))
    done = run_cli("eval", "suites", "--model", "http:myapp", "--judge", "none",
                   "--run-name", "app", cwd=folder, env=KEYS)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = apps.requests("/v1/chat/completions")[before:]
    assert len(seen) == 4  # gk, sp and the two turns of cr
    assert all(s.headers["Authorization"] == f"Bearer {APP_KEY}" for s in seen)
    last_turn = next(s for s in seen
                     if s.json["messages"][-1]["content"] == "Which size do I wear?")
    roles = [m["role"] for m in last_turn.json["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert last_turn.json["messages"][2]["content"].startswith("The answer to My shoe size")
    assert last_turn.json["temperature"] == 0.0 and last_turn.json["stream"] is True

    store = folder / "results" / "eunomia.db"
    rows = _rows(store, "app")
    assert {n: r.status for n, r in rows.items()} == {"gk-1": "scored", "sp-1": "scored",
                                                      "cr-1": "scored"}
    assert all(r.score == 5 for r in rows.values())
    speed = _stored(store, rows["sp-1"].response)
    assert isinstance(speed, dict)
    text = speed["response"]
    assert text.startswith("The answer to Tell me about parcels.") and text.endswith(
        " is 42 (turn 1) ")  # every piece, in order
    ttft = speed["speed"]["time_to_first_token_s"]
    latency = speed["speed"]["latency_s"]
    assert ttft is not None and STREAM_DELAY_S * 0.8 < ttft < latency  # the first word
    # ... and read to the end: the app waits before each of its pieces (split at spaces)
    assert latency > STREAM_DELAY_S * len(text.rstrip(" ").split(" "))
    call = speed["calls"][0]
    assert (call["model"], call["input_tokens"], call["output_tokens"]) == ("shop-model-1", 11, 7)
    assert rows["cr-1"].input_tokens == 11 + 22  # the usage of both turns' last events
    assert_secret_nowhere(folder / "results", APP_KEY)


CUSTOM_SUITE = """\
- {case_id: ok, instruction: hello, checks: [{contains: "answer to hello"}]}
- {case_id: rate, instruction: RATE, checks: [{contains: "answer to RATE"}]}
- {case_id: flaky, instruction: FLAKY, checks: [{contains: "answer to FLAKY"}]}
- {case_id: bad, instruction: BAD, checks: [{contains: "x"}]}
- {case_id: html, instruction: HTML, checks: [{contains: "x"}]}
- {case_id: empty, instruction: EMPTY, checks: [{contains: "x"}]}
"""


def test_eval_a_custom_json_api_with_failures(apps: FakeApps, tmp_path: Path) -> None:
    folder = _folder(tmp_path, apps)
    _write(folder / "suites" / "general_knowledge.yaml", CUSTOM_SUITE)
    _write(folder / "suites" / "context_retention.yaml", APP_SUITES["context_retention.yaml"]
           .replace('"turn 2"', '"after 2 earlier turns"'))
    done = run_cli("eval", "suites", "--model", "http:support-bot", "--judge", "none",
                   "--retries", "1", "--run-name", "bot", cwd=folder, env=KEYS)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out  # some cases failed
    rows = _rows(folder / "results" / "eunomia.db", "bot")
    status = {n: r.status for n, r in rows.items()}
    assert status == {"ok": "scored", "rate": "scored", "flaky": "scored", "bad": "failed",
                      "html": "failed", "empty": "failed", "cr-1": "scored"}, status
    assert all(rows[n].score == 5 for n in ("ok", "rate", "flaky", "cr-1"))
    # 429: asked again after the Retry-After the server gave
    rate = [s.at for s in apps.requests("/api/ask") if s.json["question"] == "RATE"][-2:]
    assert rate[1] - rate[0] >= RETRY_AFTER_S * 0.9
    assert rows["rate"].attempts == 2 and rows["flaky"].attempts == 2
    bad = rows["bad"].error or ""
    assert "HTTP 400" in bad and "this question is not allowed" in bad
    assert "after 1 attempt" in bad  # a 400 is not retried
    html = rows["html"].error or ""
    assert "is not JSON" in html and "502 from the proxy" in html and "after 2 attempt" in html
    empty = rows["empty"].error or ""
    assert "the answer path $.result.text found nothing" in empty and "thinking" in empty
    assert rows["ok"].input_tokens == 10 and rows["ok"].output_tokens == 5
    assert rows["ok"].cost == pytest.approx((10 * 0.5 + 5 * 1.5) / 1e6)  # the entry's price
    history = [s.json["history"] for s in apps.requests("/api/ask")
               if s.json["question"] == "Which size do I wear?"][-1]
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert_secret_nowhere(folder / "results", BOT_KEY)


def test_run_scenarios_on_an_athena_module_behind_a_gateway(
        apps: FakeApps, tmp_path: Path, examples_copy: Path) -> None:
    folder = _folder(tmp_path, apps)
    before = len(apps.requests("/athena/v2/modeling/feedback"))
    done = run_cli("run", examples_copy, "--target", "http:athena-gateway", "--max-cases", "3",
                   "--run-name", "gw", cwd=folder, env=KEYS)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = apps.requests("/athena/v2/modeling/feedback")[before:]
    assert len(seen) == 3
    assert {s.headers["X-Gateway-Key"] for s in seen} == {GATEWAY_KEY}
    assert {s.headers["X-Server-URL"] for s in seen} == {"https://artemis.example.com"}
    request = seen[0].json
    assert set(request) == {"exercise", "submission", "isGraded"}
    assert isinstance(request["submission"]["model"], str)  # the diagram, as Athena takes it
    rows = _rows(folder / "results" / "eunomia.db", "gw")
    assert len(rows) == 3 and {r.status for r in rows.values()} == {"scored"}
    assert all(r.input_tokens == 1000 and r.output_tokens == 100 for r in rows.values())
    assert all(r.cost is not None and r.cost > 0 for r in rows.values())  # llm_cost.yml prices
    answer = _stored(folder / "results" / "eunomia.db", next(iter(rows.values())).response)
    assert "reviewed through the gateway with key ***" in str(answer)
    assert_secret_nowhere(folder / "results", GATEWAY_KEY)


def test_missing_key_and_wrong_kind_are_clear(apps: FakeApps, tmp_path: Path,
                                              examples_copy: Path) -> None:
    folder = _folder(tmp_path, apps)
    _write(folder / "suites" / "general_knowledge.yaml", CUSTOM_SUITE)
    done = run_cli("eval", "suites", "--model", "http:support-bot", "--judge", "none",
                   cwd=folder, env={"SUPPORT_BOT_KEY": ""})
    assert done.returncode == 2
    assert "SUPPORT_BOT_KEY" in done.stdout + done.stderr
    done = run_cli("run", examples_copy, "--target", "http:support-bot", cwd=folder, env=KEYS)
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert "no 'feedback' paths" in out and "models.yml:" in out
    assert BOT_KEY not in out
