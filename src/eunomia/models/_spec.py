"""Model specs, read the same everywhere: ``local``, ``local:<name>``, ``openai:gpt-4o-mini``,
``anthropic:claude-...``, ``<endpoint>:<model>`` for endpoints in the config, an alias, or
``http:<name>`` for an HTTP system under test of the config (``models: {<name>: {http: ...}}``).

``likelihood:<local spec>`` is a local model that answers a judge's request by reading its
score's probabilities instead of writing (``likelihood+feedback:`` also writes the rest,
``generate:`` says it generates): :mod:`eunomia.models.providers.by_likelihood`.

``baseline:reference`` and ``baseline:empty`` name the trivial candidates of task suites
(:data:`TASK_BASELINES`): they resolve to a spec of backend ``baseline``, which no provider
answers — the kinds over task suites answer for them, case by case (``eunomia.kinds.tasks``).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.models._config import (
    HTTP,
    Backend,
    EndpointConfig,
    ModelsConfig,
    SettingsOverride,
)
from eunomia.models._http_config import HttpEndpoint
from eunomia.models._types import (
    GENERATE,
    LIKELIHOOD,
    LIKELIHOOD_FEEDBACK,
    SCORINGS,
    GenerationSettings,
    ModelProvider,
    Scoring,
)
from eunomia.models._weights import local_model
from eunomia.pricing import ModelPrice

_MAX_ALIAS_DEPTH = 8

BASELINE = "baseline"
"""The endpoint of the trivial candidates of task suites."""
TASK_BASELINES: dict[str, str] = {
    "reference": "answers each case with another case's expected response (the previous "
                 "case of its suite that has one): fluent, on the suite's subject, wrong here",
    "empty": 'answers "" to every case (every turn of a conversation)',
}
"""The trivial candidates ``baseline:<name>``: they make no model call and cost nothing."""
SCENARIO_BASELINES = ("default", "constant")
"""The scenario targets ``baseline:default`` and ``baseline:constant`` (``eunomia run``)."""
FREE = ModelPrice(input_cost_per_million=0.0, output_cost_per_million=0.0)

SpecBackend = Literal[Backend, "baseline"]
"""What answers a spec: :data:`Backend`, or ``baseline`` (the kinds over task suites answer)."""


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A spec resolved against the config: everything needed to build the provider."""

    spec: str
    """Canonical ``endpoint:model``, e.g. ``local:qwen2.5-coder-1.5b``."""
    endpoint: str
    backend: SpecBackend
    model: str
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    """Generation settings for requests to this model (config overrides on the defaults)."""
    price: ModelPrice | None = None
    alias: str | None = None
    endpoint_config: EndpointConfig = field(default_factory=EndpointConfig)
    http: HttpEndpoint | None = None
    """``http`` only: the system's request and answer (``models.yml``'s ``http:``)."""
    scoring: Scoring | None = None
    """How it answers when the spec says so (``likelihood:local:<name>``,
    ``likelihood+feedback:...``, ``generate:...``); None: not said, it generates."""


def split_spec(spec: str) -> tuple[str, str]:
    """``"openai:gpt-4o"`` → ``("openai", "gpt-4o")``; ``"local"`` → the default local model.

    The model part may itself contain colons (``ollama:llama3.1:8b``).
    """
    text = spec.strip()
    if text == "local":
        return "local", defaults.LOCAL_MODEL
    endpoint, sep, model = text.partition(":")
    if not sep:
        raise EunomiaError(
            f"invalid model spec {spec!r}: expected 'provider:model' (e.g. openai:gpt-4o-mini, "
            "local:qwen2.5-coder-1.5b), 'local', or an alias from the model config"
        )
    endpoint, model = endpoint.strip(), model.strip()
    if not endpoint or not model:
        raise EunomiaError(f"invalid model spec {spec!r}: provider and model must both be given")
    return endpoint, model


def split_scoring(spec: str) -> tuple[Scoring | None, str]:
    """``"likelihood:local:x"`` → ``("likelihood", "local:x")``; a spec without a scoring
    prefix → ``(None, spec)``."""
    head, sep, rest = spec.strip().partition(":")
    if sep and head in SCORINGS:
        scoring = next(s for s in SCORINGS if s == head)
        if not rest.strip():
            raise EunomiaError(f"invalid model spec {spec!r}: write {head}:<model spec>")
        return scoring, rest.strip()
    return None, spec


