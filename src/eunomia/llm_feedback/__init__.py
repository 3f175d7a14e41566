"""The built-in LLM feedback engine: Athena-shaped feedback from any chat model.

It renders the exercise and the submitted Apollon diagram as compact text, asks the
model to choose one structured grading instruction per criterion (a JSON schema of
``enum`` choices) with a feedback sentence, and returns Athena feedback items with
the call's token usage. On models with log-probabilities (the local ones) it chooses by
likelihood instead, generating nothing (``likelihood`` mode). Used by
``--target llm:<spec>`` and ``eunomia serve`` (:mod:`eunomia.llm_feedback.server`: the
engine behind the Athena module contract).
"""

from eunomia.llm_feedback._engine import (
    ENGINE_VERSION,
    Assessment,
    FeedbackEngine,
    PromptBuilder,
)
from eunomia.llm_feedback._likelihood import (
    LIKELIHOOD_VERSION,
    EngineMode,
    LikelihoodGrader,
    LikelihoodPrompts,
    engine_mode,
    split_mode,
)
from eunomia.llm_feedback._prompt import BUNDLED_DIR, FIELDS, PromptTemplates
from eunomia.llm_feedback._render import render_solution, render_submission
from eunomia.llm_feedback._schema import AnswerSchema, Choice, CriterionAnswer, CriterionSlot, slug

__all__ = [
    "BUNDLED_DIR",
    "ENGINE_VERSION",
    "FIELDS",
    "LIKELIHOOD_VERSION",
    "AnswerSchema",
    "Assessment",
    "Choice",
    "CriterionAnswer",
    "CriterionSlot",
    "EngineMode",
    "FeedbackEngine",
    "LikelihoodGrader",
    "LikelihoodPrompts",
    "PromptBuilder",
    "PromptTemplates",
    "engine_mode",
    "render_solution",
    "render_submission",
    "slug",
    "split_mode",
]
