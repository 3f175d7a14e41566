"""The example server over real HTTP, with requests built from the bundled scenario."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
import yaml

from eunomia.athena import (
    AthenaExercise,
    AthenaGradingCriterion,
    AthenaGradingInstruction,
    AthenaSubmission,
    FeedbackRequest,
    parse_feedback_response,
)
from eunomia.example_server import MODEL_NAME, start_example_server

SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
MANIFEST: dict[str, Any] = yaml.safe_load((SCENARIO / "manifest.yml").read_text(encoding="utf-8"))
EXERCISE_ID = 4242
HEADERS = {"X-Server-URL": "http://localhost"}
MANAGER_PATH = "/modules/modeling/module_modeling_llm/feedback_suggestions"

# Hand-checked answers of the example server: every case gets DEFAULT with these changes.
DEFAULT = {
    "classes": "classes_correct",
    "relationship_type": "relationship_correct",
    "multiplicity": "multiplicity_correct",
    "assignment": "assignment_correct",
    "attributes": "attributes_correct",
    "naming_format": "naming_format_correct",
    "extras": "no_extras",
}
SERVER_ANSWERS: dict[str, dict[str, str]] = {
    "perfect_solution": {},
    "association_instead_of_composition": {"relationship_type": "relationship_not_composition"},
    "aggregation_instead_of_composition": {"relationship_type": "relationship_not_composition"},
    "composition_reversed": {"relationship_type": "relationship_reversed"},
    "missing_task_class": {
        "classes": "classes_missing",
        "relationship_type": "relationship_not_composition",
        "multiplicity": "multiplicity_incorrect",
        "assignment": "assignment_missing",
        "attributes": "attributes_missing",
    },
    "missing_attributes": {"attributes": "attributes_missing"},
    "lowercase_class_names": {"naming_format": "naming_format_incorrect"},
    "wrong_multiplicity": {"multiplicity": "multiplicity_incorrect"},
    "extra_class": {"extras": "extras_present"},
    "inheritance_instead_of_composition": {
        "relationship_type": "relationship_not_composition",
        "multiplicity": "multiplicity_incorrect",
    },
    "missing_assignment": {"assignment": "assignment_missing"},
    "association_and_uppercase_attributes": {
        "relationship_type": "relationship_not_composition",
        "naming_format": "naming_format_incorrect",
    },
    # Misses the redundant "project: Project" attribute (expected: extras_present).
    "redundant_project_attribute": {},
    # Sees no Task, so flags everything about it (expected: only classes_missing).
    "job_instead_of_task": {
        "classes": "classes_missing",
        "relationship_type": "relationship_not_composition",
        "multiplicity": "multiplicity_incorrect",
        "assignment": "assignment_missing",
        "attributes": "attributes_missing",
        "extras": "extras_present",
    },
}


def _numeric_ids() -> dict[str, int]:
    """Instruction ids 1..M in manifest order, as Eunomia maps textual ids."""
    ids: dict[str, int] = {}
    for criterion in MANIFEST["criteria"]:
        for instruction in criterion["instructions"]:
            ids[instruction["id"]] = len(ids) + 1
    return ids


SGI_IDS = _numeric_ids()
SGI_TEXT = {number: text for text, number in SGI_IDS.items()}


def _exercise() -> AthenaExercise:
    ex = MANIFEST["exercise"]
    criteria = [
        AthenaGradingCriterion(
            id=number,
            title=c["title"],
            structured_grading_instructions=[
                AthenaGradingInstruction(
                    id=SGI_IDS[i["id"]],
                    credits=float(i["credits"]),
                    grading_scale=i["grading_scale"],
                    instruction_description=i["instruction_description"],
                    feedback=i["feedback"],
                )
                for i in c["instructions"]
            ],
        )
        for number, c in enumerate(MANIFEST["criteria"], start=1)
    ]
    solution = (SCENARIO / ex["example_solution"]).read_text(encoding="utf-8")
    return AthenaExercise(
        id=EXERCISE_ID,
        title=ex["title"],
        type=ex["type"],
        max_points=ex["max_points"],
        bonus_points=ex["bonus_points"],
        grading_instructions=ex["grading_instructions"],
        problem_statement=ex["problem_statement"],
        example_solution=solution,
        grading_criteria=criteria,
        meta=ex["meta"],
    )


def _case_text(name: str) -> str:
    return (SCENARIO / "test_cases" / f"{name}.json").read_text(encoding="utf-8")


def _request(name: str, exercise: AthenaExercise | None = None, submission_id: int = 7) -> str:
    body = FeedbackRequest(
        exercise=exercise or _exercise(),
        submission=AthenaSubmission(
            id=submission_id, exercise_id=EXERCISE_ID, model=_case_text(name)
        ),
    )
    return json.dumps(body.wire())


def _manifest_expectation(case: str) -> set[str]:
    expected = list(MANIFEST["default_expected"])
    for default, cases in MANIFEST["test_case_diffs"].items():
        if case in cases:
            expected[expected.index(default)] = cases[case]
    return set(expected)


def _server_expectation(case: str) -> set[str]:
    return set({**DEFAULT, **SERVER_ANSWERS[case]}.values())


@pytest_asyncio.fixture
async def server() -> AsyncIterator[str]:
    runner, url = await start_example_server()
    yield url
    await runner.cleanup()


@pytest_asyncio.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def _post(
    session: aiohttp.ClientSession,
    url: str,
    body: str,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    async with session.post(url, data=body, headers=HEADERS if headers is None else headers) as r:
        return r.status, await r.json()


def test_every_test_case_file_has_a_hand_checked_answer() -> None:
    files = {p.stem for p in (SCENARIO / "test_cases").glob("*.json")}
    assert files == set(SERVER_ANSWERS)
    assert len(files) >= 10


@pytest.mark.parametrize("case", sorted(SERVER_ANSWERS))
async def test_server_picks_the_hand_checked_instructions(
    server: str, session: aiohttp.ClientSession, case: str
) -> None:
    status, body = await _post(session, server, _request(case))
    assert status == 200
    returned = [SGI_TEXT[item["structuredGradingInstructionId"]] for item in body["data"]]
    assert len(returned) == len(MANIFEST["criteria"])  # one item per criterion
    assert set(returned) == _server_expectation(case)


def test_server_disagrees_with_the_manifest_only_on_the_semantic_cases() -> None:
    wrong = {c for c in SERVER_ANSWERS if _server_expectation(c) != _manifest_expectation(c)}
    assert wrong == {"redundant_project_attribute", "job_instead_of_task"}
    assert _manifest_expectation("redundant_project_attribute") - _server_expectation(
        "redundant_project_attribute"
    ) == {"extras_present"}


async def test_response_follows_the_athena_contract(
    server: str, session: aiohttp.ClientSession
) -> None:
    exercise = _exercise()
    request = _request("extra_class", exercise, submission_id=99)
    status, body = await _post(session, server, request)
    assert status == 200
    assert set(body) == {"data", "meta"}
    parsed = parse_feedback_response(body)
    diagram_ids = set(json.loads(_case_text("extra_class"))["elements"]) | set(
        json.loads(_case_text("extra_class"))["relationships"]
    )
    sgis = {
        sgi.id: (criterion, sgi)
        for criterion in exercise.grading_criteria
        for sgi in criterion.structured_grading_instructions
    }
    for raw, item in zip(body["data"], parsed.data, strict=True):
        assert raw["isGraded"] is False
        assert raw["meta"] == {}
        assert item.structured_grading_instruction_id is not None
        criterion, sgi = sgis[item.structured_grading_instruction_id]
        assert item.title == criterion.title
        assert item.description == sgi.feedback
        assert item.credits == sgi.credits
        assert item.exercise_id == EXERCISE_ID
        assert item.submission_id == 99
        assert set(item.element_ids) <= diagram_ids
    extras = next(i for i in parsed.data if i.title == "No Extraneous Elements")
    client = next(
        k
        for k, v in json.loads(_case_text("extra_class"))["elements"].items()
        if v["name"] == "Client"
    )
    assert extras.element_ids == [client]

    (usage,) = parsed.meta.llm_requests
    assert usage.model == MODEL_NAME
    assert usage.num_input_tokens == len(request) // 4
    assert usage.num_output_tokens == len(json.dumps(body["data"])) // 4
    assert usage.num_total_tokens == usage.num_input_tokens + usage.num_output_tokens
    assert usage.num_input_tokens > 0


async def test_perfect_solution_earns_max_points(
    server: str, session: aiohttp.ClientSession
) -> None:
    _, body = await _post(session, server, _request("perfect_solution"))
    assert sum(item["credits"] for item in body["data"]) == MANIFEST["exercise"]["max_points"]


async def test_module_manager_path_wraps_the_answer(
    server: str, session: aiohttp.ClientSession
) -> None:
    url = server.replace("/feedback_suggestions", MANAGER_PATH)
    status, body = await _post(session, url, _request("missing_assignment"))
    assert status == 200
    assert body["module_name"] == "module_modeling_llm"
    assert body["status"] == 200
    returned = {SGI_TEXT[i["structuredGradingInstructionId"]] for i in body["data"]}
    assert "assignment_missing" in returned


async def test_url_has_the_real_port_and_health_answers(
    server: str, session: aiohttp.ClientSession
) -> None:
    assert server.startswith("http://127.0.0.1:")
    assert server.endswith("/feedback_suggestions")
    port = int(server.split(":")[2].split("/")[0])
    assert port > 0
    async with session.get(f"http://127.0.0.1:{port}/health") as response:
        assert response.status == 200
        assert await response.json() == {"status": "ok"}


async def test_missing_x_server_url_is_401(server: str, session: aiohttp.ClientSession) -> None:
    status, body = await _post(session, server, _request("perfect_solution"), headers={})
    assert status == 401
    assert "X-Server-URL" in body["error"]


async def test_secret_is_required_when_configured(session: aiohttp.ClientSession) -> None:
    runner, url = await start_example_server(secret="s3cret-value")
    try:
        request = _request("perfect_solution")
        status, body = await _post(session, url, request)
        assert status == 401
        assert "Authorization" in body["error"]
        status, _ = await _post(session, url, request, {**HEADERS, "Authorization": "wrong"})
        assert status == 401
        status, _ = await _post(session, url, request, {"Authorization": "s3cret-value"})
        assert status == 401  # still needs X-Server-URL
        status, body = await _post(
            session, url, request, {**HEADERS, "Authorization": "s3cret-value"}
        )
        assert status == 200
        assert len(body["data"]) == len(MANIFEST["criteria"])
    finally:
        await runner.cleanup()


async def test_no_secret_means_any_authorization_is_accepted(
    server: str, session: aiohttp.ClientSession
) -> None:
    headers = {**HEADERS, "Authorization": "anything"}
    status, _ = await _post(session, server, _request("perfect_solution"), headers)
    assert status == 200


def _good_wire() -> dict[str, Any]:
    wire: dict[str, Any] = json.loads(_request("perfect_solution"))
    return wire


def _bad_bodies() -> list[tuple[str, str, str]]:
    """(case id, body, field the 422 must name)."""
    no_submission = {k: v for k, v in _good_wire().items() if k != "submission"}
    model_object = _good_wire()
    model_object["submission"]["model"] = json.loads(model_object["submission"]["model"])
    model_not_json = _good_wire()
    model_not_json["submission"]["model"] = "{not json"
    model_no_type = _good_wire()
    model_no_type["submission"]["model"] = json.dumps({"version": "3.0.0", "elements": {}})
    bad_credits = _good_wire()
    bad_credits["exercise"]["gradingCriteria"][0]["structuredGradingInstructions"][0]["credits"] = (
        "lots"
    )
    return [
        ("not_json", "{oops", "body"),
        ("no_submission", json.dumps(no_submission), "submission"),
        ("model_object", json.dumps(model_object), "submission.model"),
        ("model_not_json", json.dumps(model_not_json), "submission.model"),
        ("model_no_type", json.dumps(model_no_type), "submission.model.type"),
        (
            "bad_credits",
            json.dumps(bad_credits),
            "exercise.gradingCriteria[0].structuredGradingInstructions[0].credits",
        ),
    ]


@pytest.mark.parametrize(
    ("body", "field"), [b[1:] for b in _bad_bodies()], ids=[b[0] for b in _bad_bodies()]
)
async def test_bad_bodies_are_422_naming_the_field(
    server: str, session: aiohttp.ClientSession, body: str, field: str
) -> None:
    status, answer = await _post(session, server, body)
    assert status == 422
    assert field in answer["error"]
    assert any(d["loc"] == field for d in answer["detail"])


async def test_other_diagram_types_get_no_feedback(
    server: str, session: aiohttp.ClientSession
) -> None:
    bpmn = {"version": "3.0.0", "type": "BPMN", "elements": {}, "relationships": {}}
    wire = _good_wire()
    wire["submission"]["model"] = json.dumps(bpmn)
    status, body = await _post(session, server, json.dumps(wire))
    assert status == 200
    assert body["data"] == []
    assert body["meta"]["llmRequests"][0]["model"] == MODEL_NAME


async def test_unknown_criteria_and_scales_get_no_item_and_case_is_ignored(
    server: str, session: aiohttp.ClientSession
) -> None:
    exercise = _exercise()
    classes, relationship, *_ = exercise.grading_criteria
    classes.structured_grading_instructions[0].grading_scale = "  CLASSES correct "
    relationship.structured_grading_instructions = [
        sgi
        for sgi in relationship.structured_grading_instructions
        if sgi.grading_scale != "Composition Correct"
    ]
    exercise.grading_criteria.append(
        AthenaGradingCriterion(
            id=99,
            title="Start and End Events",
            structured_grading_instructions=[AthenaGradingInstruction(id=999, credits=1.0)],
        )
    )
    _, body = await _post(session, server, _request("perfect_solution", exercise))
    returned = {item["structuredGradingInstructionId"] for item in body["data"]}
    assert SGI_IDS["classes_correct"] in returned  # matched despite case and spaces
    assert not returned & {
        SGI_IDS[t]
        for t in ("relationship_correct", "relationship_reversed", "relationship_not_composition")
    }
    assert 999 not in returned
    assert len(body["data"]) == len(MANIFEST["criteria"]) - 1
