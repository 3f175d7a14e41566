"""The pairwise judge (DeepEval style): a model reads two answers to the same task and says
which is better, as ``{winner, reason}`` — ``"1"``, ``"2"`` or ``"tie"``.

One call judges one order of the two answers; showing each pair in both orders (and
reading the two verdicts together) is the caller's business (``eunomia.kinds.pairwise``).
The prompt is a text file (``prompts/pairwise.txt``) with ``{placeholders}``
(:data:`PAIRWISE_FIELDS`). The answer is parsed tolerantly: the parsed JSON of a provider
that enforces the schema, else the first JSON object in the text; ``"Response 1"``,
``"first"``, ``1``, ``"2"``, ``"draw"``... are read as what they mean, under a few usual key
names. An answer that cannot be read is retried, then recorded as *unusable* with its raw
text — never turned into a tie.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.judge._judge import BUNDLED_DIR, JudgeCaller, UnusableAnswer, unusable
from eunomia.models import (
    ChatMessage,
    ChatRequest,
    ChatResult,
    GenerationSettings,
    JSONExtractionError,
    extract_json,
)
from eunomia.scheduler import CallError
from eunomia.templates import Template

PAIRWISE_PROMPT_FILE = "pairwise.txt"
PAIRWISE_SYSTEM = ("You are a careful, impartial judge comparing two AI assistants' answers. "
                   "The order of the answers means nothing. You reply with JSON only.")
EMPTY_ANSWER = "(empty answer)"
NOTHING = "(none)"

PAIRWISE_FIELDS: dict[str, str] = {
    "system_prompt": "the system prompt both assistants were given",
    "instruction": "the instruction (for a conversation: the user's turns)",
    "expected_response": "the reference answer (for a conversation: its evaluation points)",
    "potential_challenges": "the difficult points listed by the case's author",
    "guidance": "what matters for this kind of task (the kind's prompt file)",
    "response_1": "the answer shown first",
    "response_2": "the answer shown second",
}

Winner = Literal["1", "2", "tie"]
WINNERS: tuple[Winner, ...] = ("1", "2", "tie")
_WINNER_KEYS = ("winner", "better", "verdict", "preferred", "preference", "choice", "best")
_REASON_KEYS = ("reason", "explanation", "rationale", "feedback", "justification")
_TIES = frozenset({"tie", "a tie", "draw", "equal", "equally good", "equally bad", "both",
                   "same", "neither", "none", "no preference"})
_SLOT = re.compile(r"(?:response|answer|assistant|option)?\s*([12])")
_ORDINALS: dict[str, Winner] = {"first": "1", "the first": "1", "first response": "1",
                                "second": "2", "the second": "2", "second response": "2"}


class PairwiseItem(BaseModel):
    """What the judge sees of one pair, in one order: the task (shared) and two answers."""

    model_config = ConfigDict(frozen=True)

    system_prompt: str = ""
    instruction: str = ""
    expected_response: str = ""
    potential_challenges: str = ""
    guidance: str = ""
    response_1: str = ""
    response_2: str = ""

    def swapped(self) -> PairwiseItem:
        """The same pair in the other order."""
        return self.model_copy(update={"response_1": self.response_2,
                                       "response_2": self.response_1})

    def values(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, value in self.model_dump().items():
            text = str(value).strip()
            if key.startswith("response_"):
                out[key] = text or EMPTY_ANSWER
            else:
                out[key] = text if key == "guidance" else (text or NOTHING)
        return out


def read_winner(value: Any) -> Winner | None:
    """``value`` as a verdict (``"Response 1"``, ``1``, ``"second"``, ``"draw"``...), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return "1" if value == 1 else "2" if value == 2 else None
    if not isinstance(value, str):
        return None
    text = re.sub(r"[^a-z0-9]+", " ", value.lower()).strip()
    if text in _TIES:
        return "tie"
    if text in _ORDINALS:
        return _ORDINALS[text]
    found = _SLOT.fullmatch(text)
    if found is not None:
        return "1" if found.group(1) == "1" else "2"
    return None


