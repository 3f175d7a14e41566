"""A scripted OpenAI-compatible LLM for tests of the real Athena modeling module.

The module (``module_modeling_llm`` with ``llm_core``) is pointed at this server through
``OPENAI_BASE_URL``. It lists ``GET /v1/models`` once when it is imported and keeps the ids that
contain ``"gpt"``; then, per feedback request, it sends ``POST /v1/chat/completions`` with a
system and a user message, ``response_format: {"type": "json_object"}``, ``n: 1``,
``stream: false``, ``temperature: 0``, ``max_tokens: 1000`` and the JSON schema of the answer it
expects in the system message. The answer's content must be JSON.

Both Athena versions are served: the legacy module (ls1intum/Athena a373df28) asks for items
with ``element_names`` (a list), the current one (release 2.7) for ``element_name`` (one name,
or null) with ``grading_instruction_id`` required; the stand-in reads which from the output
schema printed in the prompt.

Answers are deterministic and built from the prompt alone:

* a graded-feedback prompt (the system message holds ``{"criteria": [...]}`` after
  ``Instructions:``): ``{"feedbacks": [...]}`` with one item per criterion. The item's
  ``grading_instruction_id`` is one of that criterion's instruction ids, chosen by a hash of the
  student's diagram text, its ``credits`` the instruction's credits, and its ``element_names``
  (legacy) names of the diagram's elements and relations (``R1``...) found in the prompt, or its
  ``element_name`` (current) one of them — none for every fourth criterion (the module maps
  names to element ids itself);
* a structured-grading-instructions prompt (an exercise without criteria): ``{"criteria": [...]}``
  with one criterion and two instructions;
* a filter prompt (feedback for an ungraded submission, ``isGraded: false``): the original
  feedbacks, each description prefixed with :data:`FILTER_PREFIX` (so a test sees which answer
  the module returned).

``usage`` is filled (``prompt_tokens`` about a quarter of the prompt's characters), and the answer
names ``answer_model`` (default: the requested model) as its ``model``.

Every exchange is recorded, raw: request bytes and JSON, response status, bytes and JSON. Set
``content_override`` to answer some prompts with another content (e.g. non-JSON), or ``status``
to answer every completion with an error.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from tests.support.local_app import LocalApp

DEFAULT_MODELS = ("gpt-4o-mini", "text-embedding-3-small")
"""What ``/v1/models`` lists: one id with "gpt" (Athena keeps only those), one without."""

_CRITERIA_MARK = re.compile(r'\{"criteria":\s*\[')
_FEEDBACKS_MARK = re.compile(r'\{"feedbacks":\s*\[')
FILTER_PREFIX = "For students: "
"""What the stand-in's filter answer puts before every description."""
_SUBMISSION_MARK = "<Student Submission>"
_ELEMENT_LINE = re.compile(r"^\[[^\]]+\] (?P<name>.+?)(?: \{)?$")
_RELATION_LINE = re.compile(r"^(?P<name>R\d+): ")


@dataclass(slots=True)
class Exchange:
    """One request to the stand-in and its answer, as they went over the wire."""

    method: str
    path: str
    headers: dict[str, str]
    request_body: bytes
    request_json: Any
    status: int
    response_body: bytes
    response_json: Any
    at: float
    """``time.monotonic()`` when the request arrived."""

    @property
    def kind(self) -> str:
        """``feedback``, ``criteria``, ``filter`` or ``other`` (what the prompt asked for)."""
        return prompt_kind(self.request_json)


def _messages(request: Any) -> list[dict[str, Any]]:
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return []
    return [m for m in request["messages"] if isinstance(m, dict)]


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _system_and_user(request: Any) -> tuple[str, str]:
    system = "\n".join(_text(m) for m in _messages(request) if m.get("role") == "system")
    user = "\n".join(_text(m) for m in _messages(request) if m.get("role") != "system")
    return system, user


def prompt_kind(request: Any) -> str:
    system, _ = _system_and_user(request)
    if "Your task is to modify given feedback" in system:
        return "filter"
    if "Create a structured grading instruction" in system:
        return "criteria"
    if _CRITERIA_MARK.search(system):
        return "feedback"
    return "other"


