"""The aiohttp application: the rule-based grader behind the Athena module contract.

The HTTP side (headers, validation, paths, errors) is
:func:`eunomia.athena.server.create_module_app`; this module only grades.
"""

from __future__ import annotations

import json

from aiohttp import web

from eunomia.apollon import parse_diagram
from eunomia.athena import AthenaFeedback, FeedbackRequest, LLMRequestUsage
from eunomia.athena.server import (
    DEFAULT_MODULE_NAME,
    MAX_BODY_BYTES,
    MODULE_PATH,
    create_module_app,
    manager_path,
)
from eunomia.example_server.grading import grade

MODEL_NAME = "eunomia-example-rules"
"""The ``model`` reported in ``meta.llmRequests`` (priced at 0.0 in ``llm_cost.yml``)."""
MODULE_NAME = DEFAULT_MODULE_NAME
MANAGER_PATH = manager_path(MODULE_NAME)

__all__ = [
    "MANAGER_PATH",
    "MAX_BODY_BYTES",
    "MODEL_NAME",
    "MODULE_NAME",
    "MODULE_PATH",
    "create_app",
    "grade_request",
]


def _estimate_tokens(text: str) -> int:
    """A deterministic *estimate* (about 4 characters per token); no tokenizer is run."""
    return len(text) // 4


async def grade_request(
    request: FeedbackRequest,
) -> tuple[list[AthenaFeedback], list[LLMRequestUsage]]:
    """Rule-based feedback on a class diagram, with estimated token counts."""
    diagram = parse_diagram(json.loads(request.submission.model))
    feedback = grade(request.exercise, request.submission.id, diagram)
    num_in = _estimate_tokens(json.dumps(request.wire()))
    num_out = _estimate_tokens(json.dumps([item.wire() for item in feedback]))
    usage = LLMRequestUsage(
        model=MODEL_NAME,
        num_input_tokens=num_in,
        num_output_tokens=num_out,
        num_total_tokens=num_in + num_out,
    )
    return feedback, [usage]


def create_app(secret: str | None = None) -> web.Application:
    """The example feedback server; with a ``secret``, requests need ``Authorization: <secret>``."""
    return create_module_app(grade_request, secret=secret, module_name=MODULE_NAME)