class PairwiseAnswer(BaseModel):
    """What the judge must answer (read tolerantly: see the module's docstring)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    winner: Winner
    reason: str = ""

    @model_validator(mode="before")
    @classmethod
    def _tolerant(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        lowered = {str(k).strip().lower(): v for k, v in data.items()}
        raw = next((lowered[k] for k in _WINNER_KEYS if k in lowered), None)
        winner = read_winner(raw)
        reason = next((lowered[k] for k in _REASON_KEYS if k in lowered), "")
        return {"winner": winner if winner is not None else raw,
                "reason": reason if isinstance(reason, str) else str(reason)}


class PairVerdict(BaseModel):
    """The judge's verdict on one order of a pair. ``winner`` is None when its answer was
    unusable after the retries (``raw``: what it answered) — never a tie."""

    model_config = ConfigDict(frozen=True)

    winner: Winner | None
    reason: str = ""
    raw: str | None = None
    attempts: int = 1
    cached: bool = False


def pairwise_schema(reason_max_chars: int | None = defaults.JUDGE_FEEDBACK_MAX_CHARS
                    ) -> dict[str, Any]:
    """The JSON schema sent with every pairwise call (the verdict first, then the reason:
    an answer cut short by the token limit still holds the verdict)."""
    reason: dict[str, Any] = {"type": "string"}
    if reason_max_chars:
        reason["maxLength"] = reason_max_chars
    return {
        "title": "pairwise_verdict",
        "type": "object",
        "properties": {"winner": {"type": "string", "enum": list(WINNERS)}, "reason": reason},
        "required": ["winner", "reason"],
        "additionalProperties": False,
    }


def parse_pairwise(result: ChatResult) -> PairwiseAnswer:
    """The verdict in a judge result; :class:`UnusableAnswer` when there is none."""
    value: Any = result.parsed
    if value is None:
        try:
            value = extract_json(result.text)
        except JSONExtractionError as exc:
            raise UnusableAnswer(f"unusable answer: {exc}", result.text) from None
    try:
        return PairwiseAnswer.model_validate(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        raise UnusableAnswer(f"unusable answer: {where}: {first['msg']}", result.text) \
            from None


class PairwisePrompt:
    """A checked pairwise prompt file: it must show both answers."""

    def __init__(self, template: Template) -> None:
        missing = {"response_1", "response_2"} - template.fields
        if missing:
            raise EunomiaError(f"pairwise prompt {template.path}: the placeholder(s) "
                               + ", ".join(f"{{{m}}}" for m in sorted(missing))
                               + " are missing; without them the judge never sees both answers")
        self.template = template

    @classmethod
    def load(cls, path: Path | None = None) -> PairwisePrompt:
        path = path or BUNDLED_DIR / PAIRWISE_PROMPT_FILE
        if not path.is_file():
            raise EunomiaError(f"pairwise prompt file {path} does not exist")
        return cls(Template.read(path, PAIRWISE_FIELDS, "pairwise prompt"))

    @property
    def path(self) -> Path:
        return self.template.path

    def render(self, item: PairwiseItem) -> str:
        return self.template.render(item.values()).strip()


class PairwiseJudge:
    """Asks a judge model which of two answers is better, one order per call."""

    def __init__(self, prompt: PairwisePrompt | None = None, *,
                 settings: GenerationSettings | None = None) -> None:
        self.prompt = prompt or PairwisePrompt.load()
        base = settings or GenerationSettings()
        self.settings = base.model_copy(
            update={"max_tokens": min(base.max_tokens, defaults.JUDGE_MAX_TOKENS)})
        self.schema = pairwise_schema()

    def request(self, item: PairwiseItem) -> ChatRequest:
        return ChatRequest(
            messages=(ChatMessage(role="system", content=PAIRWISE_SYSTEM),
                      ChatMessage(role="user", content=self.prompt.render(item))),
            settings=self.settings, json_schema=self.schema)

    async def decide(self, item: PairwiseItem, call: JudgeCaller) -> PairVerdict:
        """The verdict on ``item`` as shown. Raises :class:`CallError` when the judge cannot
        be reached; an answer that stays unusable is a verdict with ``winner`` None."""
        try:
            got = await call(self.request(item), 0, parse_pairwise)
        except CallError as exc:
            bad = unusable(exc)
            if bad is None:
                raise
            try:  # a provider's schema check may refuse what this parser reads
                loose = parse_pairwise(ChatResult(text=bad.raw_text, model=""))
            except UnusableAnswer:
                return PairVerdict(winner=None, reason=bad.reason, raw=bad.raw_text,
                                   attempts=exc.attempts)
            return PairVerdict(winner=loose.winner, reason=loose.reason.strip(),
                               raw=bad.raw_text, attempts=exc.attempts)
        answer = parse_pairwise(got.result)
        return PairVerdict(winner=answer.winner, reason=answer.reason.strip(),
                           attempts=got.attempts, cached=got.cached)
