"""Systems under test: anything that returns feedback for a test case."""

from eunomia.targets._base import FeedbackTarget, TargetError, TargetResponse

__all__ = ["FeedbackTarget", "TargetError", "TargetResponse"]
