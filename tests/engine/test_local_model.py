"""The engine on a real local model (llama.cpp): two example cases through ``LLMTarget``.

Needs the ``local`` extra and the weights; skipped otherwise. The model defaults to
the smallest one (its judgements are poor; this checks the plumbing: the grammar
from the answer schema, the parsing and the mapping to SGI ids). Set
``EUNOMIA_ENGINE_TEST_MODEL`` to try another local model.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest
from tests.support.cli import run_cli
from tests.support.local_model import require_local_model

from eunomia.scenarios import Scenario
from eunomia.targets.llm import LLMTarget

MODEL = os.environ.get("EUNOMIA_ENGINE_TEST_MODEL", "gemma3-270m")
require_local_model(MODEL)

pytestmark = pytest.mark.slow


async def test_two_cases_give_valid_sgi_ids(
    example_scenario: Scenario, no_model_config: Path
) -> None:
    target = LLMTarget(f"generate:local:{MODEL}")  # local models default to likelihood mode
    assert target.max_concurrency == 1
    cases = [c for c in example_scenario.test_cases
             if c.name in ("perfect_solution", "composition_reversed")]
    await target.open()
    try:
        for case in cases:
            response = await target.feedback(example_scenario, case)
            ids = [f.structured_grading_instruction_id for f in response.feedback]
            criteria = [example_scenario.criterion_of(i).id for i in ids if i is not None]
            assert criteria == [c.id for c in example_scenario.criteria]  # one per criterion
            for item in response.feedback:
                assert item.description
                sgi = example_scenario.instructions[item.structured_grading_instruction_id or 0]
                assert item.credits == sgi.credits
            (usage,) = response.usage
            assert usage.num_input_tokens > 0 and usage.num_output_tokens > 0
    finally:
        await target.close()


def test_demo_command_on_a_local_model(tmp_path: Path) -> None:
    """The README's first command with the LLM engine on a local model, two cases."""
    got = run_cli("demo", "--target", f"llm:local:{MODEL}", "--case", "perfect_solution",
                  "--case", "composition_reversed", "--results", tmp_path / "results",
                  "--run-name", "demo1", cwd=tmp_path, timeout=900)
    assert got.returncode == 0, got.stdout + got.stderr
    folder = tmp_path / "results" / "demo1" / "project_management"
    assert sorted(p.stem for p in (folder / "test_cases").glob("*.json")) == [
        "composition_reversed", "perfect_solution"]
    with (folder / "tables" / "scenario_summary.csv").open(newline="", encoding="utf-8") as fh:
        summary = dict(list(csv.reader(fh))[1:])
    assert summary["Total Cases"] == "2"
    assert summary["Failed Cases"] == "0"
    assert f"llm:local:{MODEL}" in got.stdout
