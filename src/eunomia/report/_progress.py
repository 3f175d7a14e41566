"""A progress bar that stays cheap at thousands of cases per second."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from eunomia import defaults


class CaseProgress:
    """Counts finished cases; rich redraws on its own timer, so ``advance`` is O(1)."""

    def __init__(self, console: Console, total: int, label: str) -> None:
        self._enabled = console.is_terminal
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            refresh_per_second=defaults.PROGRESS_REFRESH_PER_S,
            transient=False,
            disable=not self._enabled,
        )
        self._task: TaskID = self._progress.add_task(label, total=total, failed=0)
        self._failed = 0

    def __enter__(self) -> CaseProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def advance(self, failed: bool) -> None:
        if not self._enabled:  # not a terminal: nothing is drawn, nothing to count
            return
        if failed:
            self._failed += 1
            self._progress.update(self._task, advance=1, failed=self._failed)
        else:
            self._progress.advance(self._task)
