"""The model configuration file (``models.yml``): endpoints, aliases, settings and prices.

Example::

    providers:                      # named endpoints; local, openai, anthropic are built in
      openai:
        api_key_env: OPENAI_API_KEY
      ollama:
        type: openai                # any OpenAI-compatible server
        base_url: http://localhost:11434/v1
      azure:
        type: openai
        base_url: https://my-resource.openai.azure.com/openai/deployments/gpt-4o-mini
        api_key_env: AZURE_OPENAI_API_KEY
        api_key_header: api-key
        query: {api-version: "2024-10-21"}
    models:                         # aliases (no colon) or full specs (provider:model)
      judge:
        spec: openai:gpt-4o-mini
        settings: {max_tokens: 800}
      openai:gpt-4o-mini:
        price: {input_cost_per_million: 0.15, output_cost_per_million: 0.60,
                cached_input_cost_per_million: 0.075}
      local:qwen2.5-coder-1.5b:
        price: {input_cost_per_million: 0, output_cost_per_million: 0}
      myapp:                        # an HTTP system under test: spec http:myapp
        http: {url: "https://myapp.example.com/chat", body: {q: "{{ instruction }}"},
               answer: $.text}      # see eunomia.models._http_config, docs/http-targets.md

Every problem is reported with the file, the key path and the line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from eunomia import defaults
from eunomia.bounds import Url
from eunomia.errors import Diagnostic, EunomiaError, join_key
from eunomia.models._http_config import HttpEndpoint
from eunomia.models._types import GenerationSettings
from eunomia.pricing import ModelPrice, PriceTable
from eunomia.yamlfile import diag_at, read_named_yaml, validate_document

ProviderType = Literal["local", "openai", "anthropic"]
BUILTIN_PROVIDERS: tuple[ProviderType, ...] = ("local", "openai", "anthropic")
Backend = Literal["local", "openai", "anthropic", "http"]
"""What answers a spec: an endpoint's provider, or ``http`` (an HTTP system of ``models:``)."""
HTTP = "http"


class EndpointConfig(BaseModel):
    """A named endpoint: which provider type, where, and with which key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: ProviderType | None = None
    """Provider type; defaults to the endpoint's name for ``local``, ``openai``, ``anthropic``."""
    base_url: Url | None = None
    api_key_env: str | None = None
    """Environment variable holding the key (default ``OPENAI_API_KEY``/``ANTHROPIC_API_KEY``)."""
    api_key_header: str = "Authorization"
    headers: dict[str, str] = Field(default_factory=dict)
    query: dict[str, str] = Field(default_factory=dict)
    json_schema_strict: bool = False
    stream_usage: bool = True
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    extra_body: dict[str, Any] = Field(default_factory=dict)
    context_tokens: int | None = Field(default=None, ge=256, le=defaults.MAX_TOKENS_ASKED)
    """``local`` only: context window to load the model with."""
    threads: int | None = Field(default=None, ge=1, le=1024)
    """``local`` only: CPU threads."""


