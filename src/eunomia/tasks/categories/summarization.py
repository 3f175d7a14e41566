"""Summarization: a single-turn task (system prompt + instruction → answer → judge)."""

from eunomia.tasks.categories._registry import TaskCategory, register
from eunomia.tasks.categories._single import needs_instruction, run_single_turn

KIND = register(TaskCategory(
    name="summarization",
    title="Summarization",
    runner=run_single_turn,
    prompt_file="summarization.txt",
    requires=needs_instruction,
    categories=('Product Description', 'Summary'),
))
