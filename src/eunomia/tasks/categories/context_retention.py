"""Context retention: a conversation of user turns; the model's replies are fed back as
assistant messages, and each turn that carries an ``eval_point`` is judged (and checked
deterministically when it has a ``check``)."""

from __future__ import annotations

from eunomia.judge import JudgeItem
from eunomia.models import ChatMessage
from eunomia.tasks._context import CaseContext, assistant, system, user
from eunomia.tasks._model import LoadedCase, TaskCase
from eunomia.tasks._result import CaseResult, TurnResult
from eunomia.tasks.categories._registry import TaskCategory, register
from eunomia.tasks.checks import run_checks


def needs_conversation(case: TaskCase) -> str | None:
    if not case.conversation:
        return "a context-retention case needs a 'conversation' list of {user, eval_point?}"
    if not any(turn.eval_point for turn in case.conversation):
        return "no turn of the conversation has an 'eval_point': nothing to judge"
    return None


def transcript(history: list[ChatMessage]) -> str:
    """The conversation so far, for the judge (the system prompt is given separately)."""
    names = {"user": "User", "assistant": "Assistant"}
    return "\n\n".join(f"{names[m.role]}: {m.content}" for m in history if m.role != "system")


async def run_context_retention(case: LoadedCase, ctx: CaseContext) -> CaseResult:
    c = case.case
    assert c.conversation is not None
    history: list[ChatMessage] = []
    prompt = (c.system_prompt or "").strip()
    if prompt:
        history.append(system(prompt))
    turns: list[TurnResult] = []
    answer_text = ""
    for turn in c.conversation:
        history.append(user(turn.user.strip()))
        answer = await ctx.ask(history)
        answer_text = answer.text
        verdicts = []
        if turn.eval_point:
            verdicts = await ctx.judge_answer(JudgeItem(
                system_prompt=prompt,
                instruction=transcript(history),
                expected_response=(
                    "This is the last reply of a conversation. It must use what was said "
                    f"earlier correctly. It must get this right: {turn.eval_point.strip()}"),
                potential_challenges=c.challenges_text, response=answer.text,
            ))
        history.append(assistant(answer.text))
        turns.append(TurnResult(user=turn.user, response=answer.text,
                                eval_point=turn.eval_point, verdicts=verdicts,
                                checks=run_checks(turn.checks, answer.text,
                                                  case.raw_json)))
    return CaseResult(kind=case.kind, response=answer_text, turns=turns,
                      checks=run_checks(c.checks or [], answer_text, case.raw_json),
                      calls=ctx.calls)


KIND = register(TaskCategory(
    name="context_retention",
    title="Context Retention",
    runner=run_context_retention,
    prompt_file="context_retention.txt",
    requires=needs_conversation,
    categories=("Multi-turn", "Multi Turn Context"),
))
