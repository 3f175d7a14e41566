"""The Ray executor on a local 2-CPU Ray cluster, against scripted local servers.

One cluster for the module (starting Ray takes seconds); each test has its own
executor (its own worker actors). Select with ``pytest -m ray``.
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from tests.support.scripted_server import (
    RecordedRequest,
    Reply,
    ScriptedServer,
    feedback_reply,
    free_port,
    usage,
)

ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'eunomia[ray]'")

from eunomia.api import (  # noqa: E402  # noqa: E402  # noqa: E402
    RunOptions,
    RunReport,
    RunRequest,
    ScenarioRequest,
    TaskRunReport,
    load_all,
    run_command,
    run_scenarios,
    run_tasks,
)
from eunomia.errors import EunomiaError  # noqa: E402
from eunomia.executors import LocalExecutor, TargetRecipe  # noqa: E402
from eunomia.executors.ray import RayExecutor, SharedLimiter, check_reachable  # noqa: E402
from eunomia.models import EndpointConfig, ModelSpec, resolve_spec  # noqa: E402
from eunomia.scenarios import discover  # noqa: E402
from eunomia.scheduler import RetryPolicy  # noqa: E402
from eunomia.targets import TargetConfig, build_target  # noqa: E402
from eunomia.tasks import load_suites  # noqa: E402

pytestmark = pytest.mark.ray

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
FAST = RetryPolicy(retries=2, timeout_s=10.0, backoff_initial_s=0.01, backoff_max_s=0.02)
TIMING = {"request_time_s", "average_request_time_s", "latency_s", "created", "finished",
          "started", "Request Time (s)", "Average Request Time (s)",
          "store"}  # where the run store is, not what it holds


@pytest.fixture(scope="module", autouse=True)
def ray_cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, namespace="eunomia-tests",
             log_to_driver=False, configure_logging=False, _node_ip_address="127.0.0.1")
    try:
        yield
    finally:
        ray.shutdown()


class CountingServer(ScriptedServer):
    """A scripted server that also measures how many requests it serves at once."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.now = 0
        self.peak = 0

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.now += 1
        self.peak = max(self.peak, self.now)
        try:
            return await super()._handle(request)
        finally:
            self.now -= 1


def _answer(rec: RecordedRequest) -> Reply:
    """A deterministic answer per submission, different between cases."""
    sid = rec.submission_id or 0
    ids = [1 + sid % 2, 3 + sid % 3, 6 + sid % 2, 8, 10 + sid % 2, 12, 14]
    return feedback_reply(ids, llm_requests=[usage("gpt-4o", 1000 + sid, 200)], delay_s=0.02)


@pytest.fixture
def server() -> Iterator[CountingServer]:
    srv = CountingServer(default=_answer)
    with srv.in_thread():
        yield srv


async def _run(server: ScriptedServer, results: Path, executor: Any, *, concurrency: int = 4,
               repeats: int = 2, run_name: str = "r", cache_systems: bool = False
               ) -> RunReport:
    sources, _ = discover([EXAMPLES])
    loaded, _ = load_all(sources)
    config = TargetConfig(server_url=server.url)
    target = build_target("athena", config)
    return await run_scenarios(
        loaded, target, run_name=run_name, results_dir=results,
        options=RunOptions(concurrency, FAST), repeats=repeats, executor=executor,
        cache_systems=cache_systems,
        recipes={target.name: TargetRecipe("athena", config)},
    )


def _stored(results: Path, run: str = "r") -> tuple[int, int, int, set[str]]:
    """(rows, distinct case keys, records made (max seq), statuses) of a stored run."""
    db = sqlite3.connect(results / "eunomia.db")
    try:
        rows, keys, seq = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT suite || target || case_name || '#' || repeat),"
            " MAX(seq) FROM cases JOIN runs ON runs.id = cases.run_id WHERE runs.name=?",
            (run,)).fetchone()
        statuses = {r[0] for r in db.execute("SELECT DISTINCT status FROM cases")}
    finally:
        db.close()
    return rows, keys, seq, statuses


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    if isinstance(value, float):
        # totals are summed in completion order (live export): the last bit may differ
        # between any two runs, local or not
        return round(value, 12)
    return value


