"""Systems under test: anything that returns feedback for a test case."""

from eunomia.targets._base import FeedbackTarget, TargetError, TargetResponse
from eunomia.targets._factory import (
    TargetConfig,
    build_target,
    parse_bool,
    spec_base,
    spec_kind,
    split_options,
    takes_options,
    target_specs,
)

__all__ = [
    "FeedbackTarget",
    "TargetConfig",
    "TargetError",
    "TargetResponse",
    "build_target",
    "parse_bool",
    "spec_base",
    "spec_kind",
    "split_options",
    "takes_options",
    "target_specs",
]
