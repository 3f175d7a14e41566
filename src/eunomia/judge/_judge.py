"""The judge: build the rubric messages, call the judge model, parse tolerantly, retry, and
record an unusable answer as ``unscored`` (with the raw text) — never as a zero.

The rubric is a plain text file with ``{placeholders}`` (:data:`FIELDS`); write ``{{`` and
``}}`` for literal braces. The bundled one is ``prompts/rubric_0_5.txt``; a suite or
``--rubric`` can supply its own.
"""

from __future__ import annotations

import string
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.judge._schema import SCORES, JudgeAnswer, Verdict, expected_score, judge_schema
from eunomia.models import ChatMessage, ChatRequest, ChatResult, GenerationSettings
from eunomia.scheduler import CallError
from eunomia.templates import Template

BUNDLED_DIR = Path(__file__).resolve().parent / "prompts"
NOTHING = "(none)"
JUDGE_VERSION = "2"
"""Changes when the judge's prompting or answer parsing changes (part of its cache keys).
2: the rubric's fixed head is in the system message."""

SYSTEM = ("You are a careful, impartial evaluator of AI assistants' answers. You follow the "
          "grading scale exactly and reply with JSON only.")

_MIN_HEAD_CHARS = 400
"""A rubric head shorter than this (about 100 tokens) is not worth a system part of its own."""

FIELDS: dict[str, str] = {
    "system_prompt": "the system prompt the candidate was given",
    "instruction": "the instruction (or, for conversations, the turns so far)",
    "expected_response": "the reference answer (or the evaluation point of a turn)",
    "potential_challenges": "the difficult points listed by the case's author",
    "response": "the candidate's answer",
    "guidance": "what matters for this kind of task (the kind's prompt file)",
}


class JudgeItem(BaseModel):
    """What the judge sees about one answer."""

    model_config = ConfigDict(frozen=True)

    system_prompt: str = ""
    instruction: str = ""
    expected_response: str = ""
    potential_challenges: str = ""
    response: str = ""
    guidance: str = ""

    def values(self) -> dict[str, str]:
        return {k: (str(v).strip() or NOTHING) if k != "guidance" else str(v).strip()
                for k, v in self.model_dump().items()}


@dataclass(frozen=True, slots=True)
class Rubric:
    """A checked rubric template."""

    template: Template

    @classmethod
    def load(cls, path: Path | None = None) -> Rubric:
        path = path or BUNDLED_DIR / defaults.JUDGE_RUBRIC_FILE
        if not path.is_file():
            raise EunomiaError(f"rubric file {path} does not exist")
        return cls.from_text(_read(path), path)

    @classmethod
    def from_text(cls, text: str, path: Path) -> Rubric:
        template = Template.parse(text, path, FIELDS, "rubric")
        names = template.fields
        if "response" not in names:
            raise EunomiaError(f"rubric {path}: the {{response}} placeholder is missing; "
                               "without it the judge never sees the answer")
        return cls(template)

    @property
    def path(self) -> Path:
        return self.template.path

    def render(self, item: JudgeItem) -> str:
        return self.template.render(item.values()).strip()

    @property
    def head(self) -> str:
        """The rubric's text before its first placeholder: the same for every answer."""
        text = []
        for literal, name, _spec, _conversion in string.Formatter().parse(self.template.text):
            text.append(literal)
            if name is not None:
                break
        return "".join(text).strip()

    def messages(self, item: JudgeItem) -> tuple[ChatMessage, ChatMessage]:
        """The judge's system and user messages. The rubric's fixed head goes into the
        system message, so a local model evaluates it once for every call (the provider
        keeps the state of a shared system part); the rest, with the answer, is the user's.
        A short head (a few words before the first placeholder) stays in the user message."""
        rendered, head = self.render(item), self.head
        if len(head) >= _MIN_HEAD_CHARS and rendered.startswith(head) \
                and len(rendered) > len(head):
            return (ChatMessage(role="system", content=f"{SYSTEM}\n\n{head}"),
                    ChatMessage(role="user", content=rendered[len(head):].strip()))
        return ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user",
                                                                       content=rendered)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EunomiaError(f"cannot read rubric {path}: {exc.strerror or exc}") from None


class UnusableAnswer(CallError):
    """The judge answered, but not with a usable ``{score, feedback}``. Retryable; after the
    last retry the verdict is recorded as unscored with :attr:`raw_text`."""

    def __init__(self, reason: str, raw_text: str) -> None:
        super().__init__(reason, retryable=True)
        self.raw_text = raw_text


def unusable(exc: CallError) -> UnusableAnswer | None:
    """A provider's "the answer is not the JSON asked for" (not retryable for it) as an
    :class:`UnusableAnswer`; None for any other failure."""
    if isinstance(exc, UnusableAnswer):
        return exc
    if exc.answer_text is not None:  # set by the providers exactly for unusable answers
        return UnusableAnswer(f"unusable answer: {exc.reason}", exc.answer_text)
    return None


