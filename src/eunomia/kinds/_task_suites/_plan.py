"""What the plans and target runs of the kinds over task suites share: the suites stored with
the run (a chunk at a time, with the run's prices), and a target's turn over them (each
suite's rubric, each category's guidance read once, a finished case's requests counted)."""

from __future__ import annotations

from collections.abc import Sequence

from eunomia.judge import Rubric
from eunomia.kinds import Finished, Item, Job, Plan, Summary, TargetRun
from eunomia.kinds._task_suites._prompts import Guidance, suite_rubrics
from eunomia.pricing import PriceTable
from eunomia.store import CaseRow, RunInfo, RunStore
from eunomia.tasks import CallRecord, TaskSuite, write_snapshot


class SuitePlan(Plan[Job, Item, Summary]):
    """A plan over task suites: :attr:`suites` (stored by :meth:`snapshot`, then read from
    the store) priced by :attr:`prices`."""

    suites: Sequence[TaskSuite]
    prices: PriceTable

    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        # stored chunk by chunk; the run then reads its cases from the store, not the file
        prices = self.prices.to_json()
        self.suites = [write_snapshot(store, run, suite, prices) for suite in self.suites]


class SuiteTargetRun(TargetRun[Job, Item]):
    """One target's turn over every suite of the run."""

    def __init__(self, name: str, suites: Sequence[TaskSuite], prices: PriceTable,
                 concurrency: int) -> None:
        super().__init__(name, concurrency)
        self.suites = suites
        self.prices = prices
        self.rubrics: dict[str, Rubric] = suite_rubrics(suites)
        """The suites that name a rubric of their own (checked when their file was loaded)."""
        self.guidance = Guidance()


def finished(row: tuple[CaseRow, list[tuple[str, bytes]]], item: Item,
             calls: Sequence[CallRecord], failed_attempts: int = 0) -> Finished[Item]:
    """A finished case: its row and blobs, the kind's record, the requests its calls made
    (with the attempts of a call that failed) and the answers taken from the cache."""
    asked = sum(c.attempts for c in calls if not c.cached) + failed_attempts
    return Finished(row[0], row[1], None, item, requests=asked,
                    cache_hits=sum(c.cached for c in calls))
