"""Prompt templates of the feedback engine: plain text files with ``{placeholders}``.

The templates use :meth:`str.format` syntax with a small, fixed set of fields
(:data:`FIELDS`); write ``{{`` and ``}}`` for literal braces. The bundled files live
in ``eunomia/llm_feedback/prompts``; a ``--prompt-dir`` folder overrides any of them by
file name (``system.txt``, ``user.txt``), the others keep the bundled text.

Every field that is the same for all test cases of a scenario should be in the
system template, and the submission in the user template (last): providers can
then reuse the common prefix of the prompt across test cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.templates import Template

BUNDLED_DIR = Path(__file__).resolve().parent / "prompts"
"""The engine's own templates."""

FIELDS: dict[str, str] = {
    "exercise_title": "the exercise title",
    "max_points": "the exercise's maximum points (e.g. 8)",
    "problem_statement": "the problem statement",
    "grading_instructions": "the free-text grading instructions",
    "example_solution": "the example solution, rendered as compact text",
    "criteria": "every criterion with its answer key and its instructions (ids, credits, text)",
    "answer_format": "a one-line JSON example of the expected answer",
    "submission": "the student's diagram, rendered as compact text",
}
"""Every placeholder a template may use, with what it is replaced by."""

TEMPLATE_FILES = (defaults.ENGINE_SYSTEM_TEMPLATE, defaults.ENGINE_USER_TEMPLATE)


@dataclass(frozen=True, slots=True)
class PromptTemplates:
    """The system and user templates of the engine."""

    system: Template
    user: Template

    @classmethod
    def load(cls, override_dir: Path | None = None) -> PromptTemplates:
        """The bundled templates, each replaced by a file of the same name in ``override_dir``."""
        if override_dir is not None and not override_dir.is_dir():
            raise EunomiaError(f"prompt folder {override_dir} does not exist or is not a folder")
        loaded: list[Template] = []
        for name in TEMPLATE_FILES:
            path = BUNDLED_DIR / name
            if override_dir is not None and (override_dir / name).is_file():
                path = override_dir / name
            loaded.append(Template.read(path, FIELDS, "prompt template"))
        system, user = loaded
        if "submission" in system.fields:
            raise EunomiaError(
                f"prompt template {system.path}: {{submission}} belongs in the user template "
                f"({defaults.ENGINE_USER_TEMPLATE}), so every test case shares the system prompt"
            )
        if "submission" not in user.fields:
            raise EunomiaError(
                f"prompt template {user.path}: the {{submission}} placeholder is missing; "
                "without it the model never sees the student's diagram"
            )
        return cls(system, user)

    @property
    def sources(self) -> dict[str, str]:
        """Where each template came from (for results and logs)."""
        return {"system": str(self.system.path), "user": str(self.user.path)}
