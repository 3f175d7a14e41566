"""Loading scenario folders: the real bpmn_loan scenario, id mapping, expectations,
and one precise diagnostic (file, key path, line) for every kind of bad manifest."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from eunomia.errors import Diagnostic, Severity
from eunomia.scenarios import Scenario, discover, inside, load_scenario

CONFORMANCE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
REAL_SCENARIOS = CONFORMANCE / "eunomia_testbench" / "scenarios"
BPMN_LOAN = REAL_SCENARIOS / "bpmn_loan"

needs_real_data = pytest.mark.skipif(
    not (BPMN_LOAN / "manifest.yml").is_file(),
    reason=f"real conformance scenario not found at {BPMN_LOAN}",
)

DIAGRAM: dict[str, Any] = {
    "version": "3.0.0",
    "type": "ClassDiagram",
    "elements": {},
    "relationships": {},
}

Case = Mapping[str, Any] | str


# --- helpers ---------------------------------------------------------------------------


def base_manifest(**overrides: Any) -> dict[str, Any]:
    """A valid manifest: two criteria with two instructions each (ids 1..4)."""
    manifest: dict[str, Any] = {
        "server_url": "http://127.0.0.1:5008/feedback_suggestions",
        "exercise": {
            "course_id": 2,
            "title": "Project management",
            "type": "modeling",
            "max_points": 2,
            "bonus_points": 0,
            "problem_statement": "Draw it.",
            "meta": {},
        },
        "criteria": [
            {
                "id": "classes",
                "title": "Classes",
                "instructions": [
                    {"id": "classes_correct", "credits": 1.0, "feedback": "Good."},
                    {"id": "classes_incorrect", "credits": 0.0, "feedback": "Missing."},
                ],
            },
            {
                "id": "relationship",
                "title": "Relationship",
                "instructions": [
                    {"id": "relationship_correct", "credits": 1.0},
                    {"id": "relationship_incorrect", "credits": 0.0},
                ],
            },
        ],
        "default_expected": ["classes_correct", "relationship_correct"],
        "test_case_diffs": {
            "relationship_correct": {"association": "relationship_incorrect"},
        },
    }
    manifest.update(overrides)
    return manifest


def dump(manifest: Mapping[str, Any]) -> str:
    return yaml.safe_dump(dict(manifest), sort_keys=False)


def write_scenario(
    root: Path,
    manifest: Mapping[str, Any] | str | None = None,
    cases: Mapping[str, Case] | None = None,
    *,
    name: str = "demo",
    files: Mapping[str, str] | None = None,
    cases_dir: bool = True,
) -> Path:
    """Write ``root/name/manifest.yml`` and ``test_cases/<case>.json``; return the folder."""
    folder = root / name
    folder.mkdir(parents=True)
    if manifest is None:
        manifest = base_manifest()
    text = manifest if isinstance(manifest, str) else dump(manifest)
    (folder / "manifest.yml").write_text(text, encoding="utf-8")
    if cases is None:
        cases = {"perfect": DIAGRAM, "association": DIAGRAM}
    if cases_dir:
        (folder / "test_cases").mkdir()
        for case_name, content in cases.items():
            body = content if isinstance(content, str) else json.dumps(content)
            (folder / "test_cases" / f"{case_name}.json").write_text(body, encoding="utf-8")
    for rel, body in (files or {}).items():
        (folder / rel).write_text(body, encoding="utf-8")
    return folder


def line_of(text: str, needle: str, start: str | None = None) -> int:
    """1-based line of the first ``needle`` in ``text`` (after ``start`` when given)."""
    offset = text.index(start) if start is not None else 0
    index = text.index(needle, offset)
    return text.count("\n", 0, index) + 1


def errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity is Severity.ERROR]


def warnings(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity is Severity.WARNING]


def the_error(diags: list[Diagnostic], key: str) -> Diagnostic:
    found = [d for d in errors(diags) if d.key == key]
    assert len(found) == 1, f"expected one error at {key!r}, got: {[str(d) for d in diags]}"
    return found[0]


def load_ok(folder: Path) -> Scenario:
    scenario, diags = load_scenario(folder)
    assert scenario is not None, [str(d) for d in diags]
    assert not errors(diags), [str(d) for d in diags]
    return scenario


def ids_of(scenario: Scenario, *textual: str) -> tuple[int, ...]:
    return tuple(scenario.by_textual_id[t].id for t in textual)


# --- the real scenario --------------------------------------------------------------------


@needs_real_data
def test_real_bpmn_loan_loads_with_numeric_ids_in_manifest_order() -> None:
    scenario, diags = load_scenario(BPMN_LOAN)
    assert scenario is not None
    assert errors(diags) == []
    assert len(scenario.criteria) == 10
    assert len(scenario.instructions) == 20
    assert len(scenario.test_cases) == 37
    assert scenario.invalid_cases == []

    manifest = yaml.safe_load((BPMN_LOAN / "manifest.yml").read_text(encoding="utf-8"))
    assert [(c.id, c.textual_id) for c in scenario.criteria] == [
        (n, c["id"]) for n, c in enumerate(manifest["criteria"], start=1)
    ]
    textual_in_order = [i["id"] for c in manifest["criteria"] for i in c["instructions"]]
    numbered = [(i.id, i.textual_id) for c in scenario.criteria for i in c.instructions]
    assert numbered == list(enumerate(textual_in_order, start=1))
    for criterion in scenario.criteria:
        assert all(i.criterion_id == criterion.id for i in criterion.instructions)
    assert scenario.by_textual_id["naming_format_correct"].id == 13
    assert scenario.by_textual_id["naming_format_incorrect"].id == 14
    assert scenario.default_expected == (1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
    assert scenario.exercise.example_solution is not None
    assert json.loads(scenario.exercise.example_solution)["type"] == "BPMN"


@needs_real_data
def test_real_bpmn_loan_has_exactly_one_warning_for_the_diff_without_a_file() -> None:
    _, diags = load_scenario(BPMN_LOAN)
    assert len(diags) == 1, [str(d) for d in diags]
    (warning,) = diags
    assert warning.severity is Severity.WARNING
    assert warning.file == BPMN_LOAN / "manifest.yml"
    assert warning.key == "test_case_diffs.no_extras.excessive_diagram_object2"
    assert "excessive_diagram_object2" in warning.message
    text = (BPMN_LOAN / "manifest.yml").read_text(encoding="utf-8")
    assert warning.line == line_of(text, '"excessive_diagram_object2"')


@needs_real_data
def test_real_unlabelled_activity_replaces_two_default_instructions() -> None:
    scenario, _ = load_scenario(BPMN_LOAN)
    assert scenario is not None
    case = next(c for c in scenario.test_cases if c.name == "unlabelled_activity")
    by = scenario.by_textual_id
    want = [by["activities_incorrect"].id if i == by["activities_correct"].id
            else by["naming_format_incorrect"].id if i == by["naming_format_correct"].id
            else i for i in scenario.default_expected]
    assert list(case.expected) == want
    assert case.diff_instructions == frozenset(
        {by["activities_incorrect"].id, by["naming_format_incorrect"].id}
    )
    assert by["activities_correct"].id not in case.expected
    assert by["naming_format_correct"].id not in case.expected


@needs_real_data
def test_real_cases_without_a_diff_expect_the_default() -> None:
    scenario, _ = load_scenario(BPMN_LOAN)
    assert scenario is not None
    by_name = {c.name: c for c in scenario.test_cases}
    for name in ("unlabelled_event", "wrongly_named_connecting_objects", "wrongly_named_event"):
        assert by_name[name].expected == scenario.default_expected
        assert by_name[name].diff_instructions == frozenset()
    # and every case with a diff differs from the default in exactly its diff instructions
    excessive = by_name["excessive_diagram_object"]
    assert set(excessive.expected) - set(scenario.default_expected) == {
        scenario.by_textual_id["extras_present"].id
    }


@needs_real_data
def test_real_discover_finds_the_scenario_and_its_price_file() -> None:
    sources, problems = discover([REAL_SCENARIOS])
    assert problems == []
    assert [s.folder for s in sources] == [BPMN_LOAN]
    assert sources[0].price_file == REAL_SCENARIOS / "llm_cost.yml"


# --- a small valid scenario ---------------------------------------------------------------


def test_small_scenario_ids_and_expectations(tmp_path: Path) -> None:
    scenario = load_ok(write_scenario(tmp_path))
    assert [(c.id, c.textual_id) for c in scenario.criteria] == [
        (1, "classes"), (2, "relationship"),
    ]
    assert {i.textual_id: i.id for i in scenario.instructions.values()} == {
        "classes_correct": 1, "classes_incorrect": 2,
        "relationship_correct": 3, "relationship_incorrect": 4,
    }
    assert scenario.default_expected == (1, 3)
    cases = {c.name: c for c in scenario.test_cases}
    assert cases["association"].expected == (1, 4)
    assert cases["association"].diff_instructions == frozenset({4})
    assert cases["perfect"].expected == (1, 3)
    assert cases["perfect"].diff_instructions == frozenset()
    # submission ids are 1..n in file-name order; the text is sent unchanged
    assert [(c.name, c.submission_id) for c in scenario.test_cases] == [
        ("association", 1), ("perfect", 2),
    ]
    assert json.loads(cases["perfect"].submission) == DIAGRAM
    assert cases["perfect"].diagram_type == "ClassDiagram"
    assert scenario.criterion_of(4).textual_id == "relationship"


def test_unknown_exercise_keys_like_course_id_are_tolerated_silently(tmp_path: Path) -> None:
    manifest = base_manifest()
    manifest["exercise"]["course_id"] = 2
    manifest["exercise"]["some_future_key"] = "x"
    scenario, diags = load_scenario(write_scenario(tmp_path, manifest))
    assert scenario is not None
    assert diags == []
    assert "course_id" not in scenario.exercise.meta
    assert "course_id" not in scenario.athena_exercise().wire()


@pytest.mark.parametrize(
    "diffs",
    [
        {},
        None,
        {"classes_correct": {}, "relationship_correct": {"association": "relationship_incorrect"}},
        {"classes_correct": None},
    ],
    ids=["empty-mapping", "null", "participants-style-empty", "null-cases"],
)
def test_empty_diffs_are_allowed(tmp_path: Path, diffs: Any) -> None:
    scenario = load_ok(write_scenario(tmp_path, base_manifest(test_case_diffs=diffs)))
    assert [w for w in scenario.diagnostics if w.severity is Severity.WARNING] == []
    expected = {c.name: c.expected for c in scenario.test_cases}
    assert expected["perfect"] == (1, 3)
    assert expected["association"] == ((1, 4) if diffs and diffs.get("relationship_correct")
                                       else (1, 3))


def test_one_case_with_two_diffs_gets_both(tmp_path: Path) -> None:
    manifest = base_manifest(test_case_diffs={
        "classes_correct": {"association": "classes_incorrect"},
        "relationship_correct": {"association": "relationship_incorrect"},
    })
    scenario = load_ok(write_scenario(tmp_path, manifest))
    case = next(c for c in scenario.test_cases if c.name == "association")
    assert case.expected == (2, 4)
    assert case.diff_instructions == frozenset({2, 4})


def test_example_solution_is_read_from_the_scenario_folder(tmp_path: Path) -> None:
    manifest = base_manifest()
    manifest["exercise"]["example_solution"] = "example_solution.json"
    folder = write_scenario(tmp_path, manifest, files={"example_solution.json": '{"a": 1}'})
    scenario = load_ok(folder)
    assert scenario.exercise.example_solution == '{"a": 1}'


# --- manifest errors: file, key path, line ---------------------------------------------------


def test_unknown_instruction_in_default_expected(tmp_path: Path) -> None:
    manifest = base_manifest(default_expected=["classes_correct", "relationship_correct",
                                               "no_such_instruction"])
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "default_expected[2]")
    assert diag.file == folder / "manifest.yml"
    assert "no_such_instruction" in diag.message
    assert diag.line == line_of(text, "- no_such_instruction")
    assert str(diag).startswith(f"error: {folder / 'manifest.yml'}:{diag.line}")


def test_unknown_instruction_as_a_diff_key(tmp_path: Path) -> None:
    manifest = base_manifest(
        test_case_diffs={"ghost_correct": {"association": "classes_incorrect"}}
    )
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "test_case_diffs.ghost_correct")
    assert diag.file == folder / "manifest.yml"
    assert "ghost_correct" in diag.message
    assert diag.line == line_of(text, "ghost_correct:")


def test_unknown_instruction_as_a_diff_replacement(tmp_path: Path) -> None:
    manifest = base_manifest(test_case_diffs={"relationship_correct": {"association": "ghost"}})
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "test_case_diffs.relationship_correct.association")
    assert diag.file == folder / "manifest.yml"
    assert "'ghost'" in diag.message
    assert diag.line == line_of(text, "association: ghost")


def test_diff_key_not_in_default_expected_is_an_error(tmp_path: Path) -> None:
    manifest = base_manifest(test_case_diffs={
        "classes_incorrect": {"association": "classes_correct"}
    })
    scenario, diags = load_scenario(write_scenario(tmp_path, manifest))
    assert scenario is None
    assert "default_expected" in the_error(diags, "test_case_diffs.classes_incorrect").message


def test_duplicate_criterion_id(tmp_path: Path) -> None:
    manifest = base_manifest()
    manifest["criteria"][1]["id"] = "classes"
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "criteria[1].id")
    assert diag.file == folder / "manifest.yml"
    assert "'classes'" in diag.message and "criteria[0]" in diag.message
    assert diag.line == line_of(text, "id: classes\n", start="title: Classes")


def test_duplicate_instruction_id(tmp_path: Path) -> None:
    manifest = base_manifest()
    manifest["criteria"][1]["instructions"][0]["id"] = "classes_correct"
    manifest["default_expected"] = ["classes_correct"]
    manifest["test_case_diffs"] = {}
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "criteria[1].instructions[0].id")
    assert diag.file == folder / "manifest.yml"
    assert "'classes_correct'" in diag.message
    assert "criteria[0].instructions[0]" in diag.message
    assert diag.line == line_of(text, "id: classes_correct", start="title: Relationship")


@pytest.mark.parametrize("instructions", ["missing", [], None], ids=["missing", "empty", "null"])
def test_criterion_without_instructions(tmp_path: Path, instructions: Any) -> None:
    manifest = base_manifest()
    extra = {"id": "empty_one", "title": "Nothing to grade"}
    if instructions != "missing":
        extra["instructions"] = instructions
    manifest["criteria"].append(extra)
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "criteria[2].instructions")
    assert diag.file == folder / "manifest.yml"
    assert "empty_one" in diag.message
    wanted = "instructions:" if instructions != "missing" else "id: empty_one"
    assert diag.line == line_of(text, wanted, start="id: empty_one")


def test_non_numeric_credits(tmp_path: Path) -> None:
    manifest = base_manifest()
    manifest["criteria"][0]["instructions"][1]["credits"] = "lots"
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "criteria[0].instructions[1].credits")
    assert diag.file == folder / "manifest.yml"
    assert "lots" in diag.message
    assert diag.line == line_of(text, "credits: lots")


def test_missing_required_key_names_the_key(tmp_path: Path) -> None:
    manifest = base_manifest()
    del manifest["exercise"]["title"]
    scenario, diags = load_scenario(write_scenario(tmp_path, manifest))
    assert scenario is None
    diag = the_error(diags, "exercise.title")
    assert "required" in diag.message.lower()
    assert diag.line == 2  # the line of the `exercise:` mapping


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    manifest = base_manifest(
        default_expected=["classes_correct", "relationship_correct", "ghost_one"],
        test_case_diffs={"ghost_two": {"association": "classes_incorrect"}},
    )
    manifest["criteria"][1]["id"] = "classes"
    scenario, diags = load_scenario(write_scenario(tmp_path, manifest))
    assert scenario is None
    assert {d.key for d in errors(diags)} >= {
        "default_expected[2]", "test_case_diffs.ghost_two", "criteria[1].id",
    }


def test_missing_test_cases_folder(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path, cases_dir=False)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    (diag,) = [d for d in errors(diags) if d.file == folder / "test_cases"]
    assert "test_cases" in diag.message and "missing" in diag.message


def test_invalid_json_in_one_case_keeps_the_others(tmp_path: Path) -> None:
    cases: dict[str, Case] = {
        "perfect": DIAGRAM,
        "association": DIAGRAM,
        "broken": '{\n  "type": "ClassDiagram",\n  "elements": {,\n}',
    }
    folder = write_scenario(tmp_path, cases=cases)
    scenario, diags = load_scenario(folder)
    assert scenario is not None
    assert sorted(c.name for c in scenario.test_cases) == ["association", "perfect"]
    (bad,) = scenario.invalid_cases
    assert bad.name == "broken"
    assert bad.path == folder / "test_cases" / "broken.json"
    assert "invalid JSON" in bad.reason and "line 3" in bad.reason
    (diag,) = errors(diags)
    assert diag.file == folder / "test_cases" / "broken.json"
    assert "line 3" in diag.message


def test_case_files_with_a_byte_order_mark_load_and_bad_utf8_is_named(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path, cases={"perfect": DIAGRAM, "association": DIAGRAM,
                                             "b_latin1": DIAGRAM})
    cases = folder / "test_cases"
    plain = (cases / "association.json").read_bytes()
    (cases / "association.json").write_bytes(b"\xef\xbb\xbf" + plain)  # as Windows saves it
    (cases / "b_latin1.json").write_bytes(plain.replace(b'"ClassDiagram"', b'"Caf\xe9"'))
    scenario, diags = load_scenario(folder)
    assert scenario is not None
    # in name order, the one with the mark read as the one without
    assert [c.name for c in scenario.test_cases] == ["association", "perfect"]
    assert scenario.test_cases[0].submission == plain.decode()
    (bad,) = scenario.invalid_cases
    assert bad.name == "b_latin1" and "not UTF-8 text" in bad.reason
    assert [d.file for d in errors(diags)] == [cases / "b_latin1.json"]


@pytest.mark.parametrize(
    ("content", "words"),
    [("[1, 2]", "JSON list"), ("\"text\"", "JSON str")],
)
def test_non_object_json_case_is_invalid(tmp_path: Path, content: str, words: str) -> None:
    folder = write_scenario(tmp_path, cases={"perfect": DIAGRAM, "odd": content})
    scenario, _ = load_scenario(folder)
    assert scenario is not None
    (bad,) = scenario.invalid_cases
    assert bad.name == "odd" and words in bad.reason


def test_a_diff_naming_an_invalid_case_is_not_reported_as_missing_file(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path, cases={"perfect": DIAGRAM, "association": "{oops"})
    scenario, diags = load_scenario(folder)
    assert scenario is not None
    assert warnings(diags) == []
    assert [c.name for c in scenario.invalid_cases] == ["association"]


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    text = dump(base_manifest())
    broken = text.replace("default_expected:", "default_expected: [unclosed\nother:", 1)
    folder = write_scenario(tmp_path, broken)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    (diag,) = diags
    assert diag.severity is Severity.ERROR
    assert diag.file == folder / "manifest.yml"
    assert "invalid YAML" in diag.message
    assert diag.line is not None
    assert line_of(broken, "default_expected:") <= diag.line <= len(broken.splitlines()) + 1


def test_example_solution_missing(tmp_path: Path) -> None:
    manifest = base_manifest()
    manifest["exercise"]["example_solution"] = "solution.json"
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "exercise.example_solution")
    assert diag.file == folder / "manifest.yml"
    assert "solution.json" in diag.message and "not found" in diag.message
    assert diag.line == line_of(text, "example_solution:")


@pytest.mark.parametrize("escape", ["../../etc/passwd", "../secret.json", "/etc/passwd"])
def test_example_solution_outside_the_folder_is_refused(tmp_path: Path, escape: str) -> None:
    (tmp_path / "secret.json").write_text("{}", encoding="utf-8")
    manifest = base_manifest()
    manifest["exercise"]["example_solution"] = escape
    text = dump(manifest)
    folder = write_scenario(tmp_path / "scenarios", text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    diag = the_error(diags, "exercise.example_solution")
    assert "outside" in diag.message and "refused" in diag.message
    assert diag.line == line_of(text, "example_solution:")


def test_inside_helper(tmp_path: Path) -> None:
    assert inside(tmp_path, "a/b.json") == (tmp_path / "a" / "b.json").resolve()
    assert inside(tmp_path, "a/../b.json") == (tmp_path / "b.json").resolve()
    assert inside(tmp_path, "../b.json") is None
    assert inside(tmp_path, "/etc/passwd") is None


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", "42\n"])
def test_manifest_that_is_not_a_mapping(tmp_path: Path, text: str) -> None:
    folder = write_scenario(tmp_path, text)
    scenario, diags = load_scenario(folder)
    assert scenario is None
    (diag,) = diags
    assert diag.severity is Severity.ERROR
    assert diag.file == folder / "manifest.yml"
    assert "mapping" in diag.message


def test_empty_manifest_is_an_error(tmp_path: Path) -> None:
    scenario, diags = load_scenario(write_scenario(tmp_path, ""))
    assert scenario is None
    assert len(errors(diags)) == 1


def test_no_manifest(tmp_path: Path) -> None:
    (tmp_path / "nothing").mkdir()
    scenario, diags = load_scenario(tmp_path / "nothing")
    assert scenario is None
    (diag,) = diags
    assert diag.file == tmp_path / "nothing" / "manifest.yml"


def test_ids_yaml_reads_as_numbers_are_refused_with_line_and_key(tmp_path: Path) -> None:
    """``id: 10`` was read as the id "10", ``.nan`` as "nan": an id must be text (issue 31)."""
    text = """\