def with_scoring(resolved: ModelSpec, scoring: Scoring) -> ModelSpec:
    """``resolved`` answering by ``scoring``. Likelihood needs a local model (its
    log-probabilities of its own prompt); its canonical spec carries the prefix (its cache
    keys are its own), ``generate`` leaves the spec as it is."""
    if resolved.scoring is not None and resolved.scoring != scoring:
        raise EunomiaError(f"model spec {scoring}:{resolved.spec} names two ways of scoring")
    if scoring == GENERATE:
        return dataclasses.replace(resolved, scoring=GENERATE)
    if resolved.backend != "local":
        raise EunomiaError(
            f"invalid model spec {scoring}:{resolved.spec}: choosing an answer by likelihood "
            "needs the model's probabilities of its own prompt, which only the local models "
            f"give (use {resolved.spec}, which generates its answers)")
    base = resolved.spec.split(":", 1)[1] if resolved.scoring is not None else resolved.spec
    return dataclasses.replace(resolved, spec=f"{scoring}:{base}", scoring=scoring)


def judge_spec(resolved: ModelSpec, *, feedback: bool = False) -> ModelSpec:
    """How a judge model scores: a local model whose spec does not say scores by likelihood
    (``likelihood+feedback`` with ``feedback``: it then also writes its feedback); a spec
    that says (``generate:local:...``) and any other model are left as they are."""
    if resolved.backend != "local" or resolved.scoring is not None:
        return resolved
    return with_scoring(resolved, LIKELIHOOD_FEEDBACK if feedback else LIKELIHOOD)


def resolve_spec(spec: str, config: ModelsConfig | None = None) -> ModelSpec:
    """Resolve aliases and apply the config's settings and prices to ``spec``."""
    config = config if config is not None else ModelsConfig()
    scoring, rest = split_scoring(spec)
    if scoring is not None:
        return with_scoring(resolve_spec(rest, config), scoring)
    text = spec.strip()
    alias: str | None = None
    overrides = []
    price: ModelPrice | None = None
    seen: list[str] = []
    while ":" not in text and text != "local":
        entry = config.models.get(text)
        if entry is not None and entry.http is not None:
            text = f"{HTTP}:{text}"  # an HTTP system named by its bare name
            break
        if entry is None or entry.spec is None:
            if not config.models:
                split_spec(text)  # raises the generic "invalid spec" error
            known = ", ".join(sorted(k for k in config.models if ":" not in k)) or "none"
            where = f" in {config.path}" if config.path else ""
            raise EunomiaError(
                f"unknown model {spec!r}: not 'provider:model' and not an alias{where} "
                f"(aliases: {known})"
            )
        if text in seen or len(seen) >= _MAX_ALIAS_DEPTH:
            raise EunomiaError(f"model alias loop: {' -> '.join([*seen, text])}")
        seen.append(text)
        alias = alias or text
        overrides.append(entry.settings)
        price = price or entry.price
        text = entry.spec.strip()
    if split_scoring(text)[0] is not None:  # an alias of likelihood:<spec>
        inner = resolve_spec(text, config)
        settings = inner.settings
        for override in reversed(overrides):
            settings = override.apply(settings)
        return dataclasses.replace(inner, alias=alias, settings=settings,
                                   price=price or inner.price)
    endpoint, model = split_spec(text)
    if endpoint == BASELINE:
        return baseline_spec(spec, model)
    if endpoint == HTTP:
        return _http_spec(spec, model, config, alias, overrides)
    endpoint_config = config.endpoint(endpoint)
    backend = config.endpoint_type(endpoint)
    if endpoint_config is None or backend is None:
        endpoints = sorted({"local", "openai", "anthropic", HTTP, *config.providers})
        raise EunomiaError(
            f"unknown provider {endpoint!r} in model spec {spec!r} "
            f"(known: {', '.join(endpoints)})"
        )
    if backend == "local":
        model = local_model(model).name
    canonical = f"{endpoint}:{model}"
    settings = GenerationSettings()
    for name in dict.fromkeys((text, canonical)):
        found = config.models.get(name)
        if found is not None:
            settings = found.settings.apply(settings)
            price = price or found.price
    for override in reversed(overrides):  # the alias named on the command line wins
        settings = override.apply(settings)
    return ModelSpec(
        spec=canonical,
        endpoint=endpoint,
        backend=backend,
        model=model,
        settings=settings,
        price=price,
        alias=alias,
        endpoint_config=endpoint_config,
    )


def baseline_spec(spec: str, name: str) -> ModelSpec:
    """The spec of the trivial candidate ``baseline:<name>`` (priced at zero)."""
    if name not in TASK_BASELINES:
        scenario = (f"; baseline:{name} is a target of scenarios (eunomia run --target)"
                    if name in SCENARIO_BASELINES else "")
        raise EunomiaError(
            f"unknown baseline {spec.strip()!r} in a model spec: choose "
            + " or ".join(f"baseline:{k}" for k in TASK_BASELINES) + scenario)
    return ModelSpec(spec=f"{BASELINE}:{name}", endpoint=BASELINE, backend="baseline",
                     model=name, price=FREE)


