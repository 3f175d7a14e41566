"""``eunomia import athena``: Athena's real exports become scenarios (byte for byte, tutor
scores and recorded feedback kept), and every bad value is named by file and key path."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.support.cli import run_cli

from eunomia.errors import EunomiaError
from eunomia.importers import ImportOptions, read_export, write_scenario
from eunomia.scenarios import load_scenario

ROOT = Path(__file__).resolve().parents[2]
ATHENA = ROOT.parent / "shared" / "peers" / "athena-2.7"
SAMPLES = ATHENA / "tests" / "modules" / "modeling" / "module_modeling_llm" / "real" / "data" \
    / "samples"
PLAYGROUND = ATHENA / "playground" / "data" / "example"
needs_athena = pytest.mark.skipif(not (SAMPLES / "sampled_exercise-14676.json").is_file(),
                                  reason=f"Athena's exports not found at {ATHENA}")

SHIPPED = {  # the shipped example: the export it was imported from
    "examples/athena/tutor_graded/car_rental_14676": SAMPLES / "sampled_exercise-14676.json",
    "examples/athena/tutor_graded/smart_speaker_15949": SAMPLES / "sampled_exercise-15949.json",
    "examples/athena/athena_loan_real": PLAYGROUND / "exercise-6.json",
}
OPTIONS = {"examples/athena/athena_loan_real": ["--criteria-from-grading-instructions"]}
"""The options an example's README recipe imports it with (beyond --output)."""