class SettingsOverride(BaseModel):
    """Generation settings given in the config; unset fields keep their defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, ge=1, le=defaults.MAX_TOKENS_ASKED)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None
    stop: tuple[str, ...] | None = None

    def apply(self, base: GenerationSettings) -> GenerationSettings:
        changes = self.model_dump(exclude_unset=True)
        return GenerationSettings.model_validate({**base.model_dump(), **changes})


class ModelEntry(BaseModel):
    """An alias (``judge: {spec: openai:gpt-4o-mini}``), settings/price for a full spec, or an
    HTTP system under test (``myapp: {http: {...}}``, the spec ``http:myapp``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str | None = None
    settings: SettingsOverride = SettingsOverride()
    price: ModelPrice | None = None
    http: HttpEndpoint | None = None


class ModelsConfig(BaseModel):
    """The whole ``models.yml``."""

    model_config = ConfigDict(extra="forbid")

    providers: dict[str, EndpointConfig] = Field(default_factory=dict)
    models: dict[str, ModelEntry] = Field(default_factory=dict)
    _path: Path | None = PrivateAttr(default=None)

    @property
    def path(self) -> Path | None:
        """The file this config was read from (None when built in code)."""
        return self._path

    def endpoint(self, name: str) -> EndpointConfig | None:
        """The endpoint called ``name`` (built-in ones exist even when not configured)."""
        found = self.providers.get(name)
        if found is not None:
            return found
        if name in BUILTIN_PROVIDERS:
            return EndpointConfig()
        return None

    def endpoint_type(self, name: str) -> ProviderType | None:
        ep = self.endpoint(name)
        if ep is None:
            return None
        if ep.type is not None:
            return ep.type
        return next((k for k in BUILTIN_PROVIDERS if k == name), None)

    def price_table(self) -> PriceTable:
        """The prices given here, by alias, spec and bare model id, for :mod:`eunomia.pricing`.

        The embedded local models run in this process and cost nothing: they are priced
        at zero unless an entry here prices them (e.g. to account for hardware).
        """
        from eunomia.models._weights import LOCAL_MODELS

        free = ModelPrice(input_cost_per_million=0.0, output_cost_per_million=0.0)
        prices: dict[str, ModelPrice] = {}
        for key, entry in self.models.items():
            if entry.price is None:
                continue
            prices[key] = entry.price
            spec = f"{HTTP}:{key}" if entry.http is not None else entry.spec or key
            prices.setdefault(spec, entry.price)
            if ":" in spec:
                # also the bare model id, which is what ChatResult.model carries
                prices.setdefault(spec.split(":", 1)[1], entry.price)
        local = {n: free for m in LOCAL_MODELS for n in (m, f"local:{m}")}
        return PriceTable({**local, **prices})


def _check(config: ModelsConfig, diag: Any) -> list[Diagnostic]:
    """Consistency checks pydantic cannot do: endpoint types, alias targets."""
    out: list[Diagnostic] = []
    for name, ep in config.providers.items():
        if ":" in name or not name.strip():
            out.append(diag(("providers", name), "an endpoint name must be non-empty without ':'"))
        elif name == HTTP:
            out.append(diag(("providers", name), f"{HTTP!r} is reserved for the HTTP systems "
                                                 "of 'models:' (e.g. models: {myapp: {http: "
                                                 "...}}, spec http:myapp)"))
        elif ep.type is None and name not in BUILTIN_PROVIDERS:
            out.append(
                diag(
                    ("providers", name),
                    "'type' is required for an endpoint that is not built in "
                    f"(one of: {', '.join(BUILTIN_PROVIDERS)})",
                )
            )
    for key, entry in config.models.items():
        if entry.http is not None:
            out.extend(_check_http(config, key, entry, diag))
            continue
        if ":" in key:
            if entry.spec is not None and entry.spec != key:
                out.append(
                    diag(("models", key, "spec"), "a full spec key cannot point to another spec")
                )
            target = key
        else:
            if key in BUILTIN_PROVIDERS or key in config.providers:
                out.append(diag(("models", key), f"alias {key!r} is the name of an endpoint"))
                continue
            if entry.spec is None:
                out.append(
                    diag(
                        ("models", key),
                        "an alias needs 'spec: provider:model' "
                        "(or write the key itself as provider:model)",
                    )
                )
                continue
            target = entry.spec
        if target == "local":
            continue
        endpoint = target.split(":", 1)[0] if ":" in target else None
        if endpoint == HTTP:
            system = config.models.get(target.split(":", 1)[1].strip())
            if system is None or system.http is None:
                where = ("models", key, "spec") if entry.spec else ("models", key)
                out.append(diag(where, f"{target!r} names no HTTP system of 'models:' "
                                       "(an entry with 'http:')"))
        elif endpoint is not None and config.endpoint_type(endpoint) is None:
            known = sorted({*BUILTIN_PROVIDERS, *config.providers})
            where = ("models", key, "spec") if entry.spec else ("models", key)
            out.append(
                diag(where, f"unknown endpoint {endpoint!r} (known: {', '.join(known)})")
            )
    return out


def _check_http(config: ModelsConfig, key: str, entry: ModelEntry, diag: Any
                ) -> list[Diagnostic]:
    if ":" in key or not key.strip():
        return [diag(("models", key), "the name of an HTTP system is non-empty without ':' "
                                      "(its spec is http:<name>)")]
    if entry.spec is not None:
        return [diag(("models", key, "spec"), "an HTTP system has no 'spec': it is "
                                               f"'{HTTP}:{key}' (drop 'spec' or 'http')")]
    if key in BUILTIN_PROVIDERS or key in config.providers:
        return [diag(("models", key), f"{key!r} is the name of an endpoint")]
    return []


def load_config(path: Path | None = None) -> ModelsConfig:
    """Read the model config; ``None`` reads ``models.yml`` in the working directory if present.

    Raises :class:`EunomiaError` listing every problem (file, key path, line).
    """
    if path is None:
        candidate = Path(defaults.MODEL_CONFIG_FILE)
        if not candidate.is_file():
            return ModelsConfig()
        path = candidate
    doc = read_named_yaml(path, "model config file")
    if doc.data is None:
        return _with_path(ModelsConfig(), path)
    config, problems = validate_document(doc, ModelsConfig)
    if config is None:
        raise EunomiaError(f"invalid model config {path}", problems)
    problems = _check(config, lambda loc, msg: diag_at(doc, loc, msg))
    if problems:
        raise EunomiaError(f"invalid model config {path}", problems)
    for key, entry in config.models.items():
        if entry.http is not None:
            loc = ("models", key, "http")
            entry.http.located(f"{path}:{doc.line_of(loc)} [{join_key('', loc)}]")
    return _with_path(config, path)


def _with_path(config: ModelsConfig, path: Path) -> ModelsConfig:
    config._path = path
    return config
