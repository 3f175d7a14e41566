"""``eunomia serve-model`` as a user runs it: a subprocess serving gemma3-270m."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from tests.model_server.conftest import MODEL, SPEC
from tests.support.cli import cli_env, run_cli

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ask(url: str, body: bytes, headers: dict[str, str]) -> None:
    with contextlib.suppress(OSError):  # the server goes away mid-answer
        urllib.request.urlopen(urllib.request.Request(url + "/chat/completions", data=body,
                                                      headers=headers), timeout=120).read()


def test_serve_model_lists_aliases_answers_and_stops_on_sigterm(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="the local extra is not installed")
    from tests.model_server.conftest import _needs_model

    _needs_model()
    port = free_port()
    env = cli_env({"SERVE_KEY": "sk-cli"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "serve-model", "--model", SPEC, "--port", str(port),
         "--alias", "gpt-4o-mini", "--alias", "gpt-local", "--api-key-env", "SERVE_KEY"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        assert proc.stdout is not None
        lines = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, f"serve-model ended early:\n{''.join(lines)}"
            lines.append(line)
            if line.startswith("Serving"):
                break
        assert f"on {url}" in lines[-1] and "gpt-4o-mini" in lines[-1]
        recorded = proc.stdout.readline()
        assert recorded.strip() == (f"Every call is recorded: http://127.0.0.1:{port}"
                                    "/eunomia/usage")
        auth = {"Authorization": "Bearer sk-cli", "Content-Type": "application/json"}
        with urllib.request.urlopen(urllib.request.Request(url + "/models",
                                                           headers=auth)) as r:
            ids = [m["id"] for m in json.load(r)["data"]]
        assert ids == [SPEC, "gpt-4o-mini", "gpt-local"]
        body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 4,
                           "messages": [{"role": "user", "content": "Hi"}]}).encode()
        with urllib.request.urlopen(urllib.request.Request(
                url + "/chat/completions", data=body, headers=auth)) as r:
            answer = json.load(r)
        assert answer["model"] == MODEL and answer["usage"]["completion_tokens"] == 4
        log_line = proc.stdout.readline()
        assert log_line.startswith("gpt-4o-mini: ") and "+ 4 out, finish length" in log_line
        with urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{port}/eunomia/usage", headers=auth)) as r:
            [call] = json.load(r)["calls"]
        assert (call["model"], call["answered_by"], call["output_tokens"]) == (
            "gpt-4o-mini", MODEL, 4)
        # a long answer in progress does not hold the stop: it is cancelled after 5 s
        looping = json.dumps({"model": "gpt-local", "max_tokens": 2000,
                              "response_format": {"type": "json_object"},
                              "messages": [{"role": "system",
                                            "content": "Reply with an empty JSON object."},
                                           {"role": "user", "content": "{}"}]}).encode()
        pending = threading.Thread(target=_ask, args=(url, looping, auth), daemon=True)
        pending.start()
        time.sleep(3)
        stopping = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
        assert time.monotonic() - stopping < 20
        assert proc.returncode == 0
        assert "Model server stopped." in out
        assert "finish" not in out  # the long answer was not completed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_model_refuses_what_it_cannot_serve(tmp_path: Path) -> None:
    result = run_cli("serve-model", "--model", SPEC, "--api-key-env", "NO_SUCH_KEY_VAR",
                     cwd=tmp_path, env={"NO_SUCH_KEY_VAR": " "})
    assert result.returncode == 2
    assert "NO_SUCH_KEY_VAR" in result.stderr and "not set" in result.stderr
    result = run_cli("serve-model", "--model", "nonsense", cwd=tmp_path)
    assert result.returncode == 2 and "nonsense" in result.stderr
    (tmp_path / "schema.json").write_text("[1, 2]")
    result = run_cli("serve-model", "--model", SPEC, "--json-object-schema",
                     tmp_path / "schema.json", cwd=tmp_path)
    assert result.returncode == 2 and "must hold a JSON object" in result.stderr
    result = run_cli("serve-model", "--model", SPEC, "--port", "70000", cwd=tmp_path)
    assert result.returncode == 2 and "--port" in result.stderr
    result = run_cli("serve-model", "--model", SPEC, "--alias", " ", cwd=tmp_path)
    assert result.returncode == 2 and "--alias" in result.stderr


def test_serve_model_relays_with_the_key_from_the_environment(tmp_path: Path) -> None:
    from tests.model_server.test_usage_record import FakeUpstream

    upstream = FakeUpstream()
    key = "sk-upstream-cli-0123456789"
    with upstream.in_thread():
        port = free_port()
        env = cli_env({"MY_UPSTREAM_KEY": key})
        proc = subprocess.Popen(
            [sys.executable, "-m", "eunomia", "serve-model", "--upstream", upstream.url,
             "--upstream-key-env", "MY_UPSTREAM_KEY", "--model", "qwen-up", "--alias",
             "gpt-local", "--port", str(port)],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith(f"Relaying {upstream.url} (and gpt-local for qwen-up) "
                                    f"on http://127.0.0.1:{port}/v1"), first
            assert "/eunomia/usage" in proc.stdout.readline()
            body = json.dumps({"model": "gpt-local",
                               "messages": [{"role": "user", "content": "Hi"}]}).encode()
            with urllib.request.urlopen(urllib.request.Request(
                    f"http://127.0.0.1:{port}/v1/chat/completions", data=body,
                    headers={"Content-Type": "application/json"}), timeout=30) as r:
                assert json.load(r)["model"] == "qwen-up-2026-01-01"
            assert upstream.headers[-1]["Authorization"] == f"Bearer {key}"
            assert json.loads(upstream.bodies[-1])["model"] == "qwen-up"
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0 and key not in first + out


def test_serve_model_refuses_a_bad_relay(tmp_path: Path) -> None:
    result = run_cli("serve-model", "--upstream", "ftp://x", cwd=tmp_path)
    assert result.returncode == 2 and "--upstream" in result.stderr
    result = run_cli("serve-model", "--upstream", "http://127.0.0.1:9/v1", "--alias", "gpt-x",
                     cwd=tmp_path)
    assert result.returncode == 2 and "needs --model" in result.stderr
    (tmp_path / "s.json").write_text("{}")
    result = run_cli("serve-model", "--upstream", "http://127.0.0.1:9/v1",
                     "--json-object-schema", tmp_path / "s.json", cwd=tmp_path)
    assert result.returncode == 2 and "not to --upstream" in result.stderr
