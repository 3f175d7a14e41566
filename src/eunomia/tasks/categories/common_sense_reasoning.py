"""Common Sense Reasoning: a single-turn task (system prompt + instruction → answer → judge)."""

from eunomia.tasks.categories._registry import TaskCategory, register
from eunomia.tasks.categories._single import needs_instruction, run_single_turn

KIND = register(TaskCategory(
    name="common_sense_reasoning",
    title="Common Sense Reasoning",
    runner=run_single_turn,
    prompt_file="common_sense_reasoning.txt",
    requires=needs_instruction,
    categories=('Commonsense Reasoning',),
))