def parse_answer(result: ChatResult) -> JudgeAnswer:
    """The verdict in a judge result; :class:`UnusableAnswer` when there is none."""
    value: Any = result.parsed
    if value is None:
        from eunomia.models import JSONExtractionError, extract_json

        try:
            value = extract_json(result.text)
        except JSONExtractionError as exc:
            raise UnusableAnswer(f"unusable answer: {exc}", result.text) from None
    if isinstance(value, dict) and isinstance(value.get("score"), float) \
            and float(value["score"]).is_integer():
        value = {**value, "score": int(value["score"])}
    try:
        return JudgeAnswer.model_validate(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        raise UnusableAnswer(f"unusable answer: {where}: {first['msg']}", result.text) from None


@dataclass(frozen=True, slots=True)
class JudgeCall:
    """What a judge call returned through the caller: the result, tries made, cache hit."""

    result: ChatResult
    attempts: int
    cached: bool
    log: tuple[str, ...] = ()
    """Each attempt's outcome (``("HTTP 503", "ok")``); empty for a cache hit."""


JudgeCaller = Callable[[ChatRequest, int, Callable[[ChatResult], Any]], Awaitable[JudgeCall]]
"""``(request, judge repeat index, validate) -> JudgeCall``. Retries, caches, rate-limits;
``validate`` raises :class:`UnusableAnswer` for an answer to retry (not cached)."""


class Judge:
    """Scores answers with a judge model on the rubric (0–5)."""

    def __init__(self, rubric: Rubric | None = None, *,
                 settings: GenerationSettings | None = None, repeats: int = 1,
                 weighted: bool = defaults.JUDGE_WEIGHTED) -> None:
        """``weighted`` asks the provider for the score values' probabilities too
        (``ChatRequest.score_logprobs``): verdicts then carry the probability-weighted score
        where the provider gives them. The sampled answer does not change."""
        if repeats < 1:
            raise EunomiaError(f"--judge-repeats must be at least 1, got {repeats}")
        self.rubric = rubric or Rubric.load()
        base = settings or GenerationSettings()
        update: dict[str, Any] = {"max_tokens": min(base.max_tokens, defaults.JUDGE_MAX_TOKENS)}
        if repeats > 1 and base.temperature == 0:
            update["temperature"] = defaults.JUDGE_REPEAT_TEMPERATURE
        self.settings = base.model_copy(update=update)
        self.repeats = repeats
        self.schema = judge_schema()
        self.weighted = weighted

    def request(self, item: JudgeItem, repeat: int = 0, rubric: Rubric | None = None
                ) -> ChatRequest:
        """The judge call for ``item``; repeat k > 0 samples with seed + k."""
        settings = self.settings
        if repeat and settings.seed is not None:
            settings = settings.model_copy(update={"seed": settings.seed + repeat})
        return ChatRequest(
            messages=(rubric or self.rubric).messages(item),
            settings=settings,
            json_schema=self.schema,
            score_logprobs=tuple(str(s) for s in SCORES) if self.weighted else None,
        )

    async def score(self, item: JudgeItem, call: JudgeCaller,
                    rubric: Rubric | None = None) -> list[Verdict]:
        """``repeats`` verdicts on one answer. Raises :class:`CallError` when the judge cannot
        be reached; an unusable answer becomes an unscored verdict."""
        out: list[Verdict] = []
        for k in range(self.repeats):
            try:
                got = await call(self.request(item, k, rubric), k, parse_answer)
            except CallError as exc:
                bad = unusable(exc)
                if bad is None:
                    raise
                out.append(Verdict(score=None, status="unscored", feedback=bad.reason,
                                   raw=bad.raw_text, attempts=exc.attempts, repeat=k))
                continue
            answer = parse_answer(got.result)
            distribution = got.result.score_distribution
            weighted = expected_score(distribution) \
                if distribution and distribution.get(str(answer.score), 0) > 0 else None
            feedback = answer.feedback.strip()
            if not feedback and distribution:
                feedback = unwritten_feedback(distribution)
            out.append(Verdict(score=answer.score, feedback=feedback,
                               attempts=got.attempts, cached=got.cached, repeat=k,
                               weighted_score=weighted))
        return out


def unwritten_feedback(distribution: dict[str, float]) -> str:
    """What a verdict without feedback text says instead: the judge scored by likelihood
    (``likelihood:<local model>``), and how sure it was of each score."""
    total = sum(p for p in distribution.values() if p > 0)
    shares = ", ".join(f"{value}: {p / total:.2f}" for value, p in distribution.items()) \
        if total > 0 else "none"
    return (f"(no feedback written: scored by likelihood; the score's probabilities {shares}; "
            "a judge spec likelihood+feedback:<model> writes it)")