def small_export(**overrides: Any) -> dict[str, Any]:
    diagram = json.dumps({"version": "3.0.0", "type": "ClassDiagram", "elements": {},
                          "relationships": {}})
    export: dict[str, Any] = {
        "id": 3, "course_id": 1, "title": "Shop", "type": "modeling", "max_points": 4.0,
        "bonus_points": 0.0, "grading_instructions": "", "problem_statement": "Draw a shop.",
        "example_solution": diagram, "meta": {},
        "grading_criteria": [{"id": 11, "title": "Email", "structured_grading_instructions": [
            {"id": 21, "credits": 2.0, "grading_scale": "Good", "instruction_description": "d",
             "feedback": "f", "usage_count": 0},
            {"id": 22, "credits": 0.0}]}],
        "submissions": [
            {"id": 7, "model": diagram, "score": 50.0, "meta": {}, "feedbacks": [
                {"id": 1, "title": "Email", "description": "present", "credits": 2.0,
                 "grading_instruction_id": 21, "element_ids": ["e1"]}]},
            {"id": 8, "model": diagram, "text": "1.2 No email", "score": 0.0}],
    }
    export.update(overrides)
    return export


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def manifest_of(folder: Path) -> dict[str, Any]:
    data = yaml.safe_load((folder / "manifest.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@needs_athena
@pytest.mark.parametrize("number", ["14676", "15949"])
def test_the_real_sampled_exercises(tmp_path: Path, number: str) -> None:
    source = SAMPLES / f"sampled_exercise-{number}.json"
    export = json.loads(source.read_text(encoding="utf-8"))
    folder = tmp_path / "scenario"
    proc = run_cli("import", "athena", source, "--output", folder, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    n = len(export["submissions"])
    assert f"{n} test cases, {n} with the tutor's score" in proc.stdout
    files = {p.stem: p.read_text(encoding="utf-8") for p in (folder / "test_cases").iterdir()}
    manifest = manifest_of(folder)
    assert "default_expected" not in manifest and manifest["criteria"] == []
    assert (folder / "example_solution.json").read_text(encoding="utf-8") == \
        export["example_solution"]
    for s in export["submissions"]:
        name = f"{s['id']}_submission"
        assert files[name] == s["model"]  # byte for byte
        case = manifest["cases"][name]
        assert case["tutor"] == {"percent": s["score"]}
        recorded = case["recorded"]
        assert recorded["source"].startswith("azure_openai_gpt-4o, Athena's basic approach")
        assert [(i["title"], i["description"], i["credits"]) for i in recorded["feedback"]] == \
            [(f["title"], f["description"], f["credits"]) for f in s["feedbacks"]]
        # the exercise has no criteria: the id is a position and names nothing
        assert all("instruction" not in i for i in recorded["feedback"])
        assert [i["meta"]["grading_instruction_id"] for i in recorded["feedback"]] == \
            [f["grading_instruction_id"] for f in s["feedbacks"]]
    scenario, diags = load_scenario(folder)
    assert scenario is not None and not diags, [str(d) for d in diags]
    for s in export["submissions"]:
        case = scenario.case_named(f"{s['id']}_submission")
        assert case is not None and case.tutor is not None
        assert case.tutor.points == pytest.approx(s["score"] * export["max_points"] / 100)


@needs_athena
@pytest.mark.parametrize("shipped", sorted(SHIPPED))
def test_the_shipped_examples_are_the_imports(tmp_path: Path, shipped: str) -> None:
    """Import again as the example's README says: the same manifest and files."""
    folder = ROOT / shipped
    source = SHIPPED[shipped]
    dest = tmp_path / Path(shipped).name
    proc = run_cli("import", "athena", "../shared/" + source.relative_to(ROOT.parent / "shared")
                   .as_posix(), "--output", dest, *OPTIONS.get(shipped, []), cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (dest / "manifest.yml").read_text() == (folder / "manifest.yml").read_text()
    assert sorted(p.name for p in (dest / "test_cases").iterdir()) == \
        sorted(p.name for p in (folder / "test_cases").iterdir())
    for path in (dest / "test_cases").iterdir():
        assert path.read_bytes() == (folder / "test_cases" / path.name).read_bytes()


@needs_athena
def test_the_playground_exercises(tmp_path: Path) -> None:
    five = write_scenario(*read_export(PLAYGROUND / "exercise-5.json"),
                          PLAYGROUND / "exercise-5.json", tmp_path / "five", ImportOptions())
    assert five.cases == 5 and five.graded == 0 and five.feedback_items == 0
    assert five.example_solution == "the exercise's example_solution"
    assert "cases" not in manifest_of(tmp_path / "five")
    # exercise 7: Apollon v4, one feedback item per submission, no score: the tutors'
    seven = write_scenario(*read_export(PLAYGROUND / "exercise-7.json"),
                           PLAYGROUND / "exercise-7.json", tmp_path / "seven", ImportOptions())
    assert (seven.cases, seven.graded, seven.feedback_items, seven.feedback_role) == \
        (6, 0, 6, "tutor")
    said = [str(d) for d in seven.diagnostics]
    assert sum("Apollon version 4" in d for d in said) == 6
    assert sum("no tutor grade" in d for d in said) == 6
    cases = manifest_of(tmp_path / "seven")["cases"]
    assert cases["01_correct_solution_with_all_elements"]["tutor"]["feedback"][0]["credits"] \
        == 10.0


@needs_athena
def test_recorded_gpt4o_feedback_is_scored_against_the_tutors(tmp_path: Path) -> None:
    folder = tmp_path / "car_rental"
    assert run_cli("import", "athena", SAMPLES / "sampled_exercise-14676.json", "--output",
                   folder, cwd=tmp_path).returncode == 0
    proc = run_cli("run", folder, "--target", "recorded", "--run-name", "gpt4o",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Pearson r vs Tutors (95% CI)" in proc.stdout
    results = tmp_path / "results" / "gpt4o" / "car_rental"
    summary = json.loads((results / "scenario_results.json").read_text(encoding="utf-8"))
    agreement = summary["tutor_agreement"]
    assert agreement["cases"] == 12 and agreement["graded_cases"] == 12
    export = json.loads((SAMPLES / "sampled_exercise-14676.json").read_text(encoding="utf-8"))
    by_id = {f"{s['id']}_submission": s for s in export["submissions"]}
    for pair in agreement["pairs"]:
        s = by_id[pair["test_case"]]
        total = sum(f["credits"] for f in s["feedbacks"])
        assert pair["system_points"] == pytest.approx(min(max(total, 0.0), 7.0))
        assert pair["tutor_points"] == pytest.approx(s["score"] * 7.0 / 100)
    assert agreement["pearson"]["n"] == 12 and agreement["note"] is not None
    case = json.loads((results / "test_cases" / "8651329_submission.json").read_text())
    assert case["points"]["awarded_unlimited"] == pytest.approx(-6.5)
    assert case["points"]["awarded"] == 0.0 and case["points"]["tutor"] == pytest.approx(0.497)
    # the files again from the store (the scenario as stored with the run): the same figures
    (results / "scenario_results.json").unlink()
    assert run_cli("export", "gpt4o", cwd=tmp_path).returncode == 0
    again = json.loads((results / "scenario_results.json").read_text(encoding="utf-8"))
    assert again["tutor_agreement"] == agreement


def test_an_export_with_criteria_keeps_them(tmp_path: Path) -> None:
    path = write_json(tmp_path / "shop.json", small_export())
    done = write_scenario(*read_export(path), path, tmp_path / "shop", ImportOptions())
    assert (done.criteria, done.feedback_role) == (1, "tutor")
    manifest = manifest_of(tmp_path / "shop")
    assert [i["id"] for i in manifest["criteria"][0]["instructions"]] == ["sgi_21", "sgi_22"]
    item = manifest["cases"]["07_submission"]["tutor"]["feedback"][0]
    assert item["instruction"] == "sgi_21"
    assert item["meta"] == {"athena_feedback_id": 1, "element_ids": ["e1"]}
    assert manifest["cases"]["08_no_email"] == {"tutor": {"percent": 0.0}}
    scenario, diags = load_scenario(tmp_path / "shop")
    assert scenario is not None and not diags
    case = scenario.case_named("07_submission")
    assert case is not None and case.tutor is not None and case.tutor.feedback is not None
    assert case.tutor.feedback.items[0].instruction == scenario.by_textual_id["sgi_21"].id
    # the same feedback as a system's: --feedback recorded
    write_scenario(*read_export(path), path, tmp_path / "shop2",
                   ImportOptions(feedback="recorded"))
    assert manifest_of(tmp_path / "shop2")["cases"]["07_submission"]["recorded"]["source"] \
        == "recorded in the export"


def _bad(export: dict[str, Any], change: Any) -> dict[str, Any]:
    data = copy.deepcopy(export)
    change(data)
    return data


@pytest.mark.parametrize(("change", "key", "message"), [
    (lambda e: e["submissions"][0].update({"score": 150.0}), "submissions[0].score",
     "more than max_points + bonus_points"),
    (lambda e: e["submissions"][0].update({"score": -5}), "submissions[0].score",
     "greater than or equal to 0"),
    (lambda e: e["submissions"][1].update({"id": 7}), "submissions[1].id", "also at"),
    (lambda e: e["submissions"][0].update({"id": "abc"}), "submissions[0].id",
     "valid integer"),
    (lambda e: e["submissions"][0].update({"model": ""}), "submissions[0].model", "empty"),
    (lambda e: e["submissions"][0].update({"model": "{nope"}), "submissions[0].model",
     "not JSON"),
    (lambda e: e["submissions"][0].update({"model": "[1, 2]"}), "submissions[0].model",
     "not an Apollon diagram"),
    (lambda e: e["submissions"][0]["feedbacks"][0].update({"grading_instruction_id": 99}),
     "submissions[0].feedbacks[0].grading_instruction_id", "not one of the exercise's"),
    (lambda e: e["submissions"][0]["feedbacks"][0].update({"credits": 1e6}),
     "submissions[0].feedbacks[0].credits", "less than or equal to"),
    (lambda e: e.update({"max_points": -1}), "max_points", "greater than or equal to 0"),
    (lambda e: e.update({"type": "text"}), "type", "only modeling exercises"),
    (lambda e: e.update({"title": ""}), "title", "at least 1 character"),
    (lambda e: e.update({"submissions": []}), "submissions", "at least 1 item"),
    (lambda e: e["grading_criteria"][0]["structured_grading_instructions"][1].update(
        {"id": 21}), "grading_criteria[0].structured_grading_instructions[1].id", "also at"),
])
def test_every_bad_value_is_named(tmp_path: Path, change: Any, key: str,
                                  message: str) -> None:
    path = write_json(tmp_path / "bad.json", _bad(small_export(), change))
    with pytest.raises(EunomiaError) as raised:
        read_export(path)
    found = [d for d in raised.value.diagnostics if d.key == key]
    assert found, [str(d) for d in raised.value.diagnostics]
    assert message in found[0].message and found[0].file == path


def test_numbers_json_cannot_carry_are_refused(tmp_path: Path) -> None:
    text = json.dumps(small_export()).replace('"credits": 2.0, "grading_instruction_id"',
                                              '"credits": 1e999, "grading_instruction_id"')
    path = tmp_path / "inf.json"
    path.write_text(text.replace('"score": 50.0', '"score": NaN'), encoding="utf-8")
    with pytest.raises(EunomiaError) as raised:
        read_export(path)
    keys = {d.key: d.message for d in raised.value.diagnostics}
    assert "finite" in keys["submissions[0].feedbacks[0].credits"]
    assert "finite" in keys["submissions[0].score"]


def test_the_command_says_what_is_wrong_without_a_traceback(tmp_path: Path) -> None:
    path = write_json(tmp_path / "bad.json", _bad(small_export(),
                                                  lambda e: e["submissions"][0].update(
                                                      {"score": 150.0})))
    proc = run_cli("import", "athena", path, "--output", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{path} [submissions[0].score]" in proc.stderr
    assert not (tmp_path / "out" / "manifest.yml").exists()
    for args, said in [(("athena", tmp_path / "missing.json"), "cannot read"),
                       (("athena", write_json(tmp_path / "list.json", [1])), "not a list")]:
        proc = run_cli("import", *args, "--output", tmp_path / "out", cwd=tmp_path)
        assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    good = write_json(tmp_path / "good.json", small_export())
    assert run_cli("import", "athena", good, "-o", tmp_path / "out", cwd=tmp_path
                   ).returncode == 0
    again = run_cli("import", "athena", good, "-o", tmp_path / "out", cwd=tmp_path)
    assert again.returncode == 2 and "give --force" in again.stderr
    url = run_cli("import", "athena", good, "-o", tmp_path / "o2", "--server-url", "ftp://x",
                  cwd=tmp_path)
    assert url.returncode == 2 and "--server-url" in url.stderr
