"""The HTML report of a run or of two runs compared: one self-contained page.

``eunomia report`` writes it to a file, ``eunomia view`` serves it from the store.
Everything shown that came from a model or a submission is escaped (Jinja2 autoescape
plus escaped SVG labels), and every page forbids scripts (Content-Security-Policy).
Charts are matplotlib figures written as static SVG (``_charts.py``, ``_plots.py``;
matplotlib is imported on the first chart drawn); a case's diagrams are drawn by
``apollon.render_svg`` (``_diagrams.py``).
The data of a page (``_model.py``) is built from the store (``_data.py``), each kind
filling in its own groups; ``_render.py`` turns it into HTML.
"""

from eunomia.report._kind import ReportKind
from eunomia.report.html._agreement import (
    AgreementPoint,
    AgreementRow,
    AgreementSeries,
    agreement_chart,
    agreement_rows,
    agreement_series,
)
from eunomia.report.html._costs import CostBook
from eunomia.report.html._data import (
    build_run_report,
    generic_group,
    latencies,
    list_run_listings,
    targets_of,
)
from eunomia.report.html._diagrams import mark_feedback, read_diagram
from eunomia.report.html._model import (
    NONE_LABEL,
    CaseDiagram,
    CaseLine,
    CasePointsCells,
    ConfusionMatrix,
    Consistency,
    ConsistencyCase,
    CriterionMiss,
    CriterionRow,
    FailedCase,
    FeedbackView,
    GroupReport,
    InstructionAgreement,
    InstructionRow,
    LatencyStats,
    Metric,
    ModelCost,
    RunListing,
    RunReport,
    SectionTable,
    WorstCase,
)
from eunomia.report.html._plots import Fit, Series, scatter_chart
from eunomia.report.html._render import (
    CSP,
    render_comparison_page,
    render_error,
    render_report,
    render_run_list,
    write_report,
)

__all__ = [
    "CSP",
    "NONE_LABEL",
    "AgreementPoint",
    "AgreementRow",
    "AgreementSeries",
    "CaseDiagram",
    "CaseLine",
    "CasePointsCells",
    "ConfusionMatrix",
    "Consistency",
    "ConsistencyCase",
    "CostBook",
    "CriterionMiss",
    "CriterionRow",
    "FailedCase",
    "FeedbackView",
    "Fit",
    "GroupReport",
    "InstructionAgreement",
    "InstructionRow",
    "LatencyStats",
    "Metric",
    "ModelCost",
    "ReportKind",
    "RunListing",
    "RunReport",
    "SectionTable",
    "Series",
    "WorstCase",
    "agreement_chart",
    "agreement_rows",
    "agreement_series",
    "build_run_report",
    "generic_group",
    "latencies",
    "list_run_listings",
    "mark_feedback",
    "read_diagram",
    "render_comparison_page",
    "render_error",
    "render_report",
    "render_run_list",
    "scatter_chart",
    "targets_of",
    "write_report",
]
