"""The bundled answer schemas for Athena's modeling module (README, bench/peers.md) are ones
the embedded model's grammar accepts, and they bound what they say they bound: the current
module's (``element_name``, one or none) and the legacy module's (``element_names``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parents[2] / "examples" / "athena"


@pytest.mark.parametrize(("name", "max_items", "element_key"), [
    ("feedback-schema.json", 8, "element_name"),
    ("feedback-schema-legacy.json", 6, "element_names"),
])
def test_the_athena_feedback_schemas_become_grammars(name: str, max_items: int,
                                                     element_key: str) -> None:
    pytest.importorskip("llama_cpp", reason="the local extra is not installed")
    from eunomia.models.providers.local import schema_problem

    schema = json.loads((FOLDER / name).read_text(encoding="utf-8"))
    assert schema_problem(schema) is None
    feedbacks = schema["properties"]["feedbacks"]
    assert (feedbacks["minItems"], feedbacks["maxItems"]) == (1, max_items)
    item = feedbacks["items"]
    assert set(item["required"]) == set(item["properties"])
    assert element_key in item["properties"]
    assert item["properties"]["title"]["maxLength"] == 80
