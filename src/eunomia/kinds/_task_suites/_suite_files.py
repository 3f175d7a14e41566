"""Which files hold task suites, and what ``eunomia validate`` says of them (the tasks kind
owns them; judge checks and pairwise comparisons read the same files)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.markup import escape

from eunomia import defaults
from eunomia.kinds import Validation
from eunomia.tasks import load_suites

NOT_SUITES = frozenset({defaults.MANIFEST_FILE, defaults.LLM_COST_FILE,
                        defaults.MODEL_CONFIG_FILE, defaults.LABELS_FILE,
                        defaults.MUTATIONS_FILE})
"""YAML files that are never task suites (a scenario's manifest, prices, models, labels and
mutation rules)."""


def is_suite_file(path: Path) -> bool:
    return path.suffix.lower() in defaults.TASK_SUITE_EXTENSIONS and path.name not in NOT_SUITES


def holds_suites(path: Path) -> bool:
    """A YAML file, or a folder with YAML files (not a scenario's manifest or prices)."""
    try:
        if path.is_file():
            return is_suite_file(path)
        return path.is_dir() and any(p.is_file() and is_suite_file(p) for p in path.iterdir())
    except OSError:
        return False


def validate_suites(paths: Sequence[Path]) -> Validation:
    """Load every task suite under ``paths`` without calling anything."""
    found = Validation()
    files = [p for p in paths if not p.is_dir()] + [
        f for p in paths if p.is_dir() for f in sorted(p.iterdir())
        if f.is_file() and is_suite_file(f)]
    suites, found.diagnostics = load_suites(files)
    for suite in suites:
        count = suite.case_count if suite.case_count is not None else len(suite.cases)
        found.lines.append(f"{escape(suite.name)}: {count} test case(s)"
                           + (f", {len(suite.invalid)} unusable" if suite.invalid else ""))
    return found
