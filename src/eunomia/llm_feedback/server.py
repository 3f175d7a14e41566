"""The feedback engine served as an Athena module (``eunomia serve``), kept apart from
:mod:`eunomia.llm_feedback` so that using the engine does not load an HTTP server."""

from eunomia.llm_feedback._serve import create_engine_app, serve_forever, start_engine_server

__all__ = ["create_engine_app", "serve_forever", "start_engine_server"]
