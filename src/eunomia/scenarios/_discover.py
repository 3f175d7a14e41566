"""Find scenario folders and their ``llm_cost.yml`` from the paths a user gives."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eunomia import defaults
from eunomia.errors import Diagnostic, error


@dataclass(frozen=True, slots=True)
class ScenarioSource:
    folder: Path
    price_file: Path | None
    """The ``llm_cost.yml`` beside the scenario (or inside it), if there is one."""


def _price_file_for(scenario_folder: Path) -> Path | None:
    for candidate in (
        scenario_folder / defaults.LLM_COST_FILE,
        scenario_folder.parent / defaults.LLM_COST_FILE,
    ):
        if candidate.is_file():
            return candidate
    return None


def discover(paths: list[Path]) -> tuple[list[ScenarioSource], list[Diagnostic]]:
    """A path is a scenario folder (has manifest.yml) or a folder of scenario folders."""
    sources: list[ScenarioSource] = []
    problems: list[Diagnostic] = []
    seen: set[Path] = set()
    for path in paths:
        try:
            exists = path.exists()
        except OSError as exc:  # e.g. a name too long for the file system
            problems.append(error(path, f"cannot read: {exc.strerror or exc}"))
            continue
        if not exists:
            problems.append(error(path, "no such file or folder"))
            continue
        if not path.is_dir():
            problems.append(error(path, "expected a scenario folder or a folder of scenarios"))
            continue
        if (path / defaults.MANIFEST_FILE).is_file():
            folders = [path]
        else:
            folders = sorted(
                p for p in path.iterdir() if p.is_dir() and (p / defaults.MANIFEST_FILE).is_file()
            )
            if not folders:
                problems.append(error(path, "no manifest.yml here nor in any sub-folder"))
        for folder in folders:
            key = folder.resolve()
            if key not in seen:
                seen.add(key)
                sources.append(ScenarioSource(folder, _price_file_for(folder)))
    return sources, problems
