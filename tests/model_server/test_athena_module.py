"""The real Athena modeling module (legacy, then current) with the embedded gemma3-270m as its
LLM, through the model server: Eunomia → module → serve-model, everything real
(scripts/peer-athena.sh).

The module asks for any JSON object (``response_format: json_object``) but parses one shape,
``{"feedbacks": [...]}``; a model this small only produces it when the answer is constrained
to that shape, so the server is given the module's output schema (``json_object_schema``).
Gemma then answers ``{"feedbacks":[]}`` in one call of ~3,400 prompt tokens, and the module
answers 200 (no feedback). What it proves: the module lists the alias and takes it as its
model, its exact request is accepted, the answer is what the model gives in-process for that
request, and the token usage the module reports (and Eunomia stores) is the server's.

Cost: ~10 s to start the module, 15-40 s for the one LLM call on 2 cores; it skips like
tests/peers when the module's set-up is unavailable.
"""

from __future__ import annotations

import asyncio
import json
import types
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tests.model_server.conftest import ALIASES, MODEL, serving_in_thread
from tests.peers.conftest import RecordingProxy, ensure_setup, started_peer
from tests.support.cli import run_cli

from eunomia.models import ChatMessage, ChatRequest, GenerationSettings
from eunomia.models.providers.local import LocalProvider
from eunomia.store import RunStore

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"
CASE = "aggregation_instead_of_composition"
ATHENA_FEEDBACK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"feedbacks": {"type": "array", "items": {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "description": {"type": "string"},
            "element_names": {"type": "array", "items": {"type": "string"}},
            "credits": {"type": "number"},
            "grading_instruction_id": {"type": "integer"},
        },
        "required": ["title", "description", "element_names", "credits",
                     "grading_instruction_id"],
        "additionalProperties": False}}},
    "required": ["feedbacks"],
    "additionalProperties": False,
}
"""The module's output format (its PydanticOutputParser schema), every field required."""


def in_process(body: dict[str, Any]) -> str:
    """The answer the model gives in-process to the module's request (json_object = the
    schema the server was given)."""
    request = ChatRequest(
        messages=tuple(ChatMessage(role=m["role"], content=m["content"])
                       for m in body["messages"]),
        settings=GenerationSettings(temperature=body["temperature"], top_p=body["top_p"],
                                    max_tokens=body["max_tokens"]),
        json_schema=ATHENA_FEEDBACK_SCHEMA)
    return asyncio.run(LocalProvider(MODEL).chat(request)).text


def test_real_module_on_the_embedded_model(tmp_path: Path) -> None:
    ensure_setup("legacy")
    results = tmp_path / "results"
    with (serving_in_thread(json_object_schema=ATHENA_FEEDBACK_SCHEMA) as url,
          RecordingProxy(url.removesuffix("/v1")).in_thread() as proxy,
          started_peer(tmp_path, types.SimpleNamespace(url=proxy.url + "/v1"), "legacy") as peer):  # type: ignore[arg-type]
        proc = run_cli("run", EXAMPLE, "--target", f"athena:{peer.module_url}", "--case", CASE,
                       "--results", results, "--run-name", "x", "--retries", "0",
                       "--no-cache", "--timeout", "900", cwd=tmp_path,
                       env={"ATHENA_SECRET": peer.secret}, timeout=1200)
        records = proxy.take()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    listings = [r for r in records if r.method == "GET" and r.path == "/v1/models"]
    assert listings and all(r.status == 200 for r in listings)
    assert ALIASES[0] in {m["id"] for m in json.loads(listings[-1].response_body)["data"]}

    calls = [r for r in records if r.method == "POST"]
    assert len(calls) == 1 and calls[0].path == "/v1/chat/completions"
    body = json.loads(calls[0].request_body)
    assert body["model"] == ALIASES[0]  # the first listed id containing "gpt"
    assert body["response_format"] == {"type": "json_object"}
    assert (body["max_tokens"], body["temperature"]) == (1000, 0.0)
    assert calls[0].status == 200
    answer = json.loads(calls[0].response_body)
    content = answer["choices"][0]["message"]["content"]
    feedbacks = json.loads(content)["feedbacks"]
    assert content == in_process(body)  # the server answered as the model does in-process

    store = RunStore(results / "eunomia.db")
    try:
        (row,) = list(store.iter_cases(store.require_run("x")))
        assert (row.case_name, row.status, row.attempts) == (CASE, "scored", 1)
        assert row.response is not None
        module_answer = store.get_json(row.response)["raw"]
    finally:
        store.close()
    assert len(module_answer["data"]) == len(feedbacks)
    (llm_request,) = module_answer["meta"]["llmRequests"]
    assert llm_request["model"] == MODEL == answer["model"]
    usage = answer["usage"]
    assert llm_request["numInputTokens"] == usage["prompt_tokens"] > 1000
    assert llm_request["numOutputTokens"] == usage["completion_tokens"]


