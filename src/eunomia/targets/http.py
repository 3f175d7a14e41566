"""The ``http`` target: any HTTP endpoint as the system under test of scenarios (spec
``http:<name>``, the same ``models.yml`` entry a task run uses; see docs/http-targets.md).

The body template gets the Athena request of the test case: ``exercise`` and ``submission``
(as Athena receives them, camelCase; the diagram is ``submission.model``, a JSON string),
``request`` (the whole ``{exercise, submission, isGraded}``) and ``name``. The feedback
items are read at ``feedback.items``, each one as an Athena feedback item or mapped field
by field (``feedback.fields``); ``usage`` gives the tokens the system reports.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from eunomia import defaults
from eunomia.athena import AthenaFeedback, AthenaSubmission, LLMRequestUsage, bounded_feedback
from eunomia.errors import EunomiaError
from eunomia.models import load_config, resolve_spec
from eunomia.models._http_client import HttpClient, Received, short
from eunomia.models._http_config import FeedbackPaths, HttpEndpoint
from eunomia.models._http_template import find_all
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import CallError
from eunomia.targets._base import TargetResponse

TARGET_PREFIX = "http:"
_MEMO = 1024
"""Requests rendered by describe_request and kept for the send (a few per request in flight)."""


def build_http_target(spec: str, max_connections: int = defaults.CONCURRENCY) -> HttpTarget:
    """``http:<name>``: the HTTP system ``<name>`` of ``models.yml`` in the working folder."""
    name = spec[len(TARGET_PREFIX):].strip() if spec.startswith(TARGET_PREFIX) else ""
    if not name:
        raise EunomiaError(f"invalid target {spec!r}: write http:<name>, the name of an "
                           "HTTP system under 'models:' in models.yml")
    resolved = resolve_spec(f"{TARGET_PREFIX}{name}", load_config())
    assert resolved.http is not None
    return HttpTarget(resolved.http, resolved.spec, max_connections=max_connections)


class HttpTarget:
    """Feedback from any HTTP endpoint, read with the configured paths."""

    def __init__(self, endpoint: HttpEndpoint, name: str, *,
                 max_connections: int = defaults.CONCURRENCY,
                 environ: Mapping[str, str] | None = None) -> None:
        """``name`` is the spec (``http:myathena``). Raises :class:`EunomiaError` when the
        endpoint cannot give feedback or a header's environment variable is not set."""
        problems = endpoint.check_use(name, "scenarios")
        if problems:
            raise EunomiaError("; ".join(problems))
        self.endpoint = endpoint
        self.name = name
        self.client = HttpClient(endpoint, name, max_connections=max(1, max_connections),
                                 environ=environ)
        self._requests: dict[str, dict[str, Any]] = {}
        self._rendered: dict[tuple[str, int], tuple[bytes | None, dict[str, str]]] = {}

    @property
    def cache_across_runs(self) -> bool:
        """Whether a later run may reuse this system's cached answers (``cache_across_runs``
        in its config; off by default)."""
        return self.endpoint.cache_across_runs

    @property
    def cache_identity(self) -> str:
        return json.dumps({"target": "http", "name": self.name, **self.endpoint.identity()},
                          sort_keys=True, default=str)

    async def open(self) -> None:
        await self.client.open()

    async def close(self) -> None:
        await self.client.close()

    def context(self, scenario: Scenario, case: TestCase) -> dict[str, Any]:
        """What the body template gets for a test case."""
        exercise = self._requests.get(scenario.name)
        if exercise is None:
            exercise = scenario.athena_exercise().wire()
            self._requests[scenario.name] = exercise
        submission = AthenaSubmission(id=case.submission_id, exercise_id=scenario.exercise.id,
                                      model=case.submission).wire()
        request = {"exercise": exercise, "submission": submission, "isGraded": True}
        return {"exercise": exercise, "submission": submission, "request": request,
                "name": self.name}

    def _render(self, scenario: Scenario, case: TestCase
                ) -> tuple[bytes | None, dict[str, str]]:
        key = (scenario.name, case.submission_id)
        found = self._rendered.pop(key, None)
        if found is None:
            found = self.client.render(self.context(scenario, case))
        if len(self._rendered) >= _MEMO:
            self._rendered.pop(next(iter(self._rendered)))  # oldest first
        self._rendered[key] = found
        return found

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        return self.client.describe(*self._render(scenario, case))

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        received = await self.client.send(*self._render(scenario, case))
        docs = received.documents
        assert self.endpoint.feedback is not None  # checked when built
        items = self._items(self.endpoint.feedback, received)
        # the whole answer is kept once (raw, in the store); files and pages get the items
        # with their texts bounded
        feedback = bounded_feedback([self._item(self.endpoint.feedback, i, item)
                                     for i, item in enumerate(items)], received.size)
        reported = self.client.last_value(self.endpoint.model, docs)
        usage = [LLMRequestUsage(
            model=r.model or (str(reported) if reported is not None else self.name),
            num_input_tokens=r.input_tokens, num_output_tokens=r.output_tokens,
            num_cached_input_tokens=r.cached_input_tokens) for r in self.client.tokens(docs)]
        self.client.cost(docs)  # checked; carried once TargetResponse has a place for it
        return TargetResponse(feedback=feedback, usage=usage, latency_s=received.latency_s,
                              raw=received.raw)

    def _items(self, paths: FeedbackPaths, received: Received) -> list[Any]:
        """The feedback items: the list ``items`` names, or every value it finds."""
        if received.kind == "text":
            raise self.client.fail(f"{self.name}: a text answer has no feedback items",
                                   retryable=False)
        items: list[Any] = []
        matched = False
        for doc in received.documents:
            found = find_all(paths.items, doc)
            if len(found) == 1 and isinstance(found[0], list):
                found = found[0]
                matched = True
            matched = matched or bool(found)
            items.extend(found)
        if not matched:
            shown = short(received.raw)
            raise self.client.fail(
                f"{self.name}: the feedback path {paths.items} found nothing in the response "
                f"(name the list itself, e.g. $.data, so that an empty list reads as no "
                f"feedback): {shown}", retryable=False)
        return items

    def _item(self, paths: FeedbackPaths, index: int, item: Any) -> AthenaFeedback:
        if paths.fields:
            if not isinstance(item, dict):
                raise self._bad(index, f"is {short(item)}, not an object")
            mapped: dict[str, Any] = {}
            for name, path in paths.fields.items():
                found = find_all(path, item)
                if not found:
                    continue
                if name == "element_ids":
                    # the list itself (null: none), else every id the path found
                    mapped[name] = found[0] if len(found) == 1 and (
                        found[0] is None or isinstance(found[0], list)) else found
                else:
                    mapped[name] = found[0]
            item = mapped
        try:
            return AthenaFeedback.model_validate(item)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "the item"
            raise self._bad(index, f"{where}: {first['msg']} "
                                   f"(got {short(first.get('input'))})") from None

    def _bad(self, index: int, problem: str) -> CallError:
        return self.client.fail(f"{self.name}: feedback item {index} {problem}",
                                retryable=False)
