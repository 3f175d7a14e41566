"""Inference speed: the instruction asks for ``expected_output_length`` words; the answer is
streamed to measure the time to the first token, and latency, words, words per second and
length adherence are recorded (the answer is judged as well)."""

from __future__ import annotations

from eunomia import defaults
from eunomia.judge import JudgeItem
from eunomia.tasks._context import CaseContext
from eunomia.tasks._model import LoadedCase
from eunomia.tasks._result import CaseResult, SpeedResult
from eunomia.tasks.categories._registry import TaskCategory, register
from eunomia.tasks.categories._single import messages_of, needs_instruction
from eunomia.tasks.checks import count_words, run_checks


def length_adherence(words: int, expected: int | None) -> float | None:
    """1 − |words − expected| / expected, at least 0."""
    if not expected:
        return None
    return max(0.0, 1.0 - abs(words - expected) / expected)


async def run_inference_speed(case: LoadedCase, ctx: CaseContext) -> CaseResult:
    c = case.case
    expected = c.expected_output_length
    instruction = (c.instruction or "").strip()
    max_tokens = None
    if expected:
        instruction += "\n\n" + defaults.SPEED_LENGTH_INSTRUCTION.format(words=expected)
        max_tokens = max(ctx.settings.max_tokens,
                         int(expected * defaults.SPEED_TOKENS_PER_WORD))
    answer = await ctx.ask(messages_of(c, instruction), max_tokens=max_tokens, stream=True)
    words = count_words(answer.text)
    latency = answer.latency_s or None
    speed = SpeedResult(
        latency_s=latency, time_to_first_token_s=answer.time_to_first_token_s,
        output_words=words, output_tokens=answer.usage.output_tokens,
        words_per_second=words / latency if latency else None,
        expected_words=expected, length_adherence=length_adherence(words, expected),
    )
    verdicts = await ctx.judge_answer(JudgeItem(
        system_prompt=c.system_prompt or "", instruction=instruction,
        expected_response=c.expected_response or "",
        potential_challenges=c.challenges_text, response=answer.text,
    ))
    return CaseResult(kind=case.kind, response=answer.text, verdicts=verdicts,
                      checks=run_checks(c.checks or [], answer.text, case.raw_json), speed=speed,
                      calls=ctx.calls)


KIND = register(TaskCategory(
    name="inference_speed",
    title="Inference Speed",
    runner=run_inference_speed,
    prompt_file="inference_speed.txt",
    requires=needs_instruction,
    categories=("Speed", "Latency"),
))
