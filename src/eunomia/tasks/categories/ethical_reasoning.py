"""Ethical Reasoning: a single-turn task (system prompt + instruction → answer → judge)."""

from eunomia.tasks.categories._registry import TaskCategory, register
from eunomia.tasks.categories._single import needs_instruction, run_single_turn

KIND = register(TaskCategory(
    name="ethical_reasoning",
    title="Ethical Reasoning",
    runner=run_single_turn,
    prompt_file="ethical_reasoning.txt",
    requires=needs_instruction,
    categories=('Ethics',),
))
