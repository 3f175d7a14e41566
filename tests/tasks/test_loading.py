"""Loading task suites: both shapes, aliases, unknown fields, the published llmevalforge files,
one clear error per broken file, and the kind registry."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tasks.conftest import EXAMPLE_SUITE, V1, V2, write

from eunomia.errors import Severity
from eunomia.tasks import load_suite, load_suites
from eunomia.tasks.categories import categories, category_for, category_for_file, category_named

GOOD_V1 = ["inference_speed_ecommerce_tests.yaml", "summarization_ecommerce_tests.yaml"]
GOOD_V2 = [f"{k}_ecommerce_tests.yaml" for k in (
    "common_sense_reasoning", "ethical_reasoning", "general_knowledge",
    "instruction_following", "summarization")]
BROKEN_V1 = {  # file -> line of the cause
    "common_sense_reasoning_ecommerce_tests.yaml": 37,
    "ethical_reasoning_ecommerce_tests.yaml": 50,
    "general_knowledge_ecommerce_tests.yaml": 83,
    "instruction_following_ecommerce_tests.yaml": 101,
}

needs_conformance = pytest.mark.skipif(not V1.is_dir(), reason="conformance data not present")

LIST_SUITE = """\
- case_id: 001
  category: Summarization
  sub_category: Product Information
  system_prompt: You write product copy.
  instruction: Describe a kettle.
  expected_response: A kettle.
  potential_challenges: null
  difficulty_level: Easy
  my_note: kept
- case_id: 002
  category: general knowledge
  instruction: What is IP67?
  difficulty_level: hard
"""

MAPPING_SUITE = """\
metadata:
  name: demo
  category: instruction following
test_cases:
  - case_id: 1
    sub_category: [returns, policy]
    system_prompt: Rules.
    instruction: Can I return it?
    expected_response: Yes.
    challenges: Inventing fees.
    difficulty_level: medium
    human_score: 4
"""


def test_bare_list_shape(tmp_path: Path) -> None:
    suite, problems = load_suite(write(tmp_path / "s.yaml", LIST_SUITE))
    assert problems == []
    assert suite is not None and suite.shape == "list"
    first, second = suite.cases
    assert (first.name, first.kind, first.difficulty) == ("1", "summarization", "easy")
    assert second.kind == "general_knowledge" and second.difficulty == "hard"
    assert first.case.sub_categories == ["Product Information"]
    assert list(first.raw) == ["case_id", "category", "sub_category", "system_prompt",
                               "instruction", "expected_response", "potential_challenges",
                               "difficulty_level", "my_note"]
    assert first.raw["my_note"] == "kept"


def test_mapping_shape_challenges_alias_and_file_category(tmp_path: Path) -> None:
    suite, problems = load_suite(write(tmp_path / "x.yaml", MAPPING_SUITE))
    assert problems == []
    assert suite is not None and suite.shape == "mapping"
    assert suite.metadata["name"] == "demo"
    (case,) = suite.cases
    assert case.kind == "instruction_following"  # from metadata.category
    assert case.case.challenges_text == "Inventing fees."
    assert case.case.sub_categories == ["returns", "policy"]
    assert case.case.human_score == 4


@needs_conformance
@pytest.mark.parametrize(("folder", "name"),
                         [(V1, n) for n in GOOD_V1] + [(V2, n) for n in GOOD_V2])
def test_published_files_that_parse_load_unchanged(folder: Path, name: str) -> None:
    suite, problems = load_suite(folder / name)
    assert [p for p in problems if p.severity is Severity.ERROR] == []
    assert suite is not None and len(suite.cases) == 5 and suite.invalid == []
    expected_kind = name.removesuffix("_ecommerce_tests.yaml")
    assert {c.kind for c in suite.cases} == {expected_kind}
    assert all(c.case.instruction for c in suite.cases)
    if folder == V1 and name.startswith("inference"):
        assert [c.case.expected_output_length for c in suite.cases] == [50, 100, 200, 400, 600]


@needs_conformance
@pytest.mark.parametrize(("name", "line"), sorted(BROKEN_V1.items()))
def test_each_broken_file_gives_one_error_with_file_line_and_cause(name: str, line: int) -> None:
    suite, problems = load_suite(V1 / name)
    assert suite is None
    (problem,) = problems
    assert problem.severity is Severity.ERROR
    assert problem.file == V1 / name and problem.line == line
    assert "invalid YAML" in problem.message
    cause = "tab" if name.startswith("ethical") else "indented more than its key"
    assert cause in problem.message
    assert name in str(problem) and f":{line}:" in str(problem)


@needs_conformance
def test_a_folder_with_broken_files_still_loads_the_others() -> None:
    suites, problems = load_suites([V1, V2])
    assert len(problems) == 4
    assert {p.file.name for p in problems if p.file} == set(BROKEN_V1)
    assert sorted(len(s.cases) for s in suites) == [5] * 7
    names = [s.name for s in suites]
    assert len(set(names)) == 7  # two summarization files get distinct names


def test_broken_case_is_reported_with_line_and_the_rest_loads(tmp_path: Path) -> None:
    text = LIST_SUITE + "- case_id: 3\n  category: Summarization\n  difficulty_level: extreme\n" \
        + "  instruction: x\n- case_id: 4\n  category: Astrology\n  instruction: y\n" \
        + "- case_id: 1\n  category: Summarization\n  instruction: dup\n"
    suite, problems = load_suite(write(tmp_path / "misc.yaml", text))
    assert suite is not None and [c.name for c in suite.cases] == ["1", "2"]
    assert [n for n, _ in suite.invalid] == ["3", "4", "1"]
    messages = {(p.key, p.line): p.message for p in problems}
    assert any(k == "[2].difficulty_level" and line == 16 for k, line in messages)
    assert any("unknown category 'Astrology'" in m for m in messages.values())
    assert any("duplicate case_id" in m for m in messages.values())


def test_not_a_suite(tmp_path: Path) -> None:
    suite, problems = load_suite(write(tmp_path / "cfg.yaml", "model: {name: x}\n"))
    assert suite is None and "not a task suite" in problems[0].message


def test_registry_names_are_case_insensitive() -> None:
    for title, name in [("Summarization", "summarization"),
                        ("Instruction Following", "instruction_following"),
                        ("General Knowledge", "general_knowledge"),
                        ("Ethical Reasoning", "ethical_reasoning"),
                        ("Common Sense Reasoning", "common_sense_reasoning"),
                        ("Context Retention", "context_retention"),
                        ("Inference Speed", "inference_speed"),
                        ("common-sense reasoning", "common_sense_reasoning"),
                        ("INSTRUCTION_FOLLOWING", "instruction_following")]:
        kind = category_for(title)
        assert kind is not None and kind.name == name
        assert category_named(title).name == name
    assert category_for("astrology") is None
    found = category_for_file(Path("common_sense_reasoning_ecommerce_tests.yaml"))
    assert found is not None and found.name == "common_sense_reasoning"
    assert category_for_file(Path("notes.yaml")) is None
    for kind in categories():
        assert kind.guidance()  # every kind has its prompt file


def test_example_suite_has_five_cases_per_kind_mixed_difficulty() -> None:
    suites, problems = load_suites([EXAMPLE_SUITE])
    assert problems == []
    per_kind: dict[str, list[str]] = {}
    for s in suites:
        for c in s.cases:
            per_kind.setdefault(c.kind, []).append(c.difficulty)
    assert set(per_kind) == {k.name for k in categories()}
    for difficulties in per_kind.values():
        assert len(difficulties) >= 5
        assert {"easy", "medium", "hard"} <= set(difficulties)
    cases = [c for s in suites for c in s.cases]
    assert sum(c.case.human_score is not None for c in cases) >= 5
    assert sum(bool(c.case.checks) for c in cases) >= 5
    assert {s.shape for s in suites} == {"list", "mapping"}


def test_kind_requirements(tmp_path: Path) -> None:
    suite, problems = load_suite(write(tmp_path / "context_retention.yaml", """\
