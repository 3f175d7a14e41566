"""The single-turn runner: system prompt + instruction → answer → judge (+ checks)."""

from __future__ import annotations

from eunomia.judge import JudgeItem
from eunomia.models import ChatMessage
from eunomia.tasks._context import CaseContext, system, user
from eunomia.tasks._model import LoadedCase, TaskCase
from eunomia.tasks._result import CaseResult
from eunomia.tasks.checks import run_checks


def needs_instruction(case: TaskCase) -> str | None:
    if not (case.instruction or "").strip():
        return "the case has no 'instruction'"
    return None


def messages_of(case: TaskCase, instruction: str | None = None) -> list[ChatMessage]:
    """The system prompt (when there is one) and the instruction, stripped."""
    out: list[ChatMessage] = []
    prompt = (case.system_prompt or "").strip()
    if prompt:
        out.append(system(prompt))
    out.append(user((instruction or case.instruction or "").strip()))
    return out


async def run_single_turn(case: LoadedCase, ctx: CaseContext) -> CaseResult:
    c = case.case
    answer = await ctx.ask(messages_of(c))
    verdicts = await ctx.judge_answer(JudgeItem(
        system_prompt=c.system_prompt or "", instruction=c.instruction or "",
        expected_response=c.expected_response or "",
        potential_challenges=c.challenges_text, response=answer.text,
    ))
    return CaseResult(kind=case.kind, response=answer.text, verdicts=verdicts,
                      checks=run_checks(c.checks or [], answer.text, case.raw_json),
                      calls=ctx.calls)
