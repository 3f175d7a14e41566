"""``eunomia serve-model``: any model Eunomia knows, above all the embedded ``local`` models,
behind the OpenAI chat-completions API (``/v1/models``, ``/v1/chat/completions``).

>>> served = served_model("local:qwen2.5-coder-0.5b", aliases=["gpt-local"])
>>> runner, url = await start_model_server(served)        # url: http://127.0.0.1:<port>/v1

The server answers as the model answers in-process: the same request gives the same text
and token counts through HTTP, streamed or not (see ``docs/serve-model.md``). With an
:class:`Upstream` it relays to another OpenAI-compatible endpoint instead. Either way it
records every call it serves and serves the record at ``GET /eunomia/usage``
(:mod:`eunomia.metering`).
"""

from eunomia.model_server._app import MAX_BODY_BYTES, create_app
from eunomia.model_server._relay import Upstream, relayed
from eunomia.model_server._serve import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    base_url,
    is_loopback,
    serve_forever,
    served_model,
    start_model_server,
)
from eunomia.model_server._served import Answer, ServedModel, ServeError
from eunomia.model_server._wire import ChatCompletionBody

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MAX_BODY_BYTES",
    "Answer",
    "ChatCompletionBody",
    "ServeError",
    "ServedModel",
    "Upstream",
    "base_url",
    "create_app",
    "is_loopback",
    "relayed",
    "serve_forever",
    "served_model",
    "start_model_server",
]
