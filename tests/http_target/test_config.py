"""``models.yml``'s HTTP systems: checked when read (file, line, key), resolved as specs,
built as provider or target, and never holding a secret where it could be stored."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from tests.http_target.docs_examples import doc_examples, write_models

from eunomia.errors import EunomiaError
from eunomia.matrix import load_scenario_matrix, load_task_matrix
from eunomia.models import ChatMessage, ChatRequest, get_model, load_config, resolve_spec
from eunomia.models.providers.http import HttpProvider
from eunomia.targets import TargetConfig, build_target
from eunomia.targets.http import HttpTarget


def _load(tmp_path: Path, text: str) -> EunomiaError:
    path = tmp_path / "models.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(EunomiaError) as caught:
        load_config(path)
    return caught.value


def _problems(error: EunomiaError) -> list[str]:
    return [str(d) for d in error.diagnostics]


BAD = """\
models:
  a:
    http:
      url: "ftp://host/x"
      answer: $.x
  b:
    http:
      url: "https://:80/x"
      answer: $.x
  c:
    http:
      url: https://c.example.com
      method: DELETE
      answer: "$.choices[0"
  d:
    http:
      url: https://d.example.com
      body:
        question: "{{ instuction }}"
      answer: $.x
  e:
    http:
      url: https://e.example.com
      body: |
        {"q": {{ instruction | tojson }},
         "x": {{ instruction | tojson }
      answer: $.x
  f:
    http:
      url: https://f.example.com
      method: get
      body: {q: "{{ instruction }}"}
      answer: $.x
  g:
    http:
      url: https://g.example.com
      body: {q: "{{ instruction }}"}
  h:
    http:
      url: https://h.example.com
      headers:
        "Bad Header": x
        X-Key: "Bearer ${MY KEY}"
      answer: $.x
  i:
    spec: openai:gpt-4o-mini
    http: {url: "https://i.example.com", answer: $.x}
  j:
    http:
      url: https://j.example.com
      feedback: {items: $.data, fields: {titel: $.t}}
      usage: {}
"""


def test_every_problem_is_reported_with_file_line_and_key(tmp_path: Path) -> None:
    problems = _problems(_load(tmp_path, BAD))
    text = "\n".join(problems)
    expected = [
        ("models.yml:4 [models.a.http.url]", "only absolute http:// or https:// URLs"),
        ("models.yml:8 [models.b.http.url]", "only absolute http:// or https:// URLs"),
        ("models.yml:13 [models.c.http.method]", "'GET', 'POST', 'PUT' or 'PATCH'"),
        ("models.yml:14 [models.c.http.answer]", "invalid JSON path '$.choices[0'"),
        ("models.yml:18 [models.d.http.body]", "unknown name 'instuction' in the template "
                                               "(in question); known: exercise, history,"),
        ("models.yml:24 [models.e.http.body]", "template syntax error on line 2 of the "
                                               "template"),
        ("[models.f.http]", "a GET request has no body"),
        ("[models.g.http]", "say where the answer is"),
        ("[models.h.http.headers.Bad Header.[key]]", "should match pattern"),
        ("models.yml:43 [models.h.http.headers.X-Key]",
         "write an environment variable as ${NAME}"),
        ("[models.j.http.feedback.fields.titel.[key]]", "'title'"),
        ("[models.j.http.usage]", "give 'items' or the token paths"),
    ]
    for where, what in expected:
        assert any(where in p and what in p for p in problems), (where, what, text)
    assert len(problems) == len(expected), text  # one problem, one message
    # the alias with both spec and http is caught by the consistency checks, once the
    # document is otherwise valid
    error = _load(tmp_path, "models:\n  i:\n    spec: openai:gpt-4o-mini\n"
                            "    http: {url: 'https://i.example.com', answer: $.x}\n")
    assert any("models.yml:3 [models.i.spec]" in p and "an HTTP system has no 'spec'" in p
               for p in _problems(error))
    error = _load(tmp_path, "providers:\n  http: {type: openai}\n")
    assert any("[providers.http]" in p and "reserved" in p for p in _problems(error))


def test_specs_resolve_by_name_and_by_alias(tmp_path: Path) -> None:
    path = write_models(tmp_path, "custom-api", base_url="https://support.example.com")
    with path.open("a", encoding="utf-8") as f:
        f.write("  bot-warm:\n    spec: http:support-bot\n    settings: {temperature: 0.7}\n")
    config = load_config(path)
    by_spec = resolve_spec("http:support-bot", config)
    assert (by_spec.spec, by_spec.backend, by_spec.model) == ("http:support-bot", "http",
                                                           "support-bot")
    assert by_spec.http is not None and by_spec.http.where.endswith(
        "models.yml:3 [models.support-bot.http]")
    assert by_spec.price is not None and by_spec.price.input_cost_per_million == 0.5
    assert resolve_spec("support-bot", config).spec == "http:support-bot"
    warm = resolve_spec("bot-warm", config)
    assert warm.spec == "http:support-bot" and warm.settings.temperature == 0.7
    assert warm.alias == "bot-warm"
    assert config.price_table().lookup("http:support-bot") is not None
    with pytest.raises(EunomiaError, match=r"unknown HTTP system 'http:nope'.*support-bot"):
        resolve_spec("http:nope", config)
    # a spec travels to remote workers (Ray) pickled, its config and location with it
    again = pickle.loads(pickle.dumps(by_spec))
    assert again.http == by_spec.http and again.http is not None
    assert again.http.where == by_spec.http.where


def test_build_needs_the_environment_and_the_right_kind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_models(tmp_path, "custom-api", "athena-gateway", base_url="https://x.example.com")
    monkeypatch.delenv("SUPPORT_BOT_KEY", raising=False)
    with pytest.raises(EunomiaError, match=r"SUPPORT_BOT_KEY \(header X-Api-Key\), not set "
                                           r"\(.*models.yml:3 \[models.support-bot.http\]\)"):
        get_model("http:support-bot", load_config())
    monkeypatch.setenv("SUPPORT_BOT_KEY", "k-12345")
    assert isinstance(get_model("http:support-bot", load_config()), HttpProvider)
    monkeypatch.setenv("ATHENA_GATEWAY_KEY", "gw-12345")
    target = build_target("http:athena-gateway", TargetConfig())
    assert isinstance(target, HttpTarget) and target.name == "http:athena-gateway"
    with pytest.raises(EunomiaError, match="no 'answer' path, so it cannot answer task cases"):
        get_model("http:athena-gateway", load_config())
    with pytest.raises(EunomiaError, match=r"'submission'.*which task suites do not give"):
        HttpProvider(target.endpoint.model_copy(update={
            "body": {"s": "{{ submission }}"}, "answer": "$.a"}), "http:x")
    with pytest.raises(EunomiaError, match="invalid target 'http:'"):
        build_target("http:", TargetConfig())


def test_the_secret_is_in_no_identity_nor_described_request(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_models(tmp_path, "openai-app", base_url="https://x.example.com")
    with (tmp_path / "models.yml").open("a", encoding="utf-8") as f:
        f.write("  literal:\n    http:\n      url: https://y.example.com\n"
                "      headers: {X-Api-Key: literal-key-123, X-Model: big}\n"
                "      body: {q: '{{ instruction }}'}\n      answer: $.a\n")
    monkeypatch.setenv("MYAPP_API_KEY", "sk-very-secret-1")
    provider = get_model("http:myapp", load_config())
    assert isinstance(provider, HttpProvider)
    assert provider.client.headers["Authorization"] == "Bearer sk-very-secret-1"
    assert "sk-very-secret-1" not in provider.cache_identity
    assert '"Authorization": null' in provider.cache_identity  # a credential: by name
    literal = get_model("http:literal", load_config())
    assert isinstance(literal, HttpProvider)
    assert "literal-key-123" not in literal.cache_identity  # a credential-like header
    assert '"X-Model": "big"' in literal.cache_identity  # other headers change answers
    described = provider.request_body(ChatRequest(messages=(
        ChatMessage(role="user", content="hi"),)))
    assert b"sk-very-secret-1" not in described and b'"messages":[{"role":"user"' in described
    assert provider.cache_across_runs is False


def test_the_documented_examples_are_the_tested_ones() -> None:
    assert sorted(doc_examples()) == ["athena-gateway", "custom-api", "openai-app"]


def test_an_unknown_filter_is_caught_when_read(tmp_path: Path) -> None:
    error = _load(tmp_path, "models:\n  x:\n    http:\n      url: https://x.example.com\n"
                            "      body: '{{ instruction | tojsn }}'\n      answer: $.a\n")
    assert any("models.yml:5 [models.x.http.body]" in p and "tojsn" in p
               for p in _problems(error))


def test_matrix_files_name_http_systems(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_models(tmp_path, "custom-api", "athena-gateway", base_url="https://x.example.com")
    (tmp_path / "suite.yaml").write_text("- {case_id: a, instruction: hi}\n", encoding="utf-8")
    (tmp_path / "tasks.yml").write_text(
        "suites: [suite.yaml]\nmodels:\n  - http:support-bot\n"
        "  - {name: bot-hot, spec: support-bot, settings: {temperature: 1.0}}\n",
        encoding="utf-8")
    matrix = load_task_matrix(tmp_path / "tasks.yml", load_config())
    resolved = [m.resolve(load_config()) for m in matrix.models]
    assert [(n, s.spec, s.settings.temperature) for n, s in resolved] == [
        ("http:support-bot", "http:support-bot", 0.0), ("bot-hot", "http:support-bot", 1.0)]
    monkeypatch.setenv("ATHENA_GATEWAY_KEY", "gw-12345")
    (tmp_path / "scenarios.yml").write_text(
        "scenarios: []\ntargets: [http:athena-gateway, http:nothing]\n", encoding="utf-8")
    with pytest.raises(EunomiaError) as caught:
        load_scenario_matrix(tmp_path / "scenarios.yml")
    problems = _problems(caught.value)
    assert len(problems) == 1 and "scenarios.yml:2 [targets[1]]" in problems[0]
    assert "unknown HTTP system 'http:nothing'" in problems[0]


def test_the_readme_shows_the_documents_examples_unchanged() -> None:
    from tests.http_target.docs_examples import DOC, doc_examples

    readme = DOC.parents[1] / "README.md"
    in_readme = doc_examples(readme)
    assert set(in_readme) == {"openai-app", "custom-api", "athena-gateway"}
    assert in_readme == {k: v for k, v in doc_examples().items() if k in in_readme}