exercise: {title: T, max_points: 2}
criteria:
  - id: 1
    instructions:
      - {id: 10, credits: 1}
      - {id: .nan, credits: 0}
default_expected: [10]
test_case_diffs:
  10:
    association: 11
"""
    scenario, diags = load_scenario(write_scenario(tmp_path, text))
    assert scenario is None
    assert the_error(diags, "criteria[0].id").line == 3
    assert "YAML reads this id as the number 1, not as text" in \
        the_error(diags, "criteria[0].id").message
    assert the_error(diags, "criteria[0].instructions[0].id").line == 5
    assert "as the number NaN" in the_error(diags, "criteria[0].instructions[1].id").message
    assert the_error(diags, "default_expected[0]").line == 7
    assert the_error(diags, "test_case_diffs[10].[key]").line == 9
    assert the_error(diags, "test_case_diffs[10].association").line == 10


def test_numeric_ids_in_quotes_work_in_diffs_too(tmp_path: Path) -> None:
    text = """\
exercise: {title: T, max_points: 2}
criteria:
  - id: "1"
    instructions:
      - {id: "10", credits: 1}
      - {id: "11", credits: 0}
default_expected: ["10"]
test_case_diffs:
  "10":
    association: "11"
"""
    scenario = load_ok(write_scenario(tmp_path, text))
    case = next(c for c in scenario.test_cases if c.name == "association")
    assert case.expected == (2,)


@pytest.mark.parametrize(("written", "said"), [
    ('""', "is empty: an id is text with at least one character other than spaces"),
    ('"   "', "is empty"),
    ("", "is empty (null)"),
    ("~", "is empty (null)"),
    ("yes", "YAML reads this id as the boolean true"),
    ("off", "YAML reads this id as the boolean false"),
    ("1.5", "as the number 1.5"),
    (".inf", "as the number Infinity"),
    ("010", "as the number 8"),
])
def test_an_id_that_is_not_text_is_refused(tmp_path: Path, written: str, said: str) -> None:
    text = f"""\
