"""The evaluation engine: one run loop for every kind of evaluation.

:func:`run_evaluation` runs a kind's :class:`eunomia.kinds.Plan`; :func:`export_run`
writes a stored run's files again. The engine knows nothing of SGIs or judges: what is
kind-specific comes from :mod:`eunomia.kinds`.
"""

from eunomia.run._engine import RunReport, run_evaluation
from eunomia.run._export import export_run, write_run_file
from eunomia.run._open import open_run

__all__ = ["RunReport", "export_run", "open_run", "run_evaluation", "write_run_file"]
