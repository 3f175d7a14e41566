"""A non-deterministic Athena-contract server for A/A benchmarks: it grades like the
rule-based example module, then moves each feedback item to another instruction of its
criterion with probability ``--flip`` (a fresh random draw per request, as an LLM at a
temperature above 0 would), so two runs of the same unchanged system disagree on some cases.

    python bench/noisy_athena_server.py --port 0 --flip 0.15
"""

from __future__ import annotations

import json
import random

from aiohttp import web

from _fast_server import run
from eunomia.apollon import parse_diagram
from eunomia.athena import AthenaExercise
from eunomia.example_server.grading import grade

_RNG = random.SystemRandom()


async def handle(request: web.Request) -> web.Response:
    body = await request.json()
    request.app["counter"][0] += 1
    exercise = AthenaExercise.model_validate(body["exercise"])
    submission = body["submission"]
    items = grade(exercise, int(submission["id"]), parse_diagram(json.loads(submission["model"])))
    flip: float = request.app["flip"]
    data = []
    for item in items:
        if _RNG.random() < flip:
            criterion = next(c for c in exercise.grading_criteria
                             if any(i.id == item.structured_grading_instruction_id
                                    for i in c.structured_grading_instructions))
            others = [i.id for i in criterion.structured_grading_instructions
                      if i.id != item.structured_grading_instruction_id]
            if others:
                item.structured_grading_instruction_id = _RNG.choice(others)
        data.append(item.wire())
    return web.json_response({"data": data, "meta": {}})


if __name__ == "__main__":
    run(handle, "/feedback_suggestions", flip={"type": float, "default": 0.15})
