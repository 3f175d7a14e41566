"""Build a target from its spec: ``athena``, ``example``, ``llm:<model spec>``,
``http:<name>`` (an HTTP system of ``models.yml``), ``baseline:<name>`` or ``recorded``
(the feedback recorded in the scenario, replayed).

Athena and HTTP targets take options after ``?`` (as a URL's query; they are not sent):

* ``graded=false`` (Athena): send ``isGraded: false``, the student-facing request (the current
  module rewrites its feedback in a second LLM call); ``true`` is the default;
* ``llm_usage=<URL>``: meter the system's LLM traffic at that ``eunomia serve-model`` (its
  base URL, ``.../v1`` or ``.../eunomia/usage``): each case's cost then comes from the calls
  made while its request was in flight (see :mod:`eunomia.metering`).

``athena:http://127.0.0.1:5008/feedback_suggestions?graded=false&llm_usage=http://127.0.0.1:8000``
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.targets._base import FeedbackTarget


@dataclass(frozen=True, slots=True)
class TargetConfig:
    """How targets are built; stored with a run (no secret values) so it can be resumed."""

    server_url: str | None = None
    secret_env: str = defaults.ATHENA_SECRET_ENV
    x_server_url: str = defaults.ATHENA_X_SERVER_URL
    max_connections: int = defaults.CONCURRENCY
    prompt_dir: Path | None = None
    id_base: int | None = None
    """Start of the ids Eunomia sends to Athena (``athena`` targets); None: ``2**52``. Ids stay
    below ``2**53``; an LMS numbers its exercises and submissions from 1, far below."""
    id_seed: str = ""
    """Picks the run's submission ids (give the run's name): every run and scenario gets its
    own ids, so no run overwrites another's submissions stored in Athena. "" gives the ids
    that do not depend on the run (those stored with the request and used for the cache)."""
    athena_graded: bool = True
    """``isGraded`` of Athena requests, unless a target's spec says (``?graded=``)."""
    llm_usage: str | None = None
    """Meter every HTTP target's LLM traffic at this usage URL, unless a target's spec says
    (``?llm_usage=``)."""


_OPTIONS = ("graded", "llm_usage")
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def split_options(spec: str) -> tuple[str, dict[str, str]]:
    """``spec`` without Eunomia's options (a URL's own query parameters stay) and the
    options; raises :class:`EunomiaError` for a repeated or empty one."""
    main, sep, query = spec.partition("?")
    if not sep:
        return spec, {}
    options: dict[str, str] = {}
    kept: list[tuple[str, str]] = []
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key not in _OPTIONS:
            kept.append((key, value))
            continue
        if key in options:
            raise EunomiaError(f"target {spec!r}: option {key!r} is given twice")
        if not value.strip():
            raise EunomiaError(f"target {spec!r}: option {key!r} needs a value")
        options[key] = value.strip()
    return (f"{main}?{urlencode(kept)}" if kept else main), options


def parse_bool(text: str, what: str) -> bool:
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``); an error naming ``what``."""
    value = _BOOLEANS.get(text.strip().lower())
    if value is None:
        raise EunomiaError(f"{what} must be true or false, not {text!r}")
    return value


def spec_kind(spec: str) -> str:
    """What a spec names: ``athena``, ``http``, ``llm``, ``baseline``... (its prefix)."""
    return spec.partition(":")[0].partition("?")[0]


def takes_options(spec: str) -> bool:
    """Whether a spec takes Eunomia's options after ``?`` (Athena and HTTP targets)."""
    return spec_kind(spec) in ("athena", "http")


def spec_base(spec: str) -> str:
    """The spec without Eunomia's options: ``athena?graded=false`` -> ``athena``."""
    return split_options(spec)[0] if takes_options(spec) else spec


def _graded(spec: str, options: dict[str, str], default: bool) -> bool:
    if "graded" not in options:
        return default
    return parse_bool(options["graded"], f"target {spec!r}: graded")


def target_specs() -> str:
    return defaults.TARGET_SPECS


def build_target(spec: str, config: TargetConfig) -> FeedbackTarget:
    """``--server-url`` (``config.server_url``) applies to plain ``athena`` targets only;
    ``athena:<url>`` names its own URL, so one run can compare several modules. Options after
    ``?`` (see the module docstring) override the config's."""
    options: dict[str, str] = {}
    metered = takes_options(spec)
    if metered:
        spec, options = split_options(spec)
    target = _build(spec, config, options)
    usage = options.get("llm_usage", config.llm_usage if metered else None)
    if usage:
        from eunomia.targets._metered import MeteredTarget

        return MeteredTarget(target, usage)
    return target


def _build(spec: str, config: TargetConfig, options: dict[str, str]) -> FeedbackTarget:
    prefix, _, rest = spec.partition(":")
    if prefix == "athena":
        from eunomia.targets.athena import AthenaTarget

        return AthenaTarget(rest or config.server_url,
                            secret=os.environ.get(config.secret_env) or None,
                            secret_env=config.secret_env,
                            x_server_url=config.x_server_url,
                            max_connections=config.max_connections,
                            id_base=config.id_base, id_seed=config.id_seed,
                            graded=_graded(spec, options, config.athena_graded))
    if "graded" in options:
        raise EunomiaError(f"target {spec!r}: graded applies to athena targets only")
    if prefix == "example" and not rest:
        from eunomia.targets.example import ExampleServerTarget

        return ExampleServerTarget(max_connections=config.max_connections)
    if prefix == "llm":
        from eunomia.targets.llm import LLMTarget, parse_target_spec

        return LLMTarget(parse_target_spec(spec), prompt_dir=config.prompt_dir)
    if prefix == "baseline":
        from eunomia.targets.baseline import BaselineTarget

        return BaselineTarget(rest or "default")
    if prefix == "recorded":
        from eunomia.targets.recorded import RecordedTarget

        return RecordedTarget(rest or "recorded")
    if prefix == "http":
        from eunomia.targets.http import build_http_target

        return build_http_target(spec, max_connections=config.max_connections)
    raise EunomiaError(f"unknown target {spec!r}: choose {target_specs()}")
