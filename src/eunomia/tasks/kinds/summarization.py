"""Summarization: a single-turn task (system prompt + instruction → answer → judge)."""

from eunomia.tasks.kinds._registry import TaskKind, register
from eunomia.tasks.kinds._single import needs_instruction, run_single_turn

KIND = register(TaskKind(
    name="summarization",
    title="Summarization",
    runner=run_single_turn,
    prompt_file="summarization.txt",
    requires=needs_instruction,
    categories=('Product Description', 'Summary'),
))
