"""The task suite of ``bench_cli.py`` as an Inspect AI task: one sample per case, the same
system prompt and instruction, scored by ``match()`` against the case's expected number.

Run by ``bench_cli.py`` with Inspect AI's own CLI (``inspect eval``), never imported by
Eunomia; the dataset is the JSON lines file ``bench_cli.py`` writes beside the suite:

    inspect eval bench/peers/inspect_task.py -T dataset=CASES.jsonl \
        --model openai-api/bench/bench --model-base-url URL --max-connections 100
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import match
from inspect_ai.solver import generate


def record_to_sample(record: dict[str, Any]) -> Sample:
    return Sample(
        id=record["case_id"],
        input=[ChatMessageSystem(content=record["system_prompt"]),
               ChatMessageUser(content=record["instruction"])],
        target=record["expected"],
    )


@task
def bench_suite(dataset: str) -> Task:
    return Task(dataset=json_dataset(dataset, record_to_sample), solver=generate(),
                scorer=match())
