"""Matrix files: which suites to evaluate, with which targets or candidate models, and how.

``eunomia run --matrix FILE`` reads a :class:`ScenarioMatrix`, ``eunomia eval --matrix FILE``
a :class:`TaskMatrix`; see :mod:`eunomia.matrix._file` for the format.
"""

from eunomia.matrix._file import (
    MatrixModel,
    MatrixTarget,
    ScenarioMatrix,
    TaskMatrix,
    load_scenario_matrix,
    load_task_matrix,
)

__all__ = [
    "MatrixModel",
    "MatrixTarget",
    "ScenarioMatrix",
    "TaskMatrix",
    "load_scenario_matrix",
    "load_task_matrix",
]
