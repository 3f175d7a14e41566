"""Fixtures of the tests of eval's controls: the scripted judges of issue 28 (lenient,
discriminating: tests/judge_floor) and two candidates on 127.0.0.1 — the outside world —
served from a thread for the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp import web
from tests.judge_floor.scripted_judges import ScriptedJudges

EXAMPLE_SUITE = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "ecommerce"
PLACEHOLDER = "Answer to this case: this is the candidate's reply."
"""The answer of issue 28's placeholder candidate, to every case."""


def references() -> dict[str, str]:
    """Each example case's instruction (its words joined by one space) -> its reference."""
    out: dict[str, str] = {}
    for path in EXAMPLE_SUITE.glob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        cases = data.get("test_cases", []) if isinstance(data, dict) else data
        for case in cases or []:
            if case.get("expected_response") and case.get("instruction"):
                out[" ".join(str(case["instruction"]).split())] = \
                    str(case["expected_response"]).strip()
    return out


class Server(ScriptedJudges):
    """The judges ``openai:lenient`` and ``openai:discriminating``; the candidates
    ``openai:placeholder`` (:data:`PLACEHOLDER` to everything) and ``openai:oracle`` (each
    case's reference); :attr:`answers` lists the candidate's answers given."""

    def __init__(self) -> None:
        super().__init__()
        self.refs = references()
        self.answers: list[str] = []

    async def answer(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = json.loads(await request.read())
        if body["model"] not in ("placeholder", "oracle"):
            return await super().answer(_Replay(body))  # type: ignore[arg-type]
        prompt = " ".join(body["messages"][-1]["content"].split())
        text = PLACEHOLDER if body["model"] == "placeholder" else next(
            (r for k, r in self.refs.items() if k in prompt), "I do not know.")
        self.answers.append(text)
        return web.json_response({
            "id": "c", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10}})


class _Replay:
    """A request whose JSON body was read already."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    async def json(self) -> dict[str, Any]:
        return self.body


ENVIRONMENT = {"OPENAI_API_KEY": None, "GITHUB_STEP_SUMMARY": None, "COLUMNS": "200"}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Server]:
    """:class:`Server` from a thread, in an empty folder (no models.yml of the checkout)."""
    monkeypatch.chdir(tmp_path)
    with Server().in_thread() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        for name, value in ENVIRONMENT.items():
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        yield fake
