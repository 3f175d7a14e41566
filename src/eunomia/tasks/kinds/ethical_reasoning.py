"""Ethical Reasoning: a single-turn task (system prompt + instruction → answer → judge)."""

from eunomia.tasks.kinds._registry import TaskKind, register
from eunomia.tasks.kinds._single import needs_instruction, run_single_turn

KIND = register(TaskKind(
    name="ethical_reasoning",
    title="Ethical Reasoning",
    runner=run_single_turn,
    prompt_file="ethical_reasoning.txt",
    requires=needs_instruction,
    categories=('Ethics',),
))