def wants_single_element_name(request: Any) -> bool:
    """Whether the prompt's output schema is the current module's (``element_name``)."""
    system, user = _system_and_user(request)
    return '"element_name"' in system + user and '"element_names"' not in system + user


def criteria_in_prompt(system: str) -> list[dict[str, Any]]:
    """The ``criteria`` the module put into its graded-feedback system message."""
    found = _CRITERIA_MARK.search(system)
    if found is None:
        return []
    try:
        value, _ = json.JSONDecoder().raw_decode(system, found.start())
    except json.JSONDecodeError:
        return []
    criteria = value.get("criteria") if isinstance(value, dict) else None
    return [c for c in criteria if isinstance(c, dict)] if isinstance(criteria, list) else []


def instruction_ids_in_prompt(request: Any) -> list[int]:
    """Every structured grading instruction id of the prompt's criteria, in prompt order."""
    system, _ = _system_and_user(request)
    return [int(i["id"]) for c in criteria_in_prompt(system)
            for i in c.get("structured_grading_instructions", []) if isinstance(i, dict)]


def diagram_text(user: str) -> str:
    """The student's diagram as the module rendered it (the user message after the marker)."""
    start = user.find(_SUBMISSION_MARK)
    return user[start + len(_SUBMISSION_MARK):] if start >= 0 else user


def element_names_in_prompt(user: str) -> list[str]:
    """Names of the diagram's elements (``[Type] Name``) and relations (``R<n>``)."""
    names: list[str] = []
    section = ""
    for raw in diagram_text(user).splitlines():
        line = raw.strip()
        if line.startswith("@"):
            section = line
            continue
        pattern = {"@Elements:": _ELEMENT_LINE, "@Relations:": _RELATION_LINE}.get(section)
        if pattern is not None and (m := pattern.match(line)):
            names.append(m.group("name"))
    return names


def _pick(seed: str, n: int) -> int:
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:4], "big") % n


def feedback_answer(request: Any) -> dict[str, Any]:
    """``{"feedbacks": [...]}``: per criterion one instruction chosen by the diagram's hash."""
    system, user = _system_and_user(request)
    diagram = diagram_text(user)
    names = element_names_in_prompt(user)
    single = wants_single_element_name(request)
    feedbacks = []
    for index, criterion in enumerate(criteria_in_prompt(system)):
        instructions = [i for i in criterion.get("structured_grading_instructions", [])
                        if isinstance(i, dict) and "id" in i]
        if not instructions:
            continue
        chosen = instructions[_pick(f"{criterion.get('id')}\n{diagram}", len(instructions))]
        referenced = [names[(index + k) % len(names)] for k in range(min(2, len(names)))]
        item: dict[str, Any] = {
            "title": str(criterion.get("title") or f"Criterion {criterion.get('id')}"),
            "description": str(chosen.get("feedback") or chosen.get("instruction_description")
                               or ""),
        }
        if single:
            item["element_name"] = referenced[0] if referenced and index % 4 != 3 else None
        else:
            item["element_names"] = referenced
        item["credits"] = float(chosen.get("credits", 0.0))
        item["grading_instruction_id"] = int(chosen["id"])
        feedbacks.append(item)
    return {"feedbacks": feedbacks}


def criteria_answer(request: Any) -> dict[str, Any]:
    """``{"criteria": [...]}`` for an exercise that came without criteria."""
    return {"criteria": [{
        "id": 1,
        "title": "Overall",
        "structured_grading_instructions": [
            {"id": 1, "credits": 1.0, "grading_scale": "Good", "instruction_description":
             "The diagram meets the problem statement.", "feedback": "Well done.",
             "usage_count": 0},
            {"id": 2, "credits": 0.0, "grading_scale": "Bad", "instruction_description":
             "The diagram misses parts of the problem statement.", "feedback": "Look again.",
             "usage_count": 0},
        ],
    }]}


