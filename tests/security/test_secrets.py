"""Secrets never leak; scenario paths cannot escape; only http(s) targets; YAML loads safely.

A unique secret is planted in ``ATHENA_SECRET`` (sent as the ``Authorization`` header)
and another in ``OPENAI_API_KEY`` (never sent anywhere). The server echoes the header
it receives into error bodies, feedback texts, usage entries and unknown fields. After
runs that succeed and fail, every file under the results folder, every blob of the run
store (decompressed: a compressed copy would hide from a byte search), the store file
itself, stdout and stderr are searched for both secrets.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from tests.support.cli import run_cli
from tests.support.scripted_server import (
    RecordedRequest,
    Reply,
    ScriptedServer,
    case_names,
    feedback_item,
)

from eunomia.errors import Severity
from eunomia.pricing import load_price_file
from eunomia.scenarios import load_scenario
from eunomia.store._blobs import decompress

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"
SECRET = f"sk-planted-{uuid.uuid4().hex}"
OTHER_SECRET = f"sk-other-{uuid.uuid4().hex}"


def eunomia(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, env={"ATHENA_SECRET": SECRET, "OPENAI_API_KEY": OTHER_SECRET},
                   timeout=120)


def _echoing_answer(request: RecordedRequest) -> Reply:
    """A valid answer that repeats the Authorization header wherever a server could."""
    auth = request.headers.get("Authorization", "")
    item = feedback_item(1, description=f"your key is {auth}", item_id=1)
    item["title"] = f"Authorization: {auth}"
    item["meta"] = {"echo": auth, auth: "as a key"}
    body = {
        "data": [item, feedback_item(3, item_id=2, description="fine")],
        "meta": {"llmRequests": [{"model": f"gpt-4o-{auth}", "numInputTokens": 1,
                                  "numOutputTokens": 1}],
                 "debug": {"headers": dict(request.headers)}},
        "echoed_secret": auth,
    }
    return Reply(200, body)


def _failing(status: int, json_body: bool = False):  # type: ignore[no-untyped-def]
    def reply(request: RecordedRequest) -> Reply:
        auth = request.headers.get("Authorization", "")
        if json_body:
            return Reply(status, {"detail": f"invalid token {auth}", "authorization": auth})
        return Reply(status, text=f"rejected Authorization: Bearer {auth} (got {auth})")
    return reply


def _not_json(request: RecordedRequest) -> Reply:
    return Reply(200, text=f"<html>{request.headers.get('Authorization')}</html>")


def _wrong_shape(request: RecordedRequest) -> Reply:
    auth = request.headers.get("Authorization", "")
    return Reply(200, {"data": {auth: auth}, auth: [auth]})


@pytest.fixture
def leaky(threaded_server: ScriptedServer) -> ScriptedServer:
    scenario, _ = load_scenario(EXAMPLES / "project_management")
    assert scenario is not None
    threaded_server.names = case_names(scenario)
    threaded_server.default = _echoing_answer
    threaded_server.script("extra_class", _failing(500))
    threaded_server.script("wrong_multiplicity", _failing(401, json_body=True))
    threaded_server.script("missing_assignment", _failing(403))
    threaded_server.script("composition_reversed", _not_json)
    threaded_server.script("lowercase_class_names", _wrong_shape)
    return threaded_server


def _leaks(data: bytes) -> list[str]:
    return [s for s in (SECRET, OTHER_SECRET) if s.encode() in data]


def _scan_outputs(results: Path, *streams: str) -> dict[str, list[str]]:
    """Every place a secret could end up, with what was found there."""
    found: dict[str, list[str]] = {}
    files = [p for p in results.rglob("*") if p.is_file()]
    assert files
    for p in files:
        if hits := _leaks(p.read_bytes()):
            found[str(p)] = hits
    for db in results.rglob("*.db"):
        con = sqlite3.connect(db)
        try:
            for table, column in (("blobs", "data"),):
                for (raw,) in con.execute(f"SELECT {column} FROM {table}"):
                    if hits := _leaks(decompress(raw)):
                        found[f"{db}:{table}"] = hits
            for row in con.execute("SELECT * FROM cases UNION ALL SELECT * FROM cases"):
                if hits := _leaks(repr(row).encode()):
                    found[f"{db}:cases"] = hits
            for row in con.execute("SELECT * FROM runs"):
                if hits := _leaks(repr(row).encode()):
                    found[f"{db}:runs"] = hits
        finally:
            con.close()
    for i, text in enumerate(streams):
        if hits := _leaks(text.encode()):
            found[f"stream {i}"] = hits
    return found


def test_planted_secrets_appear_nowhere(leaky: ScriptedServer, tmp_path: Path) -> None:
    results = tmp_path / "results"
    got = eunomia("run", EXAMPLES, "--server-url", leaky.url, "--run-name", "leak",
                  "--results", results, "--retries", "0", cwd=tmp_path)
    # the secret was really sent, and echoed back in every way
    assert {r.headers.get("Authorization") for r in leaky.requests} == {SECRET}
    assert got.returncode == 1, got.stdout + got.stderr  # some cases failed
    assert "5 case(s) failed" in got.stdout
    assert "HTTP 401" in got.stdout and "HTTP 500" in got.stdout

    # the other commands that print stored data
    listed = eunomia("runs", "--results", results, cwd=tmp_path)
    exported = eunomia("export", "leak", "--results", results, "--output", results / "again",
                       cwd=tmp_path)
    assert listed.returncode == 0 and exported.returncode == 0, exported.stderr
    resumed = eunomia("run", "--resume", "leak", "--retry-failed", "--results", results,
                      "--retries", "0", cwd=tmp_path)

    found = _scan_outputs(results, got.stdout, got.stderr, listed.stdout, listed.stderr,
                          exported.stdout, exported.stderr, resumed.stdout, resumed.stderr)
    assert found == {}, found

    # what the server said is kept, with the secret replaced
    case = (results / "leak" / "project_management" / "test_cases" / "perfect_solution.json")
    text = case.read_text(encoding="utf-8")
    assert "your key is ***" in text
    failures = (results / "leak" / "project_management" / "failures.json").read_text()
    assert "wrong_multiplicity" in failures and "***" in failures


def test_secret_in_a_run_that_cannot_connect(tmp_path: Path) -> None:
    from tests.support.scripted_server import free_port

    results = tmp_path / "results"
    got = eunomia("run", EXAMPLES, "--server-url", f"http://127.0.0.1:{free_port()}/x",
                  "--run-name", "down", "--results", results, "--retries", "0", cwd=tmp_path)
    assert got.returncode == 1
    assert "cannot connect" in got.stdout
    assert _scan_outputs(results, got.stdout, got.stderr) == {}


# --- paths cannot escape the scenario folder -----------------------------------------------


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    dest = tmp_path / "scenarios" / "project_management"
    shutil.copytree(EXAMPLES / "project_management", dest,
                    ignore=shutil.ignore_patterns("_generate.py"))
    return dest


def _set_example_solution(folder: Path, value: str) -> None:
    manifest = folder / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    new = text.replace('example_solution: "example_solution.json"',
                       f"example_solution: {value!r}", 1)
    assert new != text
    manifest.write_text(new, encoding="utf-8")


@pytest.mark.parametrize("value", ["../../etc/passwd", "/etc/passwd", "../manifest_of_other.yml",
                                   "sub/../../../etc/hostname", "link_out.json"])
def test_example_solution_cannot_escape(scenario: Path, value: str) -> None:
    (scenario / "link_out.json").symlink_to("/etc/passwd")
    (scenario.parent / "manifest_of_other.yml").write_text("secret: 1\n", encoding="utf-8")
    _set_example_solution(scenario, value)
    loaded, diags = load_scenario(scenario)
    assert loaded is None
    (problem,) = [d for d in diags if d.severity is Severity.ERROR]
    assert problem.key == "exercise.example_solution"
    assert "outside the scenario folder; refused" in problem.message
    assert problem.file == scenario / "manifest.yml" and problem.line is not None


def test_example_solution_escape_refused_by_the_cli(scenario: Path, tmp_path: Path) -> None:
    _set_example_solution(scenario, "../../etc/passwd")
    got = eunomia("run", scenario, "--server-url", "http://127.0.0.1:9/x", "--run-name", "x",
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 2
    assert "outside the scenario folder; refused" in " ".join(got.stderr.split())
    assert "root:" not in got.stdout + got.stderr
    assert "Traceback" not in got.stderr


def test_test_case_symlink_out_of_the_folder_is_not_sent(scenario: Path, tmp_path: Path) -> None:
    outside = tmp_path / "private.json"
    outside.write_text('{"type": "ClassDiagram", "elements": {}, "token": "private-data"}',
                       encoding="utf-8")
    (scenario / "test_cases" / "zz_escape.json").symlink_to(outside)
    loaded, diags = load_scenario(scenario)
    assert loaded is not None
    assert "zz_escape" not in {c.name for c in loaded.test_cases}
    assert not any("private-data" in c.submission for c in loaded.test_cases)
    (bad,) = [b for b in loaded.invalid_cases if b.name == "zz_escape"]
    assert "outside the scenario folder" in bad.reason
    assert any(d.severity is Severity.ERROR and "outside the scenario folder" in d.message
               for d in diags)


def test_a_test_cases_folder_linked_out_of_the_scenario_is_not_read(scenario: Path,
                                                                     tmp_path: Path) -> None:
    cases = scenario / "test_cases"
    names = sorted(p.stem for p in cases.glob("*.json"))
    moved = tmp_path / "elsewhere"
    cases.rename(moved)
    cases.symlink_to(moved, target_is_directory=True)
    (moved / "zz_inside_link.json").symlink_to(moved / f"{names[0]}.json")
    loaded, _ = load_scenario(scenario)
    assert loaded is not None and loaded.test_cases == []
    assert sorted(b.name for b in loaded.invalid_cases) == sorted([*names, "zz_inside_link"])


def test_a_test_case_linked_inside_the_scenario_is_read(scenario: Path) -> None:
    cases = scenario / "test_cases"
    first = sorted(cases.glob("*.json"))[0]
    (cases / "zz_same.json").symlink_to(first.name)
    loaded, _ = load_scenario(scenario)
    assert loaded is not None
    same = {c.name: c for c in loaded.test_cases}
    assert same["zz_same"].submission == same[first.stem].submission


# --- only http(s) targets ----------------------------------------------------------------------


def _main(*args: str | Path) -> tuple[int, str]:
    """``eunomia ARGS`` in this process (as the console script runs it): exit code, output."""
    import contextlib
    import io
    from unittest import mock

    from eunomia.cli import main

    out = io.StringIO()
    code: object = 0
    with mock.patch.object(sys, "argv", ["eunomia", *map(str, args)]), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    return int(code) if isinstance(code, int) else 0, out.getvalue()


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/x",
                                 "javascript:alert(1)", "gopher://127.0.0.1:70/", "/etc/passwd",
                                 "127.0.0.1:5008/feedback", "http:///nohost"])
def test_non_http_urls_refused(url: str, tmp_path: Path) -> None:
    for args in (("--server-url", url), ("--target", f"athena:{url}")):
        code, output = _main("run", EXAMPLES, *args, "--run-name", "u", "--results",
                             tmp_path / "results")
        assert code == 2, (args, output)
        assert "only absolute http:// or https:// URLs" in " ".join(output.split())
        assert "Traceback" not in output
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("*.csv"))


def test_non_http_url_refused_by_the_installed_command(tmp_path: Path) -> None:
    got = eunomia("run", EXAMPLES, "--server-url", "file:///etc/passwd", "--run-name", "u",
                  "--results", tmp_path / "results", cwd=tmp_path)
    assert got.returncode == 2
    assert "only absolute http:// or https:// URLs" in " ".join(got.stderr.split())
    assert "root:" not in got.stdout + got.stderr


def test_manifest_server_url_must_be_http(scenario: Path, tmp_path: Path) -> None:
    manifest = scenario / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('server_url: "http://127.0.0.1:5008/feedback_suggestions"',
                                     'server_url: "file:///etc/passwd"', 1), encoding="utf-8")
    code, output = _main("run", scenario, "--run-name", "m", "--results", tmp_path / "results")
    assert code == 2
    message = " ".join(output.split())
    assert "only absolute http:// or https:// URLs" in message
    assert "project_management" in message


# --- YAML is loaded safely ----------------------------------------------------------------------


PAYLOADS = [
    '!!python/object/apply:os.system ["touch {marker}"]',
    '!!python/object/new:subprocess.Popen [["touch", "{marker}"]]',
    "!!python/name:os.system",
    '!!python/object/apply:builtins.exec ["open(\'{marker}\', \'w\')"]',
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_yaml_tags_are_not_executed(payload: str, scenario: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    tag = payload.format(marker=marker)
    manifest = scenario / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('title: "UML Class Diagrams: Project Management Tool"',
                                     f"title: {tag}", 1), encoding="utf-8")
    loaded, diags = load_scenario(scenario)
    assert loaded is None
    (d,) = diags
    assert d.file == manifest and d.line is not None and "invalid YAML" in d.message
    prices = tmp_path / "llm_cost.yml"
    prices.write_text(f"llm_costs:\n  m: {tag}\n", encoding="utf-8")
    _, price_diags = load_price_file(prices)
    assert [p.file for p in price_diags] == [prices]
    try:
        from eunomia.tasks import load_suite
    except ImportError:  # pragma: no cover - the task loader is written elsewhere
        pass
    else:
        suite_file = tmp_path / "summarization_tests.yaml"
        suite_file.write_text(f"- case_id: 1\n  instruction: {tag}\n", encoding="utf-8")
        suite, suite_diags = load_suite(suite_file)
        assert suite is None and suite_diags
    assert not marker.exists(), "a YAML tag was executed"