CURRENT_SCHEMA: dict[str, Any] = json.loads(
    (ROOT / "examples" / "athena" / "feedback-schema.json").read_text(encoding="utf-8"))
"""The current module's bounded output format (README, docs/serve-model.md)."""


def test_current_module_on_the_embedded_model_metered(tmp_path: Path) -> None:
    """The current module (2.7) on gemma3-270m through serve-model: the answer follows the
    module's schema, the module returns the instruction ids the model chose (when they are the
    exercise's), and the case's cost is the call serve-model recorded — the module reports
    none."""
    ensure_setup("current")
    results = tmp_path / "results"
    with (serving_in_thread(json_object_schema=CURRENT_SCHEMA) as url,
          RecordingProxy(url.removesuffix("/v1")).in_thread() as proxy,
          started_peer(tmp_path, types.SimpleNamespace(url=proxy.url + "/v1"),  # type: ignore[arg-type]
                       "current") as peer):
        usage = url.removesuffix("/v1")
        proc = run_cli("run", EXAMPLE, "--target",
                       f"athena:{peer.module_url}?llm_usage={usage}", "--case", CASE,
                       "--results", results, "--run-name", "x", "--retries", "0",
                       "--no-cache", "--timeout", "900", cwd=tmp_path,
                       env={"ATHENA_SECRET": peer.secret}, timeout=1200)
        records = proxy.take()
        with urllib.request.urlopen(usage + "/eunomia/usage", timeout=30) as r:
            recorded = json.load(r)["calls"]
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    [call] = [r for r in records if r.method == "POST"]
    body = json.loads(call.request_body)
    assert body["model"] == ALIASES[0] and body["response_format"] == {"type": "json_object"}
    answer = json.loads(call.response_body)
    chosen = json.loads(answer["choices"][0]["message"]["content"])["feedbacks"]
    [served] = recorded
    assert (served["input_tokens"], served["output_tokens"]) == (
        answer["usage"]["prompt_tokens"], answer["usage"]["completion_tokens"])

    store = RunStore(results / "eunomia.db")
    try:
        (row,) = list(store.iter_cases(store.require_run("x")))
        assert (row.case_name, row.status, row.attempts) == (CASE, "scored", 1)
        assert row.response is not None
        module_answer = store.get_json(row.response)["raw"]
        sent = json.loads(store.get_blob(row.request)) if row.request else {}
    finally:
        store.close()
    assert module_answer["meta"] == {}
    offered = {i["id"] for c in sent["exercise"]["gradingCriteria"]
               for i in c["structuredGradingInstructions"]}
    assert len(module_answer["data"]) == len(chosen) >= 1
    for item, llm in zip(module_answer["data"], chosen, strict=True):
        expected = llm["grading_instruction_id"] if llm["grading_instruction_id"] in offered \
            else None
        assert item["structuredGradingInstructionId"] == expected
        assert item["credits"] == max(0.0, llm["credits"])
    case = json.loads((results / "x" / "project_management" / "test_cases" / f"{CASE}.json"
                       ).read_text(encoding="utf-8"))
    metered = case["cost"]["metered"]
    assert metered["attribution"] == "exact"
    assert [(c["seq"], c["input_tokens"], c["output_tokens"], c["answered_by"])
            for c in metered["calls"]] == [
        (served["seq"], served["input_tokens"], served["output_tokens"], MODEL)]
    assert case["cost"]["total_cost"] is not None  # known: metered, and priced
