"""Instruction Following: a single-turn task (system prompt + instruction → answer → judge)."""

from eunomia.tasks.categories._registry import TaskCategory, register
from eunomia.tasks.categories._single import needs_instruction, run_single_turn

KIND = register(TaskCategory(
    name="instruction_following",
    title="Instruction Following",
    runner=run_single_turn,
    prompt_file="instruction_following.txt",
    requires=needs_instruction,
    categories=(),
))
