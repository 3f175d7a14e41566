"""The OpenAI-compatible example of docs/http-targets.md, copied as a user copies it, against
servers that do not stream the way it asks: one that ignores ``"stream": true`` and answers
one JSON body (read as the answer, with no time to a first piece), and one whose stream
ends without ``data: [DONE]`` after its last event (read to the end)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from tests.http_target.docs_examples import write_models
from tests.http_target.fake_apps import APP_KEY
from tests.support.cli import run_cli
from tests.support.local_app import LocalApp

ANSWER = "Seven words answer the question right here."
USAGE = {"prompt_tokens": 17, "completion_tokens": 9}
SUITE = """\
- case_id: sp-01
  category: Inference Speed
  instruction: Answer in seven words.
  expected_response: Seven words.
  expected_output_length: 7
- case_id: sp-02
  category: Inference Speed
  instruction: Answer in seven words again.
  expected_response: Seven words.
  expected_output_length: 7
"""


class NotStreaming(LocalApp):
    """``/v1/chat/completions`` ignores ``stream`` (one JSON body); ``/nodone/v1/...``
    streams without the final ``[DONE]``."""

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._json)
        app.router.add_post("/nodone/v1/chat/completions", self._no_done)
        app.router.add_post("/cut/v1/chat/completions", self._cut)

    async def _json(self, request: web.Request) -> web.Response:
        assert (await request.json())["stream"] is True
        assert request.headers["Authorization"] == f"Bearer {APP_KEY}"
        return web.json_response({"model": "shop-assistant", "usage": USAGE, "choices": [
            {"index": 0, "message": {"role": "assistant", "content": ANSWER},
             "finish_reason": "stop"}]})

    async def _no_done(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for i, word in enumerate(ANSWER.split(" ")):
            delta = {"content": word if i == 0 else " " + word}
            await response.write(("data: " + json.dumps(
                {"choices": [{"index": 0, "delta": delta}]}) + "\n\n").encode())
        await response.write(("data: " + json.dumps({"choices": [
            {"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": USAGE}) + "\n\n"
                              ).encode())
        await response.write_eof()
        return response


    async def _cut(self, request: web.Request) -> web.StreamResponse:
        """Three words, then the stream ends: no finish reason, no ``[DONE]``."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for word in ANSWER.split(" ")[:3]:
            await response.write(("data: " + json.dumps(
                {"choices": [{"index": 0, "delta": {"content": word + " "}}]}) + "\n\n"
                                  ).encode())
        await response.write_eof()
        return response


@pytest.fixture(scope="module")
def server() -> Iterator[NotStreaming]:
    app = NotStreaming()
    with app.in_thread():
        yield app


@pytest.mark.parametrize(("route", "ttft"), [("", False), ("/nodone", True)])
def test_the_docs_example_reads_answers_not_streamed_as_asked(
        server: NotStreaming, tmp_path: Path, route: str, ttft: bool) -> None:
    models = write_models(tmp_path, "openai-app", base_url=server.url.rstrip("/"))
    models.write_text(models.read_text().replace("/v1/chat", route + "/v1/chat"))
    (tmp_path / "speed.yaml").write_text(SUITE)
    done = run_cli("eval", "speed.yaml", "--model", "http:myapp", "--judge", "none",
                   "--run-name", "r", "--retries", "0", cwd=tmp_path,
                   env={"MYAPP_API_KEY": APP_KEY})
    assert done.returncode == 0, done.stdout + done.stderr
    with (tmp_path / "results" / "r" / "tables" / "inference_speed.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["output_words"], r["output_tokens"]) for r in rows] == [("7", "9")] * 2
    assert all(bool(r["time_to_first_token_s"]) is ttft for r in rows)


@pytest.mark.parametrize("require_done", [False, True])
def test_a_stream_cut_short_is_a_failure_when_done_is_required(
        server: NotStreaming, tmp_path: Path, require_done: bool) -> None:
    models = write_models(tmp_path, "openai-app", base_url=server.url.rstrip("/"))
    text = models.read_text().replace("/v1/chat", "/cut/v1/chat")
    if require_done:
        text = text.replace("      model: $.model",
                            "      require_done: true\n      model: $.model")
    models.write_text(text)
    (tmp_path / "speed.yaml").write_text(SUITE)
    done = run_cli("eval", "speed.yaml", "--model", "http:myapp", "--judge", "none",
                   "--run-name", "r", "--retries", "0", cwd=tmp_path,
                   env={"MYAPP_API_KEY": APP_KEY})
    failures = json.loads((tmp_path / "results" / "r" / "failures.json").read_text())
    if require_done:
        assert done.returncode == 1
        assert len(failures) == 2
        assert all("ended without '[DONE]'" in json.dumps(f) for f in failures)
    else:  # read to its end as it is: the documented default
        assert done.returncode == 0, done.stdout + done.stderr
        assert not any("[DONE]" in json.dumps(f) for f in failures)  # unscored, not failed
