"""Build a target from its spec: ``athena``, ``example``, ``llm:<model spec>``,
``http:<name>`` (an HTTP system of ``models.yml``), ``baseline:<name>`` or ``recorded``
(the feedback recorded in the scenario, replayed)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

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


def target_specs() -> str:
    return defaults.TARGET_SPECS


def build_target(spec: str, config: TargetConfig) -> FeedbackTarget:
    """``--server-url`` (``config.server_url``) applies to plain ``athena`` targets only;
    ``athena:<url>`` names its own URL, so one run can compare several modules."""
    prefix, _, rest = spec.partition(":")
    if prefix == "athena":
        from eunomia.targets.athena import AthenaTarget

        return AthenaTarget(rest or config.server_url,
                            secret=os.environ.get(config.secret_env) or None,
                            secret_env=config.secret_env,
                            x_server_url=config.x_server_url,
                            max_connections=config.max_connections,
                            id_base=config.id_base, id_seed=config.id_seed)
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
