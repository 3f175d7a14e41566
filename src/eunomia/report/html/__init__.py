"""The HTML report of a run or of two runs compared: one self-contained page.

``eunomia report`` writes it to a file, ``eunomia view`` serves it from the store.
Everything shown that came from a model or a submission is escaped (Jinja2 autoescape
plus escaped SVG labels), and every page forbids scripts (Content-Security-Policy).
"""

from eunomia.report.html._data import RunListing, RunReport, build_run_report, list_run_listings
from eunomia.report.html._render import (
    CSP,
    render_comparison,
    render_comparison_page,
    render_error,
    render_report,
    render_run,
    render_run_list,
    write_report,
)

__all__ = [
    "CSP",
    "RunListing",
    "RunReport",
    "build_run_report",
    "list_run_listings",
    "render_comparison",
    "render_comparison_page",
    "render_error",
    "render_report",
    "render_run",
    "render_run_list",
    "write_report",
]
