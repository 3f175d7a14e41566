"""One model interface for every provider: ``local`` (llama.cpp), ``openai``, ``anthropic``.

>>> provider = get_model("local:qwen2.5-coder-1.5b")        # or "openai:gpt-4o-mini", an alias
>>> request = ChatRequest(messages=(ChatMessage(role="user", content="..."),), json_schema=schema)
>>> attempted = await call_with_retry(lambda: provider.chat(request), RetryPolicy())
>>> attempted.value.parsed, attempted.value.usage

Providers raise :class:`eunomia.scheduler.CallError`; callers retry with
:func:`eunomia.scheduler.call_with_retry`. User-facing problems (unknown spec,
missing dependency or key, bad config) are :class:`eunomia.errors.EunomiaError`.
"""

from eunomia.models._config import (
    EndpointConfig,
    ModelEntry,
    ModelsConfig,
    SettingsOverride,
    load_config,
)
from eunomia.models._json import (
    JSONExtractionError,
    check_required,
    extract_json,
    parse_json_answer,
)
from eunomia.models._spec import (
    ModelSpec,
    get_model,
    judge_spec,
    resolve_spec,
    split_scoring,
    split_spec,
    with_scoring,
)
from eunomia.models._types import (
    GENERATE,
    LIKELIHOOD,
    LIKELIHOOD_FEEDBACK,
    SCORINGS,
    ChatMessage,
    ChatRequest,
    ChatResult,
    GenerationSettings,
    ModelProvider,
    Role,
    Scoring,
    Usage,
)
from eunomia.models._weights import (
    LOCAL_MODELS,
    LocalModel,
    cache_dir,
    ensure_weights,
    local_model,
    weights_path,
)

__all__ = [
    "GENERATE",
    "LIKELIHOOD",
    "LIKELIHOOD_FEEDBACK",
    "LOCAL_MODELS",
    "SCORINGS",
    "ChatMessage",
    "ChatRequest",
    "ChatResult",
    "EndpointConfig",
    "GenerationSettings",
    "JSONExtractionError",
    "LocalModel",
    "ModelEntry",
    "ModelProvider",
    "ModelSpec",
    "ModelsConfig",
    "Role",
    "Scoring",
    "SettingsOverride",
    "Usage",
    "cache_dir",
    "check_required",
    "ensure_weights",
    "extract_json",
    "get_model",
    "judge_spec",
    "load_config",
    "local_model",
    "parse_json_answer",
    "resolve_spec",
    "split_scoring",
    "split_spec",
    "weights_path",
    "with_scoring",
]
