"""Opening a run in the store: a new one, or a stopped one to resume."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eunomia.errors import EunomiaError
from eunomia.kinds import kind_entry
from eunomia.store import RunInfo, RunStore


def open_run(store: RunStore, kind: str, run_name: str, targets: Sequence[str],
             settings: dict[str, Any], *, resume: bool) -> RunInfo:
    """A new run of ``kind`` (its name must be free), or with ``resume`` the stored run of
    that name, which must be of the same kind and targets."""
    if not resume:
        return store.create_run(run_name, kind, list(targets), settings)
    run = store.require_run(run_name)
    if run.kind != kind:
        raise EunomiaError(f"run {run_name!r} is a {run.kind} run; resume it with "
                           f"'eunomia {kind_entry(run.kind).command} --resume'")
    if run.targets != list(targets):
        raise EunomiaError(f"run {run_name!r} was made with {run.targets}, not {list(targets)}")
    store.set_run_status(run, "running")
    return run
