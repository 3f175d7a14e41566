"""What each command imports: a command loads the kind it runs, and ``eunomia runs`` loads
none (its start-up is a speed target: bench/bench_cli.py). Read from ``python -X
importtime``, which names every module a process imports: a structural check, not a timing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "examples" / "tasks" / "ecommerce"
SCENARIO = ROOT / "examples" / "scenarios" / "project_management"


def imported(args: list[str], cwd: Path) -> set[str]:
    """The modules ``eunomia ARGS`` imports (it must exit 0)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "eunomia", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def loaded(modules: set[str], package: str) -> bool:
    return any(m == package or m.startswith(package + ".") for m in modules)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder holding a task run and a scenario run."""
    where = tmp_path_factory.mktemp("store")
    eval_modules = imported(["eval", str(TASKS), "--model", "baseline:reference",
                             "--judge", "none", "--max-cases", "2", "--results", "results",
                             "--run-name", "tasks"], where)
    run_modules = imported(["run", str(SCENARIO), "--target", "baseline:default",
                            "--results", "results", "--run-name", "sgi"], where)
    (where / "eval.txt").write_text("\n".join(sorted(eval_modules)))
    (where / "run.txt").write_text("\n".join(sorted(run_modules)))
    return where


def test_runs_loads_no_kind_and_no_statistics(store: Path) -> None:
    modules = imported(["runs"], store)
    assert "eunomia.kinds._registry" in modules  # it names each run's command from there
    for package in ("eunomia.kinds.tasks", "eunomia.kinds.scenarios", "eunomia.kinds._base",
                    "eunomia.report", "eunomia.stats", "numpy", "aiohttp"):
        assert not loaded(modules, package), package


def test_eval_loads_its_kind_not_the_scenarios(store: Path) -> None:
    modules = set((store / "eval.txt").read_text().split())
    assert "eunomia.kinds.tasks" in modules
    for package in ("eunomia.kinds.scenarios", "eunomia.kinds.pairwise", "eunomia.apollon",
                    "eunomia.athena", "eunomia.scenarios", "eunomia.kinds.judge_check._kind",
                    "eunomia.api._judge_check"):
        assert not loaded(modules, package), package


def test_run_loads_its_kind_not_the_task_suites(store: Path) -> None:
    modules = set((store / "run.txt").read_text().split())
    assert "eunomia.kinds.scenarios" in modules
    for package in ("eunomia.kinds.tasks", "eunomia.kinds.judge_check",
                    "eunomia.kinds.pairwise", "eunomia.kinds._task_suites", "eunomia.judge"):
        assert not loaded(modules, package), package
