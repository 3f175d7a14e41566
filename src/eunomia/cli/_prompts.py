"""Interactive questions, asked only when a person is at a terminal."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.prompt import Prompt

if TYPE_CHECKING:
    from eunomia.kinds.scenarios import LoadedScenario


def interactive() -> bool:
    """True when both stdin and stdout are terminals (never in CI or pipes)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def ask_run_name(console: Console) -> str:
    from eunomia.run import default_run_name  # the engine loads when a run starts

    return Prompt.ask("Run name", default=default_run_name(), console=console).strip()


def ask_case_patterns(console: Console, loaded: Sequence[LoadedScenario]) -> tuple[str, ...]:
    """Show the scenarios and their cases; ask which to run (globs, comma-separated)."""
    for item in loaded:
        sc = item.scenario
        names = [c.name for c in sc.test_cases]
        shown = ", ".join(names[:8]) + (f", ... ({len(names)} in all)" if len(names) > 8 else "")
        console.print(f"[bold]{sc.name}[/]: {shown}")
    answer = Prompt.ask(
        "Test cases to run (globs such as missing_* or scenario/case, comma-separated)",
        default="*",
        console=console,
    )
    patterns = tuple(p.strip() for p in answer.split(",") if p.strip())
    return () if patterns in ((), ("*",)) else patterns
