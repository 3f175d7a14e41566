"""The answer the model must give, as a JSON schema, and its mapping back to SGI ids.

One fixed property per grading criterion (a slug of its title, e.g.
``required_classes``), each an object ``{"feedback": str, "instruction": enum}``
whose ``enum`` holds the criterion's SGI ids as strings. There are no free-length
arrays and no integer bounds: llama.cpp's schema grammar ignores both, while it
honours ``enum`` and string ``maxLength``.

Reading the answer is tolerant of what models and non-constraining providers do
(numbers instead of strings, ``"#3"``, the grading-scale label instead of the id,
keys in another case or by criterion title), but never guesses: an id that is not
one of the criterion's, a missing criterion or an answer that is not an object
raises a retryable :class:`~eunomia.scheduler.CallError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from eunomia.athena import AthenaExercise, AthenaGradingCriterion, AthenaGradingInstruction
from eunomia.scheduler import CallError

_SLUG_MAX = 32
_NON_WORD = re.compile(r"[^0-9a-z]+")
_ID_TEXT = re.compile(r"^(?:id|sgi|instruction)?\s*[:#=]?\s*(\d+)(?:\.0+)?$")
ID_ALIASES = ("instruction", "instruction_id", "instructionId", "id", "sgi", "choice")
FEEDBACK_ALIASES = ("feedback", "comment", "text", "reason")


def slug(text: str) -> str:
    """``"Project-Task Relationship Type"`` → ``"project_task_relationship_type"``."""
    value = _NON_WORD.sub("_", text.casefold()).strip("_")
    return value[:_SLUG_MAX].rstrip("_")


def _norm(text: str) -> str:
    return _NON_WORD.sub("", text.casefold())


class CriterionAnswer(BaseModel):
    """The model's answer for one criterion."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    instruction: str
    feedback: str = ""

    @field_validator("instruction", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return str(int(value)) if float(value).is_integer() else str(value)
        return value.strip() if isinstance(value, str) else value

    @field_validator("feedback", mode="before")
    @classmethod
    def _feedback_text(cls, value: Any) -> Any:
        return "" if value is None else value.strip() if isinstance(value, str) else value


@dataclass(frozen=True, slots=True)
class CriterionSlot:
    """One criterion as it appears in the prompt and in the answer."""

    key: str
    criterion: AthenaGradingCriterion

    @property
    def ids(self) -> list[str]:
        return [str(sgi.id) for sgi in self.criterion.structured_grading_instructions]

    def sgi(self, sgi_id: str) -> AthenaGradingInstruction | None:
        for sgi in self.criterion.structured_grading_instructions:
            if str(sgi.id) == sgi_id:
                return sgi
        return None


@dataclass(frozen=True, slots=True)
class Choice:
    """The instruction the model chose for one criterion, with its feedback sentence."""

    slot: CriterionSlot
    instruction: AthenaGradingInstruction
    feedback: str
    """The model's sentence (empty when it gave none)."""


def _fail(reason: str) -> CallError:
    return CallError(f"unusable answer: {reason}", retryable=True)


class AnswerSchema:
    """The answer schema of one exercise and the reading of answers against it.

    Criteria without any structured grading instruction are left out (there is
    nothing to choose).
    """

    def __init__(
        self, exercise: AthenaExercise, *, feedback_max_chars: int | None = None
    ) -> None:
        self.slots: list[CriterionSlot] = []
        used: set[str] = set()
        for number, criterion in enumerate(exercise.grading_criteria, start=1):
            if not criterion.structured_grading_instructions:
                continue
            key = slug(criterion.title) or f"c{number}"
            if key in used:
                key = f"{key}_{number}"
            used.add(key)
            self.slots.append(CriterionSlot(key, criterion))
        self.feedback_max_chars = feedback_max_chars

    @property
    def keys(self) -> list[str]:
        return [slot.key for slot in self.slots]

    def json_schema(self) -> dict[str, Any]:
        """The schema given to the provider (``additionalProperties: false`` everywhere)."""
        feedback: dict[str, Any] = {"type": "string"}
        if self.feedback_max_chars is not None:
            feedback["maxLength"] = self.feedback_max_chars
        properties: dict[str, Any] = {
            slot.key: {
                "type": "object",
                "properties": {
                    "feedback": feedback,
                    "instruction": {"type": "string", "enum": slot.ids},
                },
                "required": ["feedback", "instruction"],
                "additionalProperties": False,
            }
            for slot in self.slots
        }
        return {
            "type": "object",
            "properties": properties,
            "required": self.keys,
            "additionalProperties": False,
        }

    def describe(self) -> str:
        """The criteria for the prompt: key, then one line per instruction.

        ``"3" Composition Correct (2 pt): A composition relates ...``
        """
        lines: list[str] = []
        for slot in self.slots:
            title = slot.criterion.title
            head = slot.key if slug(title) == slot.key else f"{slot.key} ({title or 'untitled'})"
            lines.append(f"{head}:")
            for sgi in slot.criterion.structured_grading_instructions:
                label = f" {sgi.grading_scale.strip()}" if sgi.grading_scale.strip() else ""
                text = " ".join((sgi.instruction_description or sgi.feedback).split())
                lines.append(f'  "{sgi.id}"{label} ({sgi.credits:g} pt): {text}')
        return "\n".join(lines)

    def answer_format(self) -> str:
        """A one-line example of the answer, for the prompt."""
        if not self.slots:
            return "{}"
        first = self.slots[0]
        more = ", ..." if len(self.slots) > 1 else ""
        return (
            f'{{"{first.key}": {{"feedback": "<one sentence>", "instruction": '
            f'"<one of {"|".join(first.ids)}>"}}{more}}}'
        )

    def _find_slot_value(self, answer: dict[str, Any], slot: CriterionSlot, number: int) -> Any:
        if slot.key in answer:
            return answer[slot.key]
        title = slot.criterion.title
        wanted = {_norm(slot.key), _norm(title), f"c{number}", str(slot.criterion.id)}
        wanted.discard("")
        for key, value in answer.items():
            if isinstance(key, str) and _norm(key) in wanted:
                return value
        return None

    def _instruction_of(self, slot: CriterionSlot, raw: str) -> AthenaGradingInstruction:
        direct = slot.sgi(raw)
        if direct is not None:
            return direct
        match = _ID_TEXT.match(raw.casefold())
        if match:
            by_number = slot.sgi(match.group(1))
            if by_number is not None:
                return by_number
        by_label = [
            sgi
            for sgi in slot.criterion.structured_grading_instructions
            if sgi.grading_scale and _norm(sgi.grading_scale) == _norm(raw)
        ]
        if len(by_label) == 1:
            return by_label[0]
        raise _fail(
            f"criterion {slot.key!r}: instruction {raw!r} is not one of its ids "
            f"{', '.join(slot.ids)}"
        )

    def parse(self, answer: Any) -> list[Choice]:
        """The choice for every criterion, in criterion order.

        Raises a retryable :class:`CallError` naming the first problem.
        """
        if not isinstance(answer, dict):
            raise _fail(f"expected a JSON object, got {type(answer).__name__}")
        choices: list[Choice] = []
        for number, slot in enumerate(self.slots, start=1):
            value = self._find_slot_value(answer, slot, number)
            if value is None:
                raise _fail(f"no answer for criterion {slot.key!r}")
            if isinstance(value, str | int) and not isinstance(value, bool):
                value = {"instruction": value}
            if not isinstance(value, dict):
                raise _fail(
                    f"criterion {slot.key!r}: expected an object, got {type(value).__name__}"
                )
            fields: dict[str, Any] = {}
            for alias in ID_ALIASES:
                if alias in value:
                    fields["instruction"] = value[alias]
                    break
            for alias in FEEDBACK_ALIASES:
                if alias in value:
                    fields["feedback"] = value[alias]
                    break
            if "instruction" not in fields:
                raise _fail(f"criterion {slot.key!r}: no instruction id")
            try:
                parsed = CriterionAnswer.model_validate(fields)
            except ValueError as exc:
                raise _fail(f"criterion {slot.key!r}: {exc}") from None
            sgi = self._instruction_of(slot, parsed.instruction)
            choices.append(Choice(slot, sgi, parsed.feedback))
        return choices
