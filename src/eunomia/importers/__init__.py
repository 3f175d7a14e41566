"""Importers: data from other systems made into Eunomia's own files (an Athena exercise
export into a scenario folder)."""

from eunomia.importers._athena import (
    DEFAULT_SERVER_URL,
    FEEDBACK_ROLES,
    Imported,
    ImportOptions,
    write_scenario,
)
from eunomia.importers._athena_export import AthenaExport, read_export

__all__ = [
    "DEFAULT_SERVER_URL",
    "FEEDBACK_ROLES",
    "AthenaExport",
    "ImportOptions",
    "Imported",
    "read_export",
    "write_scenario",
]
