"""asyncio.run() formats the finished main task, and so its result, when it restores the
SIGINT handler: a RunReport's repr must stay short however large the run (the generated one
cost ~0.2 ms of CPU per case and tens of MB at 5,000 cases)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from eunomia.kinds import Exported
from eunomia.run import RunReport


def _big_report() -> RunReport:
    summary = {"outcomes": [{"case": f"c{i}", "feedback": ["x" * 200] * 7}
                            for i in range(2000)]}
    exported = [Exported("t", Path("/tmp/r"), summary, files=[Path("/tmp/r/a")] * 2000)]
    return RunReport("r", Path("/tmp/r"), Path("/tmp/r/eunomia.db"), kind="scenarios",
                     exported=exported, requests_made=2000)


def test_a_large_report_has_a_short_repr() -> None:
    text = repr(_big_report())
    assert len(text) < 300
    assert "run_name='r'" in text and "requests_made=2000" in text


def test_the_finished_main_task_formats_quickly() -> None:
    async def main() -> RunReport:
        return _big_report()

    task_text: list[str] = []

    async def outer() -> None:
        task = asyncio.ensure_future(main())
        await task
        task_text.append(repr(task))

    asyncio.run(outer())
    assert len(task_text[0]) < 600