exercise: {{title: T, max_points: 2}}
criteria:
  - id: c
    instructions:
      - id: {written}
        credits: 1
"""
    scenario, diags = load_scenario(write_scenario(tmp_path, text))
    assert scenario is None
    found = the_error(diags, "criteria[0].instructions[0].id")
    assert said in found.message and found.line == 5


# --- discover --------------------------------------------------------------------------------


def test_discover_a_single_scenario_folder(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path)
    sources, problems = discover([folder])
    assert problems == []
    assert [s.folder for s in sources] == [folder]
    assert sources[0].price_file is None


def test_discover_a_folder_of_scenarios_with_a_price_file_beside_them(tmp_path: Path) -> None:
    b = write_scenario(tmp_path, name="b_scenario")
    a = write_scenario(tmp_path, name="a_scenario")
    (tmp_path / "not_a_scenario").mkdir()
    (tmp_path / "llm_cost.yml").write_text("llm_costs: {}\n", encoding="utf-8")
    sources, problems = discover([tmp_path])
    assert problems == []
    assert [s.folder for s in sources] == [a, b]
    assert all(s.price_file == tmp_path / "llm_cost.yml" for s in sources)


def test_discover_prefers_a_price_file_inside_the_scenario(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path, files={"llm_cost.yml": "llm_costs: {}\n"})
    (tmp_path / "llm_cost.yml").write_text("llm_costs: {}\n", encoding="utf-8")
    (source,), _ = discover([folder])
    assert source.price_file == folder / "llm_cost.yml"


def test_discover_the_same_scenario_twice_gives_it_once(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path)
    sources, problems = discover([folder, tmp_path, folder])
    assert problems == []
    assert [s.folder for s in sources] == [folder]


def test_discover_a_missing_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    sources, problems = discover([missing])
    assert sources == []
    (diag,) = problems
    assert diag.severity is Severity.ERROR
    assert diag.file == missing
    assert "no such" in diag.message


def test_discover_a_file_and_an_empty_folder(tmp_path: Path) -> None:
    file = tmp_path / "manifest.yml"
    file.write_text("x: 1\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    sources, problems = discover([file, tmp_path / "empty"])
    assert sources == []
    assert [d.file for d in problems] == [file, tmp_path / "empty"]
    assert all(d.severity is Severity.ERROR for d in problems)
