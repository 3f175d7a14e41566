"""The shape the kind contract and the commands keep (read from the sources, like
``test_layers.py``): a typed contract, thin commands, an API for every kind, a typed package."""

from __future__ import annotations

import ast
import inspect
import tomllib
from pathlib import Path

import pytest

from eunomia import api
from eunomia.kinds.judge_check import JudgeCheckSummary
from eunomia.kinds.pairwise import PairwiseSummary
from eunomia.kinds.scenarios import ScenarioSummary
from eunomia.kinds.tasks import TasksSummary

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "eunomia"
CLI_MOST_LINES = 200


def test_the_kind_contract_names_no_any() -> None:
    tree = ast.parse((SRC / "kinds" / "_base.py").read_text(encoding="utf-8"))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert "Any" not in names


@pytest.mark.parametrize("path", sorted((SRC / "cli").glob("*.py")), ids=lambda p: p.name)
def test_every_command_module_is_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= CLI_MOST_LINES, f"{path.name}: {lines} lines"


@pytest.mark.parametrize(("function", "summary"), [
    (api.run_scenarios, ScenarioSummary), (api.run_tasks, TasksSummary),
    (api.judge_check, JudgeCheckSummary), (api.pairwise, PairwiseSummary)])
def test_the_api_runs_every_kind_with_a_typed_result(function: object,
                                                    summary: type) -> None:
    returned = inspect.signature(function).return_annotation  # (postponed: a string)
    assert returned == f"RunReport[{summary.__name__}]"
    assert getattr(api, summary.__name__) is summary


def test_the_package_says_it_is_typed() -> None:
    assert (SRC / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert "src/eunomia/py.typed" in wheel["artifacts"]
