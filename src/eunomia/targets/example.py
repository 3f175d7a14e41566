"""The ``example`` target: the built-in example server, started on 127.0.0.1 for the run.

Requests go over real HTTP through :class:`AthenaTarget`, exactly as they would to
an Athena module, so this exercises the whole client path with no outside service.
"""

from __future__ import annotations

from aiohttp import web

from eunomia import __version__
from eunomia.scenarios import Scenario, TestCase
from eunomia.targets._base import TargetResponse
from eunomia.targets.athena import AthenaTarget


class ExampleServerTarget:
    name = "example"

    def __init__(self, max_connections: int) -> None:
        self._max_connections = max_connections
        self._runner: web.AppRunner | None = None
        self._client: AthenaTarget | None = None
        self.url: str | None = None
        # Builds request bodies before the server exists; keeps the per-scenario exercise
        # JSON so it is serialised once, not once per case.
        self._formatter = AthenaTarget(None)

    async def open(self) -> None:
        from eunomia.example_server import start_example_server

        if self._runner is None:
            self._runner, self.url = await start_example_server("127.0.0.1", 0)
            self._client = AthenaTarget(self.url, max_connections=self._max_connections)
            await self._client.open()

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def cache_identity(self) -> str:
        # The server's port changes every run; its answers do not.
        return f"example:{__version__}"

    def describe_request(self, scenario: Scenario, case: TestCase) -> bytes:
        return self._formatter.request_body(scenario, case)

    async def feedback(self, scenario: Scenario, case: TestCase) -> TargetResponse:
        if self._client is None:
            await self.open()
        assert self._client is not None
        return await self._client.feedback(scenario, case)