def _http_spec(spec: str, name: str, config: ModelsConfig, alias: str | None,
               overrides: list[SettingsOverride]) -> ModelSpec:
    entry = config.models.get(name)
    if entry is None or entry.http is None:
        known = ", ".join(sorted(k for k, e in config.models.items() if e.http)) or "none"
        where = f"in {config.path}" if config.path else f"in {defaults.MODEL_CONFIG_FILE}"
        raise EunomiaError(
            f"unknown HTTP system {spec!r}: no entry '{name}: {{http: ...}}' under 'models:' "
            f"{where} (HTTP systems: {known}; see docs/http-targets.md)")
    resolved = http_model_spec(name, entry.http, entry.settings, entry.price)
    settings = resolved.settings
    for override in reversed(overrides):  # the alias named on the command line wins
        settings = override.apply(settings)
    return dataclasses.replace(resolved, settings=settings, alias=alias)


def http_model_spec(name: str, endpoint: HttpEndpoint,
                    settings: SettingsOverride | None = None,
                    price: ModelPrice | None = None) -> ModelSpec:
    """The spec ``http:<name>`` of an HTTP system (from ``models.yml``, or written inline in
    another file such as a matrix file)."""
    return ModelSpec(
        spec=f"{HTTP}:{name}", endpoint=HTTP, backend="http", model=name,
        settings=(settings or SettingsOverride()).apply(GenerationSettings()), price=price,
        http=endpoint)


def _env_key(var: str) -> str | None:
    value = os.environ.get(var, "").strip()
    return value or None


def get_model(spec: str | ModelSpec, config: ModelsConfig | None = None) -> ModelProvider:
    """The provider for ``spec``. Optional dependencies are imported only here, when needed.

    Raises :class:`EunomiaError` for an unknown spec, a missing optional dependency
    or a missing API key.
    """
    resolved = spec if isinstance(spec, ModelSpec) else resolve_spec(spec, config)
    ep = resolved.endpoint_config
    if resolved.backend == "baseline":
        raise EunomiaError(
            f"{resolved.spec} is a trivial baseline, not a model: it can only be a candidate "
            "of task suites (eunomia eval --model), never a judge or an engine's model")
    if resolved.backend == "http":
        from eunomia.models.providers.http import HttpProvider

        if resolved.http is None:
            raise EunomiaError(f"{resolved.spec} is not an HTTP system of the model config")
        return HttpProvider(resolved.http, resolved.spec)
    if resolved.backend == "local":
        from eunomia.models.providers.local import LocalProvider, import_llama_cpp

        import_llama_cpp()  # fail now, with the install command, rather than at the first call
        local = LocalProvider(
            resolved.model,
            context_tokens=ep.context_tokens or defaults.LOCAL_CONTEXT_TOKENS,
            threads=ep.threads,
        )
        if resolved.scoring in (LIKELIHOOD, LIKELIHOOD_FEEDBACK):
            from eunomia.models.providers.by_likelihood import LikelihoodChooser

            return LikelihoodChooser(local, feedback=resolved.scoring == LIKELIHOOD_FEEDBACK)
        return local
    if resolved.backend == "openai":
        from eunomia.models.providers.openai import OpenAIProvider

        base_url = ep.base_url
        if base_url is None and resolved.endpoint == "openai":
            base_url = _env_key(defaults.OPENAI_BASE_URL_ENV)
        base_url = base_url or defaults.OPENAI_BASE_URL
        key_var = ep.api_key_env or defaults.OPENAI_API_KEY_ENV
        key = _env_key(key_var)
        official = urlsplit(defaults.OPENAI_BASE_URL).hostname
        if key is None and urlsplit(base_url).hostname == official:
            raise EunomiaError(
                f"model {resolved.spec!r} needs an API key: set the environment variable {key_var}"
            )
        return OpenAIProvider(
            resolved.model,
            base_url=base_url,
            api_key=key,
            api_key_header=ep.api_key_header,
            headers=ep.headers,
            query=ep.query,
            json_schema_strict=ep.json_schema_strict,
            stream_usage=ep.stream_usage,
            max_tokens_field=ep.max_tokens_field,
            extra_body=ep.extra_body,
            name=resolved.spec,
        )
    from eunomia.models.providers.anthropic import AnthropicProvider, import_anthropic

    import_anthropic()
    key_var = ep.api_key_env or defaults.ANTHROPIC_API_KEY_ENV
    key = _env_key(key_var)
    if key is None and ep.base_url is None:
        raise EunomiaError(
            f"model {resolved.spec!r} needs an API key: set the environment variable {key_var}"
        )
    return AnthropicProvider(
        resolved.model,
        api_key=key,
        base_url=ep.base_url,
        extra_body=ep.extra_body,
        name=resolved.spec,
    )
