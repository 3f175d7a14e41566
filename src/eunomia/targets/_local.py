"""What the targets that answer in this process share (``baseline:``, ``recorded``): they ask
no one, so there is nothing to open or close; their request is described as Athena's (stored,
so reports can draw the diagram) and their answers are cached by their name."""

from __future__ import annotations

from eunomia.scenarios import Scenario, TestCase
from eunomia.targets.athena import AthenaTarget


class AnsweredHere:
    """The base of a :class:`eunomia.targets.FeedbackTarget` that asks no one."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._formatter = AthenaTarget(None)

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    @property
    def cache_identity(self) -> str:
        return self.name

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        """The Athena request of the case."""
        return bytes(self._formatter.describe_request(scenario, case))
