"""``eunomia run --llm-usage URL`` and ``--athena-graded`` from the command line: a scripted
Athena-shaped system on 127.0.0.1 calls its LLM through a real ``serve-model --upstream``
relay (the upstream a scripted OpenAI-compatible endpoint); the run prints the system's LLM
totals, writes ``llm_usage.json`` (and ``export`` writes it again from the store), keeps the
options for ``--resume``, and refuses them clearly where they cannot apply."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.metering.test_metered_target import System
from tests.model_server.test_usage_record import FakeUpstream
from tests.support.cli import run_cli
from tests.support.served_thread import served_in_thread

from eunomia.model_server import Upstream
from eunomia.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"
SECRET = "metered-secret-4711"
PRICES = ("llm_costs:\n  gpt-up:\n    input_cost_per_million: 1.0\n"
          "    cached_input_cost_per_million: 0.5\n    output_cost_per_million: 2.0\n")


@pytest.fixture
def relay() -> Iterator[str]:
    """``serve-model --upstream`` in front of a scripted upstream: yields its ``/v1`` URL."""
    upstream = FakeUpstream()
    with upstream.in_thread():

        async def make() -> Upstream:
            return Upstream(upstream.url)

        with served_in_thread(make, start_timeout=30) as url:
            yield url


@pytest.fixture
def system(relay: str) -> Iterator[System]:
    with System(llm=relay).in_thread() as served:
        yield served


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The example scenario beside a price file that prices the upstream's model."""
    shutil.copytree(EXAMPLE, tmp_path / "scenarios" / EXAMPLE.name)
    (tmp_path / "scenarios" / "llm_cost.yml").write_text(PRICES, encoding="utf-8")
    return tmp_path / "scenarios" / EXAMPLE.name


def _run(tmp_path: Path, *args: str | Path) -> tuple[int, str]:
    proc = run_cli("run", *args, "--results", tmp_path / "results", cwd=tmp_path,
                   env={"ATHENA_SECRET": SECRET, "COLUMNS": "200"}, timeout=120)
    return proc.returncode, proc.stdout + proc.stderr


def _tokens(case: int, n: int = 0) -> int:
    return 100 * case + n  # the scripted system's prompt; the upstream counts characters


