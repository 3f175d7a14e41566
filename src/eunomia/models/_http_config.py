"""An HTTP system under test (``http:<name>``), as configured in ``models.yml``::

    models:
      myapp:
        http:
          url: https://myapp.example.com/api/chat
          method: POST                          # GET, POST, PUT or PATCH
          headers:
            Authorization: "Bearer ${MYAPP_KEY}"   # ${VAR}: from the environment
            X-Tenant: {env: MYAPP_TENANT}          # the whole value from the environment
          body:                                 # a YAML mapping of templates, or one string
            question: "{{ instruction }}"
            history: "{{ history }}"            # one expression alone keeps its value (a list)
          answer: $.output.text                 # JSONPath of the answer text (task suites)
          usage: {input_tokens: $.usage.in, output_tokens: $.usage.out}
          cost: $.usage.cost                    # what the system says the call cost
        price: {input_cost_per_million: 0.15, output_cost_per_million: 0.6}

Every value is checked when the file is read (URL, method, header names and environment
references, template syntax and names, JSONPath syntax), with the file, key and line.
Header values are resolved from the environment only when the system is built; they are
never stored, printed or part of a cache key. See docs/http-targets.md.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from eunomia.bounds import Url
from eunomia.models._http_template import (
    SCENARIO_FIELDS,
    TASK_FIELDS,
    Body,
    check_json_path,
    check_template,
    names_used,
)

HttpMethod = Literal["GET", "POST", "PUT", "PATCH"]
ResponseFormat = Literal["auto", "json", "sse", "text"]
"""How the answer is read: ``auto`` (server-sent events when the Content-Type is
``text/event-stream``, else JSON), ``json``, ``sse`` or ``text`` (the body is the answer)."""

JsonPath = Annotated[str, AfterValidator(check_json_path)]
_ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ENV_REF = re.compile(r"\$\{(" + _ENV_NAME + r")\}")
_HEADER_NAME = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|password|session", re.IGNORECASE)
FeedbackField = Literal["id", "title", "description", "credits",
                        "structured_grading_instruction_id", "element_ids", "reference", "meta",
                        "is_graded"]
"""Fields of an Athena feedback item a custom answer can be mapped to."""
FEEDBACK_FIELDS: tuple[str, ...] = get_args(FeedbackField)


class EnvValue(BaseModel):
    """A header value read whole from an environment variable: ``{env: NAME}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str = Field(pattern=f"^{_ENV_NAME}$")


def _header_value(value: Any) -> Any:
    """Text (with ``${NAME}`` references) or ``{env: NAME}``; one clear error otherwise."""
    if isinstance(value, dict):
        name = value.get("env")
        if set(value) != {"env"} or not isinstance(name, str) or \
                not re.fullmatch(_ENV_NAME, name):
            raise ValueError("write a value from the environment as {env: NAME} (NAME: "
                             "letters, digits and '_')")
        return EnvValue(env=name)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError("a header value is text, or {env: NAME}")
    text = str(value)
    if "${" in _ENV_REF.sub("", text):
        raise ValueError(f"{text!r}: write an environment variable as ${{NAME}} (letters, "
                         "digits and '_')")
    if "\n" in text or "\r" in text:
        raise ValueError("a header value cannot contain a line break")
    return text


HeaderValue = Annotated[str | EnvValue, BeforeValidator(_header_value)]
HeaderName = Annotated[str, Field(pattern=_HEADER_NAME, max_length=200)]


class UsagePaths(BaseModel):
    """Where the tokens the system reports are. With ``items`` (one record per LLM call,
    e.g. Athena's ``$.meta.llmRequests``) the other paths are read inside each item, and
    items without them are read as Athena's own ``llmRequests`` entries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    items: JsonPath | None = None
    input_tokens: JsonPath | None = None
    output_tokens: JsonPath | None = None
    cached_input_tokens: JsonPath | None = None
    model: JsonPath | None = None
    """The model the tokens were billed for (prices come from models.yml / llm_cost.yml)."""

    @property
    def token_paths(self) -> bool:
        return any(p is not None for p in (self.input_tokens, self.output_tokens,
                                           self.cached_input_tokens))

    @model_validator(mode="after")
    def _something(self) -> UsagePaths:
        if self.items is None and not self.token_paths:
            raise ValueError("give 'items' or the token paths ('input_tokens', "
                             "'output_tokens', 'cached_input_tokens')")
        return self


class FeedbackPaths(BaseModel):
    """Where the feedback items are (scenarios). ``items``: the list (``$.data``) or each item
    (``$.data[*]``). ``fields``: JSONPaths inside an item per Athena feedback field; without
    them each item is read as an Athena feedback item (camelCase or snake_case)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    items: JsonPath
    fields: dict[FeedbackField, JsonPath] = Field(default_factory=dict)


