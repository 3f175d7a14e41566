"""Prompt templates: bundled files, per-run override folder, placeholder checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from eunomia.athena import AthenaSubmission, FeedbackRequest
from eunomia.errors import EunomiaError
from eunomia.llm_feedback import BUNDLED_DIR, FIELDS, PromptBuilder, PromptTemplates
from eunomia.scenarios import Scenario
from eunomia.scheduler import CallError


def _request(scenario: Scenario, index: int = 0) -> FeedbackRequest:
    case = scenario.test_cases[index]
    return FeedbackRequest(
        exercise=scenario.athena_exercise(),
        submission=AthenaSubmission(id=case.submission_id, exercise_id=scenario.exercise.id,
                                    model=case.submission),
    )


def test_bundled_templates_use_known_fields_only() -> None:
    templates = PromptTemplates.load()
    assert templates.system.path == BUNDLED_DIR / "system.txt"
    assert templates.user.fields == {"submission"}
    assert templates.system.fields <= set(FIELDS) - {"submission"}


def test_common_parts_first_and_the_submission_last(example_scenario: Scenario) -> None:
    builder = PromptBuilder()
    _, first = builder.chat_request(_request(example_scenario, 0))
    _, second = builder.chat_request(_request(example_scenario, 1))
    system, user = first.messages
    assert (system.role, user.role) == ("system", "user")
    assert system == second.messages[0]  # identical prefix for every case of a scenario
    assert user != second.messages[1]
    for needle in ("Problem statement:", "Grading instructions:", "[Class] TeamMember",
                   '"15" Extras Present (0 pt)'):
        assert needle in system.content
    assert example_scenario.exercise.problem_statement in system.content
    assert user.content.rstrip().endswith("(bidirectional association)")
    assert first.json_schema is not None and first.settings.temperature == 0.0
    assert first.settings.max_tokens == 32 + 80 * 7


def test_override_folder_replaces_only_the_files_it_has(
    tmp_path: Path, example_scenario: Scenario
) -> None:
    (tmp_path / "user.txt").write_text("Grade {{this}} JSON: {submission}\n", encoding="utf-8")
    templates = PromptTemplates.load(tmp_path)
    assert templates.user.path == tmp_path / "user.txt"
    assert templates.system.path == BUNDLED_DIR / "system.txt"
    _, chat = PromptBuilder(templates).chat_request(_request(example_scenario))
    assert chat.messages[1].content.startswith("Grade {this} JSON: Diagram type: ClassDiagram")


def test_unknown_placeholder_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "system.txt"
    path.write_text("Exercise {exercise_title}, rubric {rubric}\n", encoding="utf-8")
    with pytest.raises(EunomiaError) as info:
        PromptTemplates.load(tmp_path)
    message = str(info.value)
    assert str(path) in message
    assert "unknown placeholder {rubric}" in message
    assert "problem_statement" in message  # lists the known ones


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('Answer like {"a": 1}\n', 'unknown placeholder {"a"}'),
        ("Unbalanced { brace\n", "literal braces"),
        ("{problem_statement:>10}\n", "format spec"),
        ("{}\n", "unknown placeholder {(empty)}"),
    ],
)
def test_bad_brace_use_is_reported(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / "system.txt").write_text(text, encoding="utf-8")
    with pytest.raises(EunomiaError, match=r"system\.txt") as info:
        PromptTemplates.load(tmp_path)
    assert problem in str(info.value)


def test_submission_must_be_in_the_user_template_only(tmp_path: Path) -> None:
    (tmp_path / "user.txt").write_text("No diagram here\n", encoding="utf-8")
    with pytest.raises(EunomiaError, match="submission"):
        PromptTemplates.load(tmp_path)
    (tmp_path / "user.txt").write_text("{submission}\n", encoding="utf-8")
    (tmp_path / "system.txt").write_text("{criteria} {submission}\n", encoding="utf-8")
    with pytest.raises(EunomiaError, match="belongs in the user template"):
        PromptTemplates.load(tmp_path)


def test_missing_override_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EunomiaError, match="does not exist"):
        PromptTemplates.load(tmp_path / "nope")


def test_unreadable_submission_is_a_final_failure(example_scenario: Scenario) -> None:
    request = _request(example_scenario)
    request.submission.model = "{not json"
    with pytest.raises(CallError) as info:
        PromptBuilder().chat_request(request)
    assert info.value.retryable is False
    assert "not JSON" in info.value.reason
