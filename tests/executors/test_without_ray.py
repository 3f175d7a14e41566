"""The executor seam without Ray: the local executor, the picklable job pieces, the message."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.executors import (
    CallFailure,
    CaseCall,
    LocalExecutor,
    TargetCall,
    TargetRecipe,
    make_executor,
)
from eunomia.scenarios import load_scenario
from eunomia.scheduler import AdaptiveLimiter, CallError, RetryPolicy
from eunomia.targets import TargetConfig, build_target

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"

pytestmark = pytest.mark.ray


@pytest.mark.parametrize("command", [
    ["run", str(EXAMPLE)],
    ["eval", str(ROOT / "examples" / "tasks" / "ecommerce"), "--model", "openai:fake"],
])
def test_missing_ray_gives_the_install_command(tmp_path: Path, command: list[str]) -> None:
    code = ("import sys; sys.modules['ray'] = None; "
            "sys.argv = ['eunomia', *sys.argv[1:]]; "
            "from eunomia.cli import main; main()")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    args = [*command, "--executor", "ray", "--results", str(tmp_path)]
    proc = subprocess.run([sys.executable, "-c", code, *args],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "pip install 'eunomia[ray]'" in " ".join(out.split())
    assert "Traceback" not in out
    assert not (tmp_path / "eunomia.db").exists()  # it failed before anything ran


def test_unknown_executor_and_stray_address() -> None:
    with pytest.raises(EunomiaError, match="unknown executor 'spark'"):
        make_executor("spark")
    with pytest.raises(EunomiaError, match="--ray-address applies to --executor ray"):
        make_executor("local", ray_address="ray://head:10001")
    assert isinstance(make_executor("local"), LocalExecutor)


def test_a_live_target_is_not_shipped_but_a_recipe_is() -> None:
    scenario, _ = load_scenario(EXAMPLE)
    assert scenario is not None
    config = TargetConfig(server_url="http://127.0.0.1:9/feedback")
    live = TargetCall([scenario], RetryPolicy(), key="t", target=build_target("athena", config))
    with pytest.raises(EunomiaError, match="cannot be sent to workers"):
        pickle.dumps(live)
    shipped = TargetCall([scenario], RetryPolicy(), key="t",
                         recipe=TargetRecipe("athena", config))
    back = pickle.loads(pickle.dumps(shipped))
    assert back.key == "t"
    # the work carries the scenario without its cases: each job carries its own
    assert len(pickle.dumps(shipped)) < len(pickle.dumps(scenario))
    job = CaseCall(scenario.name, scenario.test_cases[0])
    assert pickle.loads(pickle.dumps(job)) == job


def test_call_failure_round_trips_its_attempts() -> None:
    exc = CallError("HTTP 500: boom", retryable=True, status=500)
    exc.attempts = 3
    failure = pickle.loads(pickle.dumps(CallFailure.of(exc)))
    again = failure.error()
    assert (again.reason, again.attempts, again.status) == ("HTTP 500: boom", 3, 500)


async def test_local_executor_runs_jobs_under_one_limiter() -> None:
    seen: list[int] = []
    limiters: set[int] = set()

    class Double:
        key = "double"
        opened = closed = False

        async def open(self) -> None:
            self.opened = True

        async def close(self) -> None:
            self.closed = True

        async def run(self, job: int, limiter: AdaptiveLimiter) -> int:
            limiters.add(id(limiter))
            assert limiter.max_concurrency == 7
            seen.append(job)
            return job * 2

    work = Double()
    async with LocalExecutor().session(work, 7) as submit:
        assert work.opened
        assert [await submit(i) for i in range(3)] == [0, 2, 4]
    assert work.closed and seen == [0, 1, 2] and len(limiters) == 1


async def test_a_shipped_target_call_keeps_the_expectations_not_the_diagrams() -> None:
    """Workers get each scenario's cases without their diagrams (a job carries its own case),
    so baseline:constant answers the same on a worker as here."""
    scenario, _ = load_scenario(EXAMPLE)
    assert scenario is not None
    config = TargetConfig()
    call = TargetCall([scenario], RetryPolicy(retries=0), key="b",
                      recipe=TargetRecipe("baseline:constant", config))
    shipped = pickle.loads(pickle.dumps(call))
    light = shipped._scenarios[scenario.name]
    assert [c.expected for c in light.test_cases] == [c.expected for c in scenario.test_cases]
    assert all(c.submission == "" for c in light.test_cases)
    assert all(c.submission for c in scenario.test_cases)  # the driver's copy is untouched
    await shipped.open()
    try:
        got = await shipped.run(CaseCall(scenario.name, scenario.test_cases[0]),
                                AdaptiveLimiter(1))
    finally:
        await shipped.close()
    assert not isinstance(got, CallFailure)
    local = build_target("baseline:constant", config)
    mine = await local.feedback(scenario, scenario.test_cases[0])
    assert [f.structured_grading_instruction_id for f in got.value.feedback] == \
        [f.structured_grading_instruction_id for f in mine.feedback] != []