def _outputs(folder: Path) -> dict[str, Any]:
    """Every exported file of a run, timing columns and fields removed."""
    out: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.suffix == ".json":
            out[rel] = _without_timing(json.loads(path.read_text()))
        elif path.suffix == ".csv":
            rows = list(csv.reader(io.StringIO(path.read_text())))
            if rows and rows[0] and rows[0][0] == "Metric":  # a two-column summary table
                out[rel] = [r for r in rows if r and r[0] not in TIMING]
            elif rows:
                keep = [i for i, name in enumerate(rows[0]) if name not in TIMING]
                out[rel] = [[r[i] for i in keep if i < len(r)] for r in rows]
    return out


async def test_ray_run_equals_local_run(server: CountingServer, tmp_path: Path) -> None:
    local = await _run(server, tmp_path / "local", LocalExecutor())
    executor = RayExecutor()
    try:
        remote = await _run(server, tmp_path / "ray", executor)
    finally:
        executor.close()
    assert local.failed_cases == remote.failed_cases == 0
    assert executor.stats.jobs == 28 and len(executor.workers()) == 0  # closed
    assert remote.requests_made == local.requests_made == 28
    a, b = _outputs(local.folder), _outputs(remote.folder)
    assert len(a) > 20 and a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], name
    # the answers were really scored, and differ between cases (not an empty run)
    table = a["project_management/tables/test_case_results.csv"]
    assert len(table) == 29 and len({row[2] for row in table[1:]}) > 1
    assert _stored(tmp_path / "ray")[:3] == (28, 28, 28)


async def test_ray_run_is_resumable_and_uses_the_cache(server: CountingServer,
                                                      tmp_path: Path) -> None:
    executor = RayExecutor(workers=1)
    try:
        first = await _run(server, tmp_path, executor, repeats=1)
        again = await _run(server, tmp_path, executor, repeats=1, run_name="again",
                           cache_systems=True)  # --cache
    finally:
        executor.close()
    assert first.requests_made == 14 and first.cache_hits == 0
    assert again.cache_hits == 14 and again.requests_made == 0  # the driver's cache
    assert len(server.requests) == 14


async def test_shared_limiter_caps_calls_across_the_cluster(tmp_path: Path) -> None:
    srv = CountingServer(default=lambda rec: Reply(
        200, {"data": [], "meta": {}}, delay_s=0.15))
    executor = RayExecutor()  # two workers, each could run 1000 calls at once
    with srv.in_thread():
        try:
            report = await _run(srv, tmp_path, executor, concurrency=3)
        finally:
            executor.close()
    assert report.failed_cases == 0
    # the driver kept 6 jobs submitted; the cluster-wide limiter let 3 through at once
    assert srv.peak == 3
    assert executor.stats.limiter["max_in_flight"] == 3


async def test_killed_worker_loses_nothing(tmp_path: Path) -> None:
    srv = CountingServer(default=lambda rec: feedback_reply([1, 3, 6, 8, 10, 12, 14],
                                                            delay_s=0.25))
    executor = RayExecutor()
    killed: list[Any] = []

    async def kill_one_worker_mid_run() -> None:
        while len(srv.requests) < 6:  # noqa: ASYNC110 - counted in the server's thread
            await asyncio.sleep(0.01)
        victim = executor.workers()[0]
        ray.kill(victim, no_restart=True)
        killed.append(victim)

    with srv.in_thread():
        killer = asyncio.create_task(kill_one_worker_mid_run())
        try:
            report = await _run(srv, tmp_path, executor, repeats=3)
        finally:
            killer.cancel()
            executor.close()
    assert killed, "the worker was not killed during the run"
    assert report.failed_cases == 0
    rows, keys, records, statuses = _stored(tmp_path)
    assert (rows, keys, records) == (42, 42, 42)  # every case once, none recorded twice
    assert statuses == {"scored"}
    assert executor.stats.workers_replaced == 1
    assert executor.stats.resubmitted >= 1
    # the dead worker's limiter places (if it held any when killed: the first requests may
    # all have come from the other worker) were given back: none is held after the run
    assert executor.stats.limiter["in_flight"] == 0
    # each lost job was asked again: a second request when the first had reached the server
    assert 42 <= len(srv.requests) <= 42 + executor.stats.resubmitted