def filter_answer(request: Any) -> dict[str, Any]:
    """The original feedbacks of a filter prompt, each description prefixed with
    :data:`FILTER_PREFIX`."""
    _, user = _system_and_user(request)
    found = _FEEDBACKS_MARK.search(user)
    if found is not None:
        try:
            value, _ = json.JSONDecoder().raw_decode(user, found.start())
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("feedbacks"), list):
            return {"feedbacks": [
                {**f, "description": FILTER_PREFIX + str(f.get("description", ""))}
                if isinstance(f, dict) else f for f in value["feedbacks"]]}
    return {"feedbacks": []}


def approx_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class AthenaLLMStandin(LocalApp):
    """The stand-in server. ``url`` is the base URL to give as ``OPENAI_BASE_URL`` (ends in /v1)."""

    url_path = "/v1"

    def __init__(
        self,
        models: Sequence[str] = DEFAULT_MODELS,
        *,
        answer_model: str | None = None,
        content_override: Callable[[Any], str | None] | None = None,
        status: int = 200,
    ) -> None:
        self.models = list(models)
        self.answer_model = answer_model
        """The ``model`` the answers name (None: the requested one)."""
        self.content_override = content_override
        """Called with each completion request; a string it returns is sent as the content."""
        self.status = status
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._counter = 0

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._completions)

    @property
    def completions(self) -> list[Exchange]:
        """The recorded chat-completion exchanges, in arrival order."""
        with self._lock:
            return [e for e in self.exchanges if e.path.endswith("/chat/completions")]

    def _record(self, request: web.Request, body: bytes, request_json: Any, at: float,
                status: int, payload: Any) -> web.Response:
        response_body = json.dumps(payload).encode()
        with self._lock:
            self.exchanges.append(Exchange(
                method=request.method, path=request.path, headers=dict(request.headers),
                request_body=body, request_json=request_json, status=status,
                response_body=response_body, response_json=payload, at=at))
        return web.Response(status=status, body=response_body, content_type="application/json")

    async def _models(self, request: web.Request) -> web.Response:
        at = time.monotonic()
        payload = {"object": "list", "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "eunomia-tests"}
            for m in self.models]}
        return self._record(request, b"", None, at, 200, payload)

    async def _completions(self, request: web.Request) -> web.Response:
        at = time.monotonic()
        body = await request.read()
        try:
            request_json: Any = json.loads(body)
        except json.JSONDecodeError:
            error = {"message": "body is not JSON", "type": "invalid_request"}
            return self._record(request, body, None, at, 400, {"error": error})
        if self.status != 200:
            return self._record(request, body, request_json, at, self.status,
                                {"error": {"message": "scripted failure", "type": "server_error"}})
        content = self.content_override(request_json) if self.content_override else None
        if content is None:
            kind = prompt_kind(request_json)
            answer = {"feedback": feedback_answer, "criteria": criteria_answer,
                      "filter": filter_answer}.get(kind, feedback_answer)(request_json)
            content = json.dumps(answer)
        prompt = "".join(_text(m) for m in _messages(request_json))
        usage = {"prompt_tokens": approx_tokens(prompt),
                 "completion_tokens": approx_tokens(content)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        with self._lock:
            self._counter += 1
            number = self._counter
        model = self.answer_model or str(request_json.get("model", self.models[0]))
        payload = {
            "id": f"chatcmpl-standin-{number}",
            "object": "chat.completion",
            "created": 1_700_000_000 + number,
            "model": model,
            "system_fingerprint": "fp_standin",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": content}}],
            "usage": usage,
        }
        return self._record(request, body, request_json, at, 200, payload)


@dataclass(slots=True)
class StandinCall:
    """What one module request cost, from the stand-in's side (for comparisons in tests)."""

    model: str
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    kind: str = field(default="feedback")

    @classmethod
    def of(cls, exchange: Exchange) -> StandinCall:
        usage = exchange.response_json["usage"]
        return cls(model=exchange.response_json["model"], prompt_tokens=usage["prompt_tokens"],
                   completion_tokens=usage["completion_tokens"],
                   total_tokens=usage["total_tokens"], kind=exchange.kind)
