"""What Athena's answers mean where their text misleads (found running the real module,
ls1intum/Athena a373df28; see docs/peer-athena.md).

* The module manager answers ``401 {"detail": "Invalid API secret."}`` both for a wrong secret
  and for an ``X-Server-URL`` that is not one of its LMS deployments (``deployments.ini``:
  ``http://localhost:8080`` and ``http://localhost:3000`` upstream), the secret being right.
* The modeling module fails with ``500 Internal Server Error`` on an Apollon version-2 diagram
  (elements and relationships as arrays): its parser expects version 3 (objects by id).
* Its ``meta.totalUsage.cost`` prices input tokens at the output rate, from prices in its
  ``.env`` whatever model answered (kept as the system's own figure, never used as Eunomia's).
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import urlsplit

MANAGER_PATH = "/modules/"
"""A manager routes ``/modules/<type>/<module>/...``; a module serves ``/feedback_suggestions``."""
MANAGER_DEPLOYMENTS = ("http://localhost:8080", "http://localhost:3000")
"""The LMS deployments of the manager's upstream ``deployments.ini``."""


def is_manager_url(url: str) -> bool:
    """True for a module manager's route to a module (``.../modules/...``)."""
    return MANAGER_PATH in urlsplit(url).path


def is_apollon_v2(diagram_json: str) -> bool:
    """True when the diagram text is an Apollon version-2 diagram (arrays, not objects)."""
    try:
        diagram = json.loads(diagram_json)
    except (ValueError, TypeError):
        return False
    return isinstance(diagram, dict) and (
        isinstance(diagram.get("elements"), list)
        or isinstance(diagram.get("relationships"), list))


def unauthorized_hint(url: str, *, secret_env: str | None, secret_sent: bool,
                      x_server_url: str) -> str:
    """What a 401 from ``url`` can mean, in one sentence."""
    var = f"${secret_env}" if secret_env else "the secret"
    if not secret_sent:
        return (f"no Authorization header was sent: {var} is not set" if secret_env
                else "no secret was given, so no Authorization header was sent")
    if is_manager_url(url):
        return (f"from an Athena module manager this means either a wrong secret ({var}) or an "
                f"X-Server-URL ({x_server_url}) that is not one of the manager's LMS deployments "
                f"(upstream: {', '.join(MANAGER_DEPLOYMENTS)}; set it with --x-server-url)")
    return f"the module refused the secret; check {var}"


V2_HINT = ("the submission is an Apollon version-2 diagram (elements as arrays); Athena's "
           "modeling module is known to fail on these: convert it to version 3")


def reported_cost(total_usage: Any) -> float | None:
    """``meta.totalUsage.cost`` as a number, when the system sent one (None when it sent none
    or no number); a ValueError for an impossible one (``NaN``, ``Infinity``, below 0), which
    is never read as unknown."""
    if not isinstance(total_usage, dict):
        return None
    cost = total_usage.get("cost")
    if isinstance(cost, bool) or not isinstance(cost, int | float):
        return None
    value = float(cost)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"meta.totalUsage.cost is {json.dumps(value)}: an impossible cost")
    return value
