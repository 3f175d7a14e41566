"""Diagnostics: key paths, redaction of secrets, YAML errors with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from eunomia.errors import (
    Diagnostic,
    EunomiaError,
    Severity,
    error,
    has_errors,
    join_key,
    key_path,
    redact,
    warning,
)
from eunomia.yamlfile import YamlFileError, from_yaml_error, parse_yaml

# --- key paths ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("loc", "rendered"),
    [
        (("criteria", 2, "instructions", 0, "credits"), "criteria[2].instructions[0].credits"),
        (("exercise", "title"), "exercise.title"),
        (("default_expected", 3), "default_expected[3]"),
        (("llm_costs", "gpt-4o", "input_cost_per_million"),
         "llm_costs.gpt-4o.input_cost_per_million"),
        ((0, "id"), "[0].id"),
        (("matrix", 1, 2), "matrix[1][2]"),
        ((), ""),
    ],
)
def test_key_path(loc: tuple[int | str, ...], rendered: str) -> None:
    assert key_path(loc) == rendered


@pytest.mark.parametrize(
    ("prefix", "loc", "joined"),
    [
        ("", ("a", 1), "a[1]"),
        ("models", (), "models"),
        ("models", ("gpt", "price"), "models.gpt.price"),
        ("items", (2, "name"), "items[2].name"),
    ],
)
def test_join_key(prefix: str, loc: tuple[int | str, ...], joined: str) -> None:
    assert join_key(prefix, loc) == joined


def test_diagnostic_rendering_names_file_line_column_and_key() -> None:
    d = Diagnostic(Severity.ERROR, Path("s/manifest.yml"), "bad", "criteria[0].id", 12, 5)
    assert str(d) == "error: s/manifest.yml:12:5 [criteria[0].id]: bad"
    assert str(warning(None, "hmm")) == "warning: <input>: hmm"
    assert str(error(Path("f.yml"), "x", line=3)) == "error: f.yml:3: x"


def test_has_errors_and_eunomia_error() -> None:
    w = warning(Path("a"), "w")
    e = error(Path("b"), "e", key="k")
    assert not has_errors([w])
    assert has_errors([w, e])
    exc = EunomiaError("invalid manifest", [e])
    assert str(exc) == "invalid manifest\n  error: b [k]: e"
    assert exc.diagnostics == [e]


# --- redaction -------------------------------------------------------------------------------


def test_redact_removes_a_given_secret() -> None:
    text = "POST failed: header had s3cr3t-VALUE-42 in it; s3cr3t-VALUE-42 again"
    out = redact(text, ["s3cr3t-VALUE-42"])
    assert "s3cr3t-VALUE-42" not in out
    assert out.count("***") == 2


def test_redact_ignores_empty_and_very_short_secrets() -> None:
    assert redact("a b c", ["", "b"]) == "a b c"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Authorization: xyz", "xyz"),
        ("authorization=abc123 next", "abc123"),
        ('{"Authorization": "topsecret", "x": 1}', "topsecret"),
        ("api_key: sk-live-123", "sk-live-123"),
        ("API-KEY=k-999", "k-999"),
        ("token: tok_abc", "tok_abc"),
        ("secret='pssst'", "pssst"),
    ],
)
def test_redact_removes_secret_looking_values(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert "***" in out


def test_redact_keeps_the_key_name_and_ordinary_text() -> None:
    assert redact("Authorization: xyz") == "Authorization: ***"
    assert redact("nothing to hide here: ok") == "nothing to hide here: ok"


@pytest.mark.parametrize("scheme", ["Bearer", "Basic", "Token"])
def test_redact_removes_the_credential_after_an_auth_scheme(scheme: str) -> None:
    out = redact(f"request headers: Authorization: {scheme} sk-secret123")
    assert "sk-secret123" not in out


# --- YAML errors ------------------------------------------------------------------------------


TAB_YAML = "criteria:\n  - id: a\n\ttitle: b\n"
TAB_INDENTED_KEY = "exercise:\n\ttitle: T\n"


@pytest.mark.parametrize(("text", "line"), [(TAB_YAML, 3), (TAB_INDENTED_KEY, 2)])
def test_yaml_tab_with_the_pure_python_loader_mentions_tabs_and_the_line(
    text: str, line: int
) -> None:
    with pytest.raises(yaml.YAMLError) as info:
        yaml.load(text, Loader=yaml.SafeLoader)
    diag = from_yaml_error(Path("m.yml"), info.value)
    assert diag.severity is Severity.ERROR
    assert diag.file == Path("m.yml")
    assert diag.line == line
    assert "tab" in diag.message.lower()
    assert str(diag).startswith(f"error: m.yml:{line}:")


@pytest.mark.parametrize(("text", "line"), [(TAB_YAML, 3), (TAB_INDENTED_KEY, 2)])
def test_yaml_tab_through_parse_yaml_names_the_line(text: str, line: int) -> None:
    with pytest.raises(YamlFileError) as info:
        parse_yaml(text, Path("m.yml"))
    diag = info.value.diagnostic
    assert diag.file == Path("m.yml")
    assert diag.line == line
    assert "invalid YAML" in diag.message


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="libyaml not installed")
def test_yaml_tab_through_parse_yaml_mentions_tabs() -> None:
    # "exercise:\n\ttitle: T" -> libyaml: "found character that cannot start any token"
    with pytest.raises(YamlFileError) as info:
        parse_yaml(TAB_INDENTED_KEY, Path("m.yml"))
    assert "tab" in info.value.diagnostic.message.lower()


def test_yaml_error_without_a_mark() -> None:
    diag = from_yaml_error(Path("x.yml"), yaml.YAMLError("something odd\nmore"))
    assert diag.line is None
    assert diag.message == "invalid YAML: something odd"


def test_yaml_error_for_an_unclosed_bracket_names_a_line() -> None:
    with pytest.raises(YamlFileError) as info:
        parse_yaml("a: 1\nb: [1, 2\nc: 3\n", Path("y.yml"))
    diag = info.value.diagnostic
    assert diag.file == Path("y.yml")
    assert diag.line is not None and 2 <= diag.line <= 4
    assert diag.message.startswith("invalid YAML: ")
