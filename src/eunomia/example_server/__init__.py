"""The built-in example feedback server: a rule-based Athena module for class diagrams.

It speaks the Athena ``feedback_suggestions`` contract and really inspects the
submitted diagram, so ``eunomia`` can be tried end to end without an LLM.
"""

from eunomia.example_server._app import MODEL_NAME, create_app
from eunomia.example_server._server import serve_forever, start_example_server

__all__ = ["MODEL_NAME", "create_app", "serve_forever", "start_example_server"]
