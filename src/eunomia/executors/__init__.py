"""Where a run's calls are made: in this process (``local``) or on a Ray cluster (``ray``)."""

from __future__ import annotations

from eunomia.errors import EunomiaError
from eunomia.executors._base import Executor, LocalExecutor, Submit, Work
from eunomia.executors._model import ChatFailure, ChatJob, ChatOutcome, ModelChat, submit_chat
from eunomia.executors._target import (
    CallFailure,
    CallResult,
    CaseCall,
    TargetCall,
    TargetRecipe,
    scenario_caller,
    target_work,
)

EXECUTORS = ("local", "ray")

RAY_MISSING = ("the ray executor needs Ray, an optional extra: install it with "
               "pip install 'eunomia[ray]'")


def make_executor(name: str, *, ray_address: str | None = None) -> Executor:
    """The executor called ``name``; Ray is imported only when it is asked for."""
    if name == "local":
        if ray_address:
            raise EunomiaError("--ray-address applies to --executor ray only")
        return LocalExecutor()
    if name == "ray":
        try:
            from eunomia.executors.ray import RayExecutor
        except ImportError as exc:
            raise EunomiaError(f"{RAY_MISSING} ({exc})") from None
        return RayExecutor(ray_address)
    raise EunomiaError(f"unknown executor {name!r}: choose {' or '.join(EXECUTORS)}")


__all__ = [
    "EXECUTORS",
    "CallFailure",
    "CallResult",
    "CaseCall",
    "ChatFailure",
    "ChatJob",
    "ChatOutcome",
    "Executor",
    "LocalExecutor",
    "ModelChat",
    "Submit",
    "TargetCall",
    "TargetRecipe",
    "Work",
    "make_executor",
    "scenario_caller",
    "submit_chat",
    "target_work",
]
