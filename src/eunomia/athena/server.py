"""Serving the Athena module contract (an aiohttp app), kept apart from :mod:`eunomia.athena`
so that reading the contract does not load an HTTP server."""

from eunomia.athena._module_server import (
    DEFAULT_MODULE_NAME,
    MAX_BODY_BYTES,
    MODULE_PATH,
    GradeFunction,
    create_module_app,
    manager_path,
    module_url,
    start_module_server,
)

__all__ = [
    "DEFAULT_MODULE_NAME",
    "MAX_BODY_BYTES",
    "MODULE_PATH",
    "GradeFunction",
    "create_module_app",
    "manager_path",
    "module_url",
    "start_module_server",
]
