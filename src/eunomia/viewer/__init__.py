"""The pages of stored runs (a run's report, two runs compared) and ``eunomia view``, which
serves them on this machine (aiohttp)."""

from eunomia.viewer._app import RUN_NAME_RE, create_app, serve_forever
from eunomia.viewer._pages import compare_stored, render_comparison, render_run, run_report

__all__ = [
    "RUN_NAME_RE",
    "compare_stored",
    "create_app",
    "render_comparison",
    "render_run",
    "run_report",
    "serve_forever",
]