def test_metered_run_prints_totals_writes_llm_usage_and_export_writes_it_again(
        system: System, relay: str, folder: Path, tmp_path: Path) -> None:
    system.calls = {1: 2, 2: 1, 3: 0}
    code, out = _run(tmp_path, folder, "--target", f"athena:{system.url}/feedback_suggestions",
                     "--llm-usage", relay, "--max-cases", "3", "--concurrency", "1",
                     "--run-name", "metered")
    assert code == 0, out
    calls = [(1, 0), (1, 1), (2, 0)]
    inputs = sum(_tokens(c, n) for c, n in calls)
    cost = ((inputs - 2 * 3) * 1.0 + 2 * 3 * 0.5 + 3 * 3 * 2.0) / 1e6
    path = tmp_path / "results" / "metered" / "llm_usage.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    [entry] = data["targets"]
    assert (entry["calls"], entry["input_tokens"], entry["output_tokens"]) == (3, inputs, 9)
    assert entry["cached_input_tokens"] == 6 and entry["calls_without_usage"] == 0
    assert entry["total_cost"] == pytest.approx(cost) and entry["cost_unknown_because"] is None
    assert entry["attribution"]["method"] == "exact" and entry["attribution"]["exact"] == 3
    assert entry["per_model"] == [{"model": "gpt-up-2026-01-01", "calls": 3,
                                   "input_tokens": inputs, "output_tokens": 9,
                                   "cached_input_tokens": 6}]
    # the terminal says the same figures
    flat = " ".join(out.split())
    assert f"3 call(s), {inputs:,} input (6 cached) + 9 output tokens" in flat
    assert f"cost {cost:.6g}" in flat and "attribution exact" in flat
    # the cases' costs add up to the totals (every call made within one case's request)
    summary = json.loads((path.parent / EXAMPLE.name / "scenario_results.json").read_text())
    assert summary["total_cost"] == pytest.approx(cost)
    # the options are stored with the run (so --resume uses them)
    run = json.loads((path.parent / "run.json").read_text())
    assert run["settings"]["llm_usage"] == relay and run["settings"]["athena_graded"] is None
    # export writes it again from the store
    path.unlink()
    proc = run_cli("export", "metered", "--results", tmp_path / "results", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(path.read_text(encoding="utf-8")) == data


def test_resume_keeps_the_meter_and_adds_its_calls(
        system: System, relay: str, folder: Path, tmp_path: Path) -> None:
    system.calls, system.fail = {1: 1, 2: 1}, {2}
    code, out = _run(tmp_path, folder, "--target", f"athena:{system.url}/feedback_suggestions",
                     "--llm-usage", relay, "--max-cases", "2", "--concurrency", "1",
                     "--retries", "0", "--run-name", "again")
    assert code == 1, out  # case 2 failed (HTTP 500, not retried)
    first = json.loads((tmp_path / "results" / "again" / "llm_usage.json").read_text())
    assert first["targets"][0]["calls"] == 2  # the failed case's call is in the totals
    # resumed without --llm-usage: the stored one meters the retried case
    code, out = _run(tmp_path, "--resume", "again", "--retry-failed")
    assert code == 0, out
    data = json.loads((tmp_path / "results" / "again" / "llm_usage.json").read_text())
    [entry] = data["targets"]
    assert (entry["attempts"], entry["calls"]) == (2, 3)
    assert entry["input_tokens"] == _tokens(1) + 2 * _tokens(2)
    store = RunStore(tmp_path / "results" / "eunomia.db")
    try:
        settings = store.require_run("again").settings
    finally:
        store.close()
    assert [r["calls"] for r in settings["metered_llm_totals"]] == [2, 1]


def test_athena_graded_option_and_the_target_spec_overriding_it(
        system: System, folder: Path, tmp_path: Path) -> None:
    system.calls = {1: 0}
    url = f"{system.url}/feedback_suggestions"
    code, out = _run(tmp_path, folder, "--target", f"athena:{url}", "--target",
                     f"athena:{url}?graded=true", "--athena-graded", "false",
                     "--max-cases", "1", "--run-name", "graded")
    assert code == 0, out
    assert sorted(b["isGraded"] for b in system.bodies) == [False, True]
    run = json.loads((tmp_path / "results" / "graded" / "run.json").read_text())
    assert run["settings"]["athena_graded"] is False
    # --server-url with a plain athena target that carries options
    system.bodies.clear()
    code, out = _run(tmp_path, folder, "--target", "athena?graded=false", "--server-url", url,
                     "--max-cases", "1", "--run-name", "plain")
    assert code == 0, out
    assert [b["isGraded"] for b in system.bodies] == [False]


@pytest.mark.parametrize(("args", "words"), [
    (("--target", "baseline:default", "--athena-graded", "false"),
     "--athena-graded applies to athena targets only"),
    (("--target", "athena:http://127.0.0.1:9/f", "--athena-graded", "maybe"),
     "--athena-graded must be true or false, not 'maybe'"),
    (("--target", "baseline:default", "--llm-usage", "http://127.0.0.1:8000"),
     "--llm-usage meters the LLM traffic of athena and http: targets only"),
    (("--target", "athena:http://127.0.0.1:9/f", "--llm-usage", "ftp://x"),
     "--llm-usage:"),
    (("--target", "athena:http://127.0.0.1:9/f", "--llm-usage", "http://127.0.0.1:8000",
      "--executor", "ray"), "needs --executor local, not ray"),
    (("--target", "athena:http://127.0.0.1:9/f?llm_usage=http://127.0.0.1:8000",
      "--executor", "ray"), "needs --executor local, not ray"),
    (("--target", "athena:http://127.0.0.1:9/f", "--server-url", "http://127.0.0.1:9/f"),
     "--server-url applies to --target athena"),
])
def test_options_refused_where_they_cannot_apply(
        args: tuple[str, ...], words: str, tmp_path: Path) -> None:
    code, out = _run(tmp_path, EXAMPLE, *args, "--run-name", "refused")
    assert code != 0
    assert words in " ".join(out.split()), out
    assert "Traceback" not in out
    assert not (tmp_path / "results" / "refused").exists()  # refused before anything ran


def test_totals_whose_model_has_no_price_cost_unknown_and_say_why(
        system: System, relay: str, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "scenarios" / EXAMPLE.name)
    (tmp_path / "scenarios" / "llm_cost.yml").write_text(
        "llm_costs:\n  gpt-4o:\n    input_cost_per_million: 2.5\n"
        "    output_cost_per_million: 10.0\n", encoding="utf-8")
    system.calls = {1: 1}
    code, out = _run(tmp_path, tmp_path / "scenarios" / EXAMPLE.name, "--target",
                     f"athena:{system.url}/feedback_suggestions?llm_usage={relay}",
                     "--max-cases", "1", "--run-name", "unpriced")
    assert code == 0, out
    [entry] = json.loads((tmp_path / "results" / "unpriced" / "llm_usage.json").read_text()
                         )["targets"]
    assert entry["calls"] == 1 and entry["total_cost"] is None
    why = "no price for gpt-up-2026-01-01 in llm_cost.yml"
    assert entry["cost_unknown_because"] == why
    assert f"cost unknown: {why}" in " ".join(out.split())
    assert "cost 0" not in out


def test_a_matrix_file_sets_llm_usage_and_athena_graded_per_matrix_and_per_target(
        system: System, relay: str, folder: Path, tmp_path: Path) -> None:
    """What ``--llm-usage`` and ``--athena-graded`` do, from a matrix file: for the whole
    matrix (a target's own key wins), stored with the run as the command line's are."""
    system.calls = {1: 1}
    url = f"{system.url}/feedback_suggestions"
    matrix = tmp_path / "matrix.yml"
    matrix.write_text(
        f"scenarios: [{folder}]\n"
        "targets:\n"
        f"  - spec: athena:{url}\n    athena_graded: true\n    llm_usage: {relay}\n"
        f"  - athena:{url}?x=1\n"
        "athena_graded: false\nmax_cases: 1\nconcurrency: 1\n", encoding="utf-8")
    code, out = _run(tmp_path, "--matrix", matrix, "--run-name", "mx")
    assert code == 0, out
    assert [b["isGraded"] for b in system.bodies] == [True, False]
    run = json.loads((tmp_path / "results" / "mx" / "run.json").read_text())
    assert run["settings"]["athena_graded"] is False and run["settings"]["llm_usage"] is None
    own = f"athena:{url}?graded=true&llm_usage={relay}"
    assert run["settings"]["targets"] == [own, f"athena:{url}?x=1"]
    usage = json.loads((tmp_path / "results" / "mx" / "llm_usage.json").read_text())
    assert [t["calls"] for t in usage["targets"]] == [1]  # the first target's only
    # the whole matrix's llm_usage meters every athena target; --athena-graded wins
    system.bodies.clear()
    text = matrix.read_text(encoding="utf-8").replace(
        f"    llm_usage: {relay}\n", "") + f"llm_usage: {relay}\n"
    matrix.write_text(text, encoding="utf-8")
    code, out = _run(tmp_path, "--matrix", matrix, "--athena-graded", "true",
                     "--run-name", "mx2")
    assert code == 0, out
    assert [b["isGraded"] for b in system.bodies] == [True, True]
    run = json.loads((tmp_path / "results" / "mx2" / "run.json").read_text())
    assert run["settings"]["llm_usage"] == relay and run["settings"]["athena_graded"] is True
    usage = json.loads((tmp_path / "results" / "mx2" / "llm_usage.json").read_text())
    assert [t["calls"] for t in usage["targets"]] == [1, 1]
