"""``eunomia view``: the run store's reports served on this machine (aiohttp)."""

from eunomia.viewer._app import RUN_NAME_RE, create_app, serve_forever

__all__ = ["RUN_NAME_RE", "create_app", "serve_forever"]
