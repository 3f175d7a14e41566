"""Task kinds: one small module each, registering a runner and its judging prompt file.

To add a kind, write ``kinds/<name>.py`` calling :func:`register` (see ``summarization.py``),
put its guidance in ``eunomia/tasks/prompts/<name>.txt``, and import it below.
"""

from eunomia.tasks.kinds import (  # noqa: F401  (importing registers the kinds)
    common_sense_reasoning,
    context_retention,
    ethical_reasoning,
    general_knowledge,
    inference_speed,
    instruction_following,
    summarization,
)
from eunomia.tasks.kinds._registry import (
    KindRunner,
    TaskKind,
    get_kind,
    kind_for_category,
    kind_for_file,
    kinds,
    normalize,
    register,
)

__all__ = [
    "KindRunner",
    "TaskKind",
    "get_kind",
    "kind_for_category",
    "kind_for_file",
    "kinds",
    "normalize",
    "register",
]