- {case_id: a, conversation: [{user: hi}]}
- {case_id: b}
- {case_id: c, conversation: [{user: hi}, {user: and?, eval_point: remembers}]}
"""))
    assert suite is not None and [c.name for c in suite.cases] == ["c"]
    assert [p.message for p in problems] == [
        "no turn of the conversation has an 'eval_point': nothing to judge",
        "a context-retention case needs a 'conversation' list of {user, eval_point?}"]
    suite, problems = load_suite(write(tmp_path / "summarization.yaml", "- {case_id: a}\n"))
    assert suite is not None and suite.cases == []
    assert problems[0].message == "the case has no 'instruction'" and problems[0].line == 1


def test_an_unreadable_path_is_a_diagnostic_not_a_traceback() -> None:
    from eunomia.tasks._loader import discover

    too_long = Path("x" * 300 + ".yaml")
    files, problems = discover([too_long])
    assert files == []
    (problem,) = problems
    assert problem.file == too_long and "cannot read" in problem.message


# --- ids that are not ids (issue 31) ---------------------------------------------------------

NOT_IDS = """\
- case_id: 7
  category: Summarization
  instruction: a whole number, as the published datasets write them
- case_id: ""
  category: Summarization
  instruction: empty
- case_id: .nan
  category: Summarization
  instruction: was the id "nan"
- case_id:
  category: Summarization
  instruction: written without a value
- case_id: no
  category: Summarization
  instruction: a boolean to YAML
- id: 2.5
  category: Summarization
  instruction: a number that is not whole
- category: Summarization
  instruction: no id at all is fine (named by its place)
"""


@pytest.mark.parametrize("streamed", [True, False])
def test_ids_that_are_not_ids_are_refused_with_line_and_key(tmp_path: Path,
                                                            streamed: bool) -> None:
    # an anchor sends the file to the whole (not streamed) reading: both say the same
    text = NOT_IDS if streamed else NOT_IDS.replace("category: Summarization\n  instruction: "
                                                    "a whole", "category: &s Summarization\n"
                                                    "  instruction: a whole", 1)
    suite, problems = load_suite(write(tmp_path / "misc.yaml", text))
    assert suite is not None
    assert [c.name for c in suite.cases] == ["7", "case_7"]
    found = {(p.key, p.line): p.message for p in problems if p.severity is Severity.ERROR}
    assert found == {
        ("[1].case_id", 4): "is empty: an id is text with at least one character other than "
                            "spaces",
        ("[2].case_id", 7): "YAML reads this id as the number NaN, not as text: write it in "
                            "quotes as it should read (YAML turns 010 into 8 and .nan into NaN)",
        ("[3].case_id", 10): "is empty (null): an id is text with at least one character",
        ("[4].case_id", 13): "YAML reads this id as the boolean false, not as text: write it "
                             "in quotes (YAML turns yes, no, on and off into booleans)",
        ("[5].id", 16): "YAML reads this id as the number 2.5, not as text: write it in "
                        "quotes as it should read (YAML turns 010 into 8 and .nan into NaN)",
    }
    # the unusable items are named by their place, never "nan", "False" or ""
    assert [n for n, _ in suite.invalid] == ["case_2", "case_3", "case_4", "case_5", "case_6"]
