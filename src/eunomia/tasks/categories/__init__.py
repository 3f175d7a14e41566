"""Task categories: one small module each, registering a runner and its judging prompt file.

To add a category, write ``tasks/categories/<name>.py`` calling :func:`register` (see
``summarization.py``) and put its judging guidance in ``eunomia/tasks/prompts/<name>.txt``.
Every public module of this package is imported (and so registered) below; nothing else
needs to change.
"""

import importlib
import pkgutil

from eunomia.tasks.categories._registry import (
    CategoryRunner,
    TaskCategory,
    categories,
    category_for,
    category_for_file,
    category_named,
    normalize,
    register,
)

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")

__all__ = [
    "CategoryRunner",
    "TaskCategory",
    "categories",
    "category_for",
    "category_for_file",
    "category_named",
    "normalize",
    "register",
]
