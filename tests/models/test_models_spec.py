"""Model specs, the model config file and provider construction."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.models import (
    GenerationSettings,
    ModelsConfig,
    get_model,
    load_config,
    resolve_spec,
    split_spec,
)
from eunomia.models.providers.openai import OpenAIProvider
from eunomia.pricing import TokenCount

CONFIG = """\
providers:
  ollama:
    type: openai
    base_url: http://localhost:11434/v1
  azure:
    type: openai
    base_url: https://example.openai.azure.com/openai/deployments/mini
    api_key_env: AZURE_KEY_FOR_TEST
    api_key_header: api-key
    query: {api-version: "2024-10-21"}
models:
  judge:
    spec: openai:gpt-4o-mini
    settings: {max_tokens: 800}
    price: {input_cost_per_million: 0.15, output_cost_per_million: 0.6}
  openai:gpt-4o-mini:
    settings: {max_tokens: 300, top_p: 0.5}
  fast:
    spec: judge
    settings: {temperature: 0.2}
  small:
    spec: local:qwen-0.5b
"""


@pytest.fixture
def config(tmp_path: Path) -> ModelsConfig:
    path = tmp_path / "models.yml"
    path.write_text(CONFIG, encoding="utf-8")
    return load_config(path)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("local", ("local", defaults.LOCAL_MODEL)),
        ("local:gemma3-270m", ("local", "gemma3-270m")),
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("anthropic:claude-3-5-haiku-latest", ("anthropic", "claude-3-5-haiku-latest")),
        ("ollama:llama3.1:8b", ("ollama", "llama3.1:8b")),
        ("  openai : gpt-4o ", ("openai", "gpt-4o")),
    ],
)
def test_split_spec(spec: str, expected: tuple[str, str]) -> None:
    assert split_spec(spec) == expected


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", ":gpt-4o", ""])
def test_split_spec_rejects(spec: str) -> None:
    with pytest.raises(EunomiaError, match="invalid model spec"):
        split_spec(spec)


def test_local_specs_resolve_to_registry_names() -> None:
    assert resolve_spec("local").spec == f"local:{defaults.LOCAL_MODEL}"
    assert resolve_spec("local:qwen2.5-coder-0.5b-instruct").spec == "local:qwen2.5-coder-0.5b"
    assert resolve_spec("local:GEMMA3-270M").model == "gemma3-270m"
    with pytest.raises(EunomiaError, match=r"unknown local model 'nope'.*gemma3-270m"):
        resolve_spec("local:nope")


def test_unknown_provider_and_alias() -> None:
    with pytest.raises(EunomiaError, match="unknown provider 'mistral'"):
        resolve_spec("mistral:large")
    with pytest.raises(EunomiaError, match="invalid model spec 'judge'"):
        resolve_spec("judge")


def test_alias_settings_and_price(config: ModelsConfig) -> None:
    judge = resolve_spec("judge", config)
    assert judge.spec == "openai:gpt-4o-mini"
    assert judge.alias == "judge"
    # the alias wins over the spec entry; the spec entry's other settings still apply
    assert judge.settings == GenerationSettings(max_tokens=800, top_p=0.5)
    assert judge.price is not None and judge.price.input_cost_per_million == 0.15
    fast = resolve_spec("fast", config)
    assert fast.spec == "openai:gpt-4o-mini"
    assert fast.settings.temperature == 0.2 and fast.settings.max_tokens == 800
    plain = resolve_spec("openai:gpt-4o-mini", config)
    assert plain.settings.max_tokens == 300 and plain.alias is None
    assert resolve_spec("small", config).spec == "local:qwen2.5-coder-0.5b"


def test_unknown_alias_names_the_file(config: ModelsConfig) -> None:
    with pytest.raises(EunomiaError, match=r"unknown model 'jduge'.*models.yml.*judge"):
        resolve_spec("jduge", config)


def test_price_table_from_config(config: ModelsConfig) -> None:
    table = config.price_table()
    line = table.cost_line(TokenCount("judge", 1_000_000, 1_000_000))
    assert line.total == pytest.approx(0.75)
    assert table.lookup("openai:gpt-4o-mini") is not None
    assert table.lookup("gpt-4o-mini") is not None


def test_custom_endpoint_builds_openai_provider(
    config: ModelsConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = get_model("ollama:llama3.1:8b", config)
    assert isinstance(provider, OpenAIProvider)
    assert provider.name == "ollama:llama3.1:8b"
    assert provider.url == "http://localhost:11434/v1/chat/completions"
    monkeypatch.setenv("AZURE_KEY_FOR_TEST", "k-123456")
    azure = get_model("azure:gpt-4o-mini", config)
    assert isinstance(azure, OpenAIProvider)
    assert azure.request_body is not None


def test_openai_needs_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(EunomiaError, match="OPENAI_API_KEY"):
        get_model("openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1/")
    provider = get_model("openai:gpt-4o-mini")
    assert isinstance(provider, OpenAIProvider)
    assert provider.url == "http://127.0.0.1:8000/v1/chat/completions"


def _block_import(monkeypatch: pytest.MonkeyPatch, blocked: str) -> None:
    real_import = builtins.__import__

    def fake_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == blocked or name.startswith(blocked + "."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    import importlib

    real_import_module = importlib.import_module

    def fake_import_module(name: str, package: str | None = None) -> Any:
        if name == blocked or name.startswith(blocked + "."):
            raise ImportError(f"No module named {name!r}")
        return real_import_module(name, package)

    monkeypatch.setattr(importlib, "import_module", fake_import_module)


def test_missing_anthropic_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _block_import(monkeypatch, "anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with pytest.raises(EunomiaError, match=r"pip install 'eunomia\[anthropic\]'"):
        get_model("anthropic:claude-3-5-haiku-latest")


def test_missing_llama_cpp_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _block_import(monkeypatch, "llama_cpp")
    with pytest.raises(EunomiaError, match=r"(?s)pip install 'eunomia\[local\]'.*9 minutes"):
        get_model("local:gemma3-270m")


# --- config file errors ------------------------------------------------------------------


def _load(tmp_path: Path, text: str) -> EunomiaError:
    path = tmp_path / "models.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(EunomiaError) as info:
        load_config(path)
    return info.value


def test_config_unknown_key_names_file_key_and_line(tmp_path: Path) -> None:
    err = _load(tmp_path, "models:\n  judge:\n    spec: openai:gpt-4o\n    temprature: 0\n")
    (diag,) = err.diagnostics
    assert diag.file == tmp_path / "models.yml"
    assert diag.key == "models.judge.temprature"
    assert diag.line == 4


def test_config_bad_setting_value(tmp_path: Path) -> None:
    err = _load(tmp_path, "models:\n  judge:\n    spec: openai:x\n    settings: {max_tokens: 0}\n")
    assert err.diagnostics[0].key == "models.judge.settings.max_tokens"


def test_config_bad_price(tmp_path: Path) -> None:
    price = "{input_cost_per_million: -1, output_cost_per_million: 1}"
    err = _load(tmp_path, f"models:\n  openai:x:\n    price: {price}\n")
    assert err.diagnostics[0].key == "models.openai:x.price.input_cost_per_million"


def test_config_semantic_errors(tmp_path: Path) -> None:
    err = _load(
        tmp_path,
        "providers:\n  vllm:\n    base_url: http://x\n"
        "models:\n  judge:\n    settings: {max_tokens: 5}\n"
        "  other:\n    spec: mistral:large\n",
    )
    keys = {d.key: d for d in err.diagnostics}
    assert "type" in keys["providers.vllm"].message
    assert "spec" in keys["models.judge"].message
    assert "unknown endpoint 'mistral'" in keys["models.other.spec"].message
    assert keys["models.other.spec"].line == 8


def test_config_invalid_yaml(tmp_path: Path) -> None:
    err = _load(tmp_path, "models:\n  judge: [unclosed\n")
    assert err.diagnostics[0].line is not None
    assert "invalid YAML" in err.diagnostics[0].message


def test_config_missing_file(tmp_path: Path) -> None:
    with pytest.raises(EunomiaError, match="not found"):
        load_config(tmp_path / "nope.yml")


def test_config_default_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_config() == ModelsConfig()
    (tmp_path / defaults.MODEL_CONFIG_FILE).write_text(CONFIG, encoding="utf-8")
    loaded = load_config()
    assert loaded.path == Path(defaults.MODEL_CONFIG_FILE)
    assert "judge" in loaded.models
    (tmp_path / defaults.MODEL_CONFIG_FILE).write_text("", encoding="utf-8")
    assert load_config().models == {}


def test_local_threads_default_and_override(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from eunomia.models.providers.local import LocalProvider

    monkeypatch.delenv("EUNOMIA_LOCAL_THREADS", raising=False)
    assert LocalProvider("gemma3-270m").threads_used == max(1, (os.cpu_count() or 1) - 1)
    assert LocalProvider("gemma3-270m", threads=3).threads_used == 3
    monkeypatch.setenv("EUNOMIA_LOCAL_THREADS", "2")
    assert LocalProvider("gemma3-270m").threads_used == 2
    monkeypatch.setenv("EUNOMIA_LOCAL_THREADS", "many")
    with pytest.raises(EunomiaError, match="EUNOMIA_LOCAL_THREADS"):
        _ = LocalProvider("gemma3-270m").threads_used


def test_local_models_are_free_unless_priced(config: ModelsConfig) -> None:
    table = ModelsConfig().price_table()
    for name in ("qwen2.5-coder-0.5b", "local:qwen2.5-coder-1.5b", "gemma3-270m"):
        line = table.cost_line(TokenCount(name, 5_000, 700))
        assert line.known and line.total == 0.0
    assert table.lookup("gpt-4o-mini") is None  # hosted models are not guessed
    priced = ModelsConfig.model_validate(
        {"models": {"local:gemma3-270m": {"price": {"input_cost_per_million": 1.0,
                                                     "output_cost_per_million": 2.0}}}}
    ).price_table()
    line = priced.cost_line(TokenCount("gemma3-270m", 1_000_000, 1_000_000))
    assert line.total == pytest.approx(3.0)