class HttpEndpoint(BaseModel):
    """One HTTP system under test: how to ask it, and where its answer is."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: Url
    method: HttpMethod = "POST"
    headers: dict[HeaderName, HeaderValue] = Field(default_factory=dict)
    query: dict[str, str] = Field(default_factory=dict)
    """Query parameters; values are templates."""
    body: Body = None
    """A template string, or a YAML mapping/list of templates sent as JSON."""
    format: ResponseFormat = "auto"
    answer: JsonPath | None = None
    """Task suites: where the answer text is (in every event, for server-sent events)."""
    feedback: FeedbackPaths | None = None
    """Scenarios: where the feedback items are."""
    usage: UsagePaths | None = None
    model: JsonPath | None = None
    """The name of the model that answered, when the system reports it (for prices)."""
    cost: JsonPath | None = None
    """The cost of the call, when the system reports it."""
    done: str = Field(default="[DONE]", min_length=1)
    """Server-sent events: the data that ends the stream."""
    require_done: bool = False
    """Server-sent events: a stream that ends without ``done`` is a failed call (cut short),
    not an answer. Off by default: many streams end without such data."""
    cache_across_runs: bool = False
    """Whether an answer may be reused by a later run: off by default, as a system behind a
    URL may change without its config changing."""
    _where: str = PrivateAttr(default="")

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("body", "query")
    @classmethod
    def _templates(cls, value: Any) -> Any:
        return check_template(value)

    @model_validator(mode="after")
    def _consistent(self) -> HttpEndpoint:
        if self.method == "GET" and self.body is not None:
            raise ValueError("a GET request has no body: give the values in 'query'")
        if self.answer is None and self.feedback is None and self.format != "text":
            raise ValueError("say where the answer is: 'answer' (a JSON path, for task "
                             "suites), 'feedback' (for scenarios) or 'format: text'")
        if self.format == "text" and self.answer is not None:
            raise ValueError("'format: text' takes the whole body as the answer: drop "
                             "'answer' or use another format")
        return self

    # --- where it was written ---------------------------------------------------------
    @property
    def where(self) -> str:
        """The file, line and key it was read from (for messages), or ''."""
        return self._where

    def located(self, where: str) -> HttpEndpoint:
        self._where = where
        return self

    def _at(self) -> str:
        return f" ({self._where})" if self._where else ""

    # --- checks when it is built ------------------------------------------------------
    def check_use(self, name: str, kind: Literal["tasks", "scenarios"]) -> list[str]:
        """What keeps this endpoint from serving as a model (task suites) or a target
        (scenarios); empty when it can."""
        given = TASK_FIELDS if kind == "tasks" else SCENARIO_FIELDS
        other = SCENARIO_FIELDS if kind == "tasks" else TASK_FIELDS
        problems = []
        wrong = sorted(names_used(self.body, self.query) - set(given))
        if wrong:
            problems.append(
                f"{name}: its templates use {', '.join(map(repr, wrong))}, which "
                f"{'task suites' if kind == 'tasks' else 'scenarios'} do not give (they give "
                f"{', '.join(given)}; {', '.join(sorted(set(other) - set(given)))} are for "
                f"{'scenarios' if kind == 'tasks' else 'task suites'}){self._at()}")
        if kind == "tasks" and self.answer is None and self.format != "text":
            problems.append(f"{name}: no 'answer' path, so it cannot answer task cases "
                            f"(only scenarios){self._at()}")
        if kind == "scenarios" and self.feedback is None:
            problems.append(f"{name}: no 'feedback' paths, so it cannot be a scenario "
                            f"target (only a model for task suites){self._at()}")
        if kind == "scenarios" and self.format == "text":
            problems.append(f"{name}: 'format: text' gives no feedback items{self._at()}")
        return problems

    def env_names(self) -> list[str]:
        """The environment variables the headers read."""
        out: list[str] = []
        for value in self.headers.values():
            out.extend([value.env] if isinstance(value, EnvValue) else _ENV_REF.findall(value))
        return out

    def resolve_headers(self, environ: dict[str, str], name: str
                        ) -> tuple[dict[str, str], list[str]]:
        """(headers with their environment values, the secret values to hide).

        ValueError naming every variable that is not set (never a value)."""
        headers: dict[str, str] = {}
        secrets: list[str] = []
        missing: list[str] = []
        for key, value in self.headers.items():
            refs = [value.env] if isinstance(value, EnvValue) else _ENV_REF.findall(value)
            absent = [r for r in refs if not environ.get(r)]
            if absent:
                missing.extend(f"{r} (header {key})" for r in absent)
                continue
            if isinstance(value, EnvValue):
                text = environ[value.env]
            else:
                text = _ENV_REF.sub(lambda m: environ[m.group(1)], value)
            if refs:
                secrets.extend([text, *(environ[r] for r in refs)])
            headers[key] = text
        if missing:
            raise ValueError(f"{name} needs the environment variable(s) "
                             f"{', '.join(missing)}, not set{self._at()}")
        return headers, secrets

    def identity(self) -> dict[str, Any]:
        """What changes the answers, as it is written (no environment value; credential-like
        headers by name only): part of the cache key."""
        headers = {k: (None if _SECRET_HEADER.search(k) else
                       (f"{{env: {v.env}}}" if isinstance(v, EnvValue) else v))
                   for k, v in sorted(self.headers.items())}
        return {**self.model_dump(mode="json", exclude={"headers", "cache_across_runs"}),
                "headers": headers}

    def identity_json(self) -> str:
        return json.dumps(self.identity(), sort_keys=True, default=str)
