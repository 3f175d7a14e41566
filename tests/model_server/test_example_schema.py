"""The bundled answer schema for Athena's modeling module (README, bench/peers.md) is one the
embedded model's grammar accepts, and it bounds what it says it bounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SCHEMA = Path(__file__).resolve().parents[2] / "examples" / "athena" / "feedback-schema.json"


def test_the_athena_feedback_schema_becomes_a_grammar() -> None:
    pytest.importorskip("llama_cpp", reason="the local extra is not installed")
    from eunomia.models.providers.local import schema_problem

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema_problem(schema) is None
    feedbacks = schema["properties"]["feedbacks"]
    assert (feedbacks["minItems"], feedbacks["maxItems"]) == (1, 6)
    item = feedbacks["items"]
    assert set(item["required"]) == set(item["properties"])
    assert item["properties"]["element_names"]["maxItems"] == 4
