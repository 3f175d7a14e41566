"""``eunomia mutate``: generated cases expect default_expected with each mutation's
instructions swapped in, combine only compatible mutations, are the same for the same
seed, and form an ordinary scenario that validate, show and run read."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from tests.support.cli import run_cli

from eunomia.apollon.mutate import mutant_problems
from eunomia.errors import EunomiaError, Severity
from eunomia.mutation import generate, write_scenario
from eunomia.scenarios import Scenario, load_scenario

ROOT = Path(__file__).resolve().parents[2]
PM = ROOT / "examples" / "scenarios" / "project_management"
LOAN = ROOT / "examples" / "bpmn" / "bpmn_loan"


def _load(folder: Path) -> Scenario:
    scenario, diags = load_scenario(folder)
    assert scenario is not None, diags
    return scenario


@pytest.fixture(scope="module")
def pm() -> Scenario:
    return _load(PM)


@pytest.fixture(scope="module")
def loan() -> Scenario:
    return _load(LOAN)


@pytest.mark.parametrize("which", ["pm", "loan"])
def test_expected_instructions_are_the_defaults_with_each_shown_one_swapped_in(
        which: str, request: pytest.FixtureRequest) -> None:
    scenario: Scenario = request.getfixturevalue(which)
    generation = generate(scenario, 40, seed=3, max_per_case=3)
    known = scenario.by_textual_id
    default = [scenario.instructions[i].textual_id for i in scenario.default_expected]
    for case in generation.cases:
        shown = [tid for o in case.mutations for tid in o.shows]
        by_criterion = {known[t].criterion_id: t for t in shown}
        wanted = tuple(by_criterion.get(known[d].criterion_id, d) for d in default)
        assert case.expected == wanted
        assert set(case.replaced.values()) == set(shown)
        source = json.loads(scenario.exercise.example_solution or "")
        assert mutant_problems(source, case.diagram) == []


def test_combined_mutations_are_compatible(pm: Scenario) -> None:
    generation = generate(pm, 60, seed=11, max_per_case=3)
    sizes = {len(c.mutations) for c in generation.cases}
    assert sizes <= {1, 2, 3} and len(sizes) > 1
    criterion = {i.textual_id: i.criterion_id for i in pm.instructions.values()}
    for case in generation.cases:
        touched = [o.choice.touched for o in case.mutations]
        assert sum(len(t) for t in touched) == len(set().union(*touched))
        shown: dict[int, str] = {}
        for o in case.mutations:
            for tid in o.shows:
                assert shown.setdefault(criterion[tid], tid) == tid
        if len(case.mutations) > 1:
            assert not any(o.rule.alone for o in case.mutations)


def test_rules_are_taken_in_turn_so_cases_cover_them(pm: Scenario) -> None:
    generation = generate(pm, 40, seed=5)
    used = {o.rule_name for c in generation.cases for o in c.mutations}
    assert used == {name for name, _ in generation.rules}


def test_the_same_seed_gives_the_same_files(pm: Scenario, tmp_path: Path) -> None:
    texts = []
    for name in ("a", "b"):
        generation = generate(pm, 25, seed=42)
        write_scenario(pm, generation, tmp_path / name, seed=42, command="test")
        texts.append({p.relative_to(tmp_path / name): p.read_bytes()
                      for p in sorted((tmp_path / name).rglob("*")) if p.is_file()})
    assert texts[0] == texts[1]
    other = generate(pm, 25, seed=43)
    assert [c.name for c in other.cases] != [c.name for c in generate(pm, 25, seed=42).cases] \
        or [c.diagram for c in other.cases] != [c.diagram for c in generate(pm, 25, seed=42)
                                                .cases]


def test_more_cases_than_the_rules_allow_is_an_error(pm: Scenario) -> None:
    with pytest.raises(EunomiaError, match=r"gave only \d+ distinct case"):
        generate(pm, 500, seed=0, max_per_case=1)


def test_a_scenario_without_rules_says_so(tmp_path: Path) -> None:
    dest = tmp_path / "plain"
    shutil.copytree(PM, dest)
    manifest = dest / "manifest.yml"
    data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    del data["mutations"]
    manifest.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(EunomiaError, match="declares no usable mutation rules"):
        generate(_load(dest), 3)


def test_the_output_is_an_ordinary_scenario_marking_its_cases(pm: Scenario,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "gen"
    generation = generate(pm, 12, seed=1)
    write_scenario(pm, generation, out, seed=1, command="eunomia mutate")
    loaded, diags = load_scenario(out)
    assert loaded is not None and [d for d in diags if d.severity is Severity.ERROR] == []
    assert [c.name for c in loaded.test_cases] == sorted(c.name for c in generation.cases)
    by_name = {c.name: c for c in generation.cases}
    for case in loaded.test_cases:
        made = by_name[case.name]
        assert case.generated
        assert [op for op, _ in case.mutations] == [o.choice.op for o in made.mutations]
        assert tuple(loaded.instructions[i].textual_id for i in case.expected) == made.expected
        assert {loaded.instructions[i].textual_id for i in case.diff_instructions} \
            == set(made.replaced.values())
    assert loaded.mutation_rules.keys() == pm.mutation_rules.keys()


def test_an_output_folder_is_never_clobbered(pm: Scenario, tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", encoding="utf-8")
    generation = generate(pm, 3, seed=1)
    with pytest.raises(EunomiaError, match="not empty"):
        write_scenario(pm, generation, busy, seed=1, command="x")
    with pytest.raises(EunomiaError, match="refusing to replace it even with --force"):
        write_scenario(pm, generation, busy, seed=1, command="x", force=True)
    assert (busy / "notes.txt").read_text(encoding="utf-8") == "mine"
    mine = tmp_path / "mine"
    write_scenario(pm, generation, mine, seed=1, command="x")
    write_scenario(pm, generate(pm, 2, seed=2), mine, seed=2, command="x", force=True)
    assert len(list((mine / "test_cases").glob("*.json"))) == 2


@pytest.mark.slow
def test_mutate_validate_show_and_run_as_a_user_would(tmp_path: Path) -> None:
    out = tmp_path / "mutants"
    made = run_cli("mutate", PM, "--count", "15", "--output", out, "--seed", "4",
                   cwd=tmp_path, timeout=120)
    assert made.returncode == 0, made.stderr + made.stdout
    assert re.search(r"Wrote \d+ files to", made.stdout)
    checked = run_cli("validate", out, cwd=tmp_path)
    assert checked.returncode == 0 and "0 error(s), 0 warning(s)" in checked.stdout
    first = sorted(p.stem for p in (out / "test_cases").glob("*.json"))[0]
    shown = run_cli("show", out / first, "--output", tmp_path / "case.svg", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "Generated by eunomia mutate:" in shown.stdout
    assert "Changes against the example solution:" in shown.stdout
    ran = run_cli("run", out, "--target", "example", "--results", tmp_path / "results",
                  "--run-name", "gen", cwd=tmp_path, timeout=300)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    result = json.loads((tmp_path / "results" / "gen" / "mutants" / "scenario_results.json")
                        .read_text(encoding="utf-8"))
    assert result["total_cases"] == 15 and result["scored_cases"] == 15
    again = run_cli("mutate", PM, "--count", "15", "--output", out, "--seed", "4",
                    cwd=tmp_path)
    assert again.returncode != 0 and "not empty" in again.stdout + again.stderr


def test_a_version_2_example_solution_gives_version_2_cases(tmp_path: Path) -> None:
    dest = tmp_path / "v2"
    shutil.copytree(PM, dest)
    solution = dest / "example_solution.json"
    data = json.loads(solution.read_text(encoding="utf-8"))
    data["version"] = "2.0.0"
    for key in ("elements", "relationships"):
        data[key] = list(data[key].values())
    data["assessments"] = []
    solution.write_text(json.dumps(data), encoding="utf-8")
    scenario = _load(dest)
    generation = generate(scenario, 30, seed=2)
    for case in generation.cases:
        assert isinstance(case.diagram["elements"], list)
        assert case.diagram["version"] == "2.0.0"
        assert mutant_problems(data, case.diagram) == []