def test_cli_stores_the_executor_and_resume_keeps_it(
    server: CountingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import eunomia.executors
    from eunomia.executors import make_executor as real

    made: list[str] = []

    def spy(name: str, *, ray_address: str | None = None) -> Any:
        made.append(name)
        return real(name, ray_address=ray_address)

    monkeypatch.setattr(eunomia.executors, "make_executor", spy)  # imported when run
    what = ScenarioRequest(targets=("athena",), secret_env="ATHENA_SECRET",
                           x_server_url="http://x")
    common: dict[str, Any] = dict(results=tmp_path, max_cases=3, concurrency=2, timeout=10.0,
                                  retries=0)
    run_command(replace(what, paths=(EXAMPLES,), server_url=server.url),
                RunRequest(run_name="cli", executor="ray", **common))
    db = sqlite3.connect(tmp_path / "eunomia.db")
    settings = json.loads(db.execute("SELECT settings FROM runs WHERE name='cli'").fetchone()[0])
    db.close()
    assert settings["executor"] == "ray"
    run_command(what, RunRequest(resume="cli", **common))
    assert made == ["ray", "ray"]
    assert len(server.requests) == 3  # resume found every case stored


async def test_shared_limiter_semantics() -> None:
    """The limiter actor's class, driven directly: AIMD and dead workers' places."""
    lim = SharedLimiter(4)
    tokens = [await lim.acquire("a") for _ in range(3)] + [await lim.acquire("b")]
    waiting = asyncio.create_task(lim.acquire("b"))
    await asyncio.sleep(0.05)
    assert not waiting.done()  # a fifth place is not given
    await lim.release(tokens[0], ("rate_limited", None))
    assert lim.stats()["limit"] == 2 and lim.stats()["rate_limited"] == 1
    await asyncio.sleep(0.05)
    assert not waiting.done()  # 3 held > the halved limit of 2
    assert await lim.forget("a") == 2  # worker "a" died holding two places
    assert await asyncio.wait_for(waiting, 1) > 0
    assert lim.stats()["in_flight"] == 2
    await lim.release(tokens[3], ("ok", None))
    assert await lim.acquire("a") == 0  # a late acquire of the dead worker holds nothing
    assert lim.stats()["in_flight"] == 1


async def test_judged_suite_through_ray_equals_local(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The example task suite (35 cases, every kind, candidate + judge calls)."""
    from tests.tasks.conftest import EXAMPLE_SUITE
    from tests.tasks.fake_llm import FakeLLM

    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout applies
    suites, problems = load_suites([EXAMPLE_SUITE])
    assert problems == []
    fake = FakeLLM()
    fake.candidate("two mugs", "Two mugs added.")
    fake.judge("Two mugs added.", json.dumps({"score": 2, "feedback": "Only half of it."}))

    def spec(name: str, url: str) -> ModelSpec:
        # the workers get the endpoint in the spec (not from the driver's environment)
        return dataclasses.replace(resolve_spec(name),
                                   endpoint_config=EndpointConfig(base_url=url))

    async def run(results: Path, executor: Any) -> tuple[TaskRunReport, int]:
        before = fake.total
        report = await run_tasks(
            suites, candidate=spec("openai:fake-candidate", fake.url),
            judge=spec("openai:fake-judge", fake.url), run_name="t", results_dir=results,
            options=RunOptions(4, FAST), executor=executor)
        return report, fake.total - before

    def cases(results: Path) -> list[tuple[Any, ...]]:
        db = sqlite3.connect(results / "eunomia.db")
        try:
            return db.execute("SELECT suite, case_name, repeat, status, score, attempts, "
                              "input_tokens, output_tokens FROM cases ORDER BY 1, 2, 3"
                              ).fetchall()
        finally:
            db.close()

    with fake.in_thread():
        local, local_calls = await run(tmp_path / "local", None)
        executor = RayExecutor()
        try:
            remote, remote_calls = await run(tmp_path / "ray", executor)
        finally:
            executor.close()
    assert local.summary is not None and remote.summary is not None
    assert (remote.summary.total, remote.summary.scored, remote.summary.failed) == (35, 35, 0)
    assert remote_calls == local_calls == remote.requests_made > 35  # candidate + judge
    assert executor.stats.jobs == remote_calls  # every model call went through Ray
    assert cases(tmp_path / "ray") == cases(tmp_path / "local")
    assert {r[4] for r in cases(tmp_path / "ray")} >= {2.0, 4.0}  # the scripted verdicts


def test_an_unreachable_cluster_address_fails_fast() -> None:
    port = free_port()
    with pytest.raises(EunomiaError, match=f"cannot reach the Ray cluster at 127.0.0.1:{port}"):
        check_reachable(f"127.0.0.1:{port}", timeout_s=2)
    check_reachable("auto")  # left to Ray
    check_reachable("ray://127.0.0.1:1")
