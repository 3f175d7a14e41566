"""Names of a package imported when first used (PEP 562 ``__getattr__``): for the parts of
a package that only some commands use, so that importing the package for its light parts
does not load the rest."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_names(package: str, modules: Mapping[str, Sequence[str]],
               aliases: Mapping[str, str] | None = None) -> Callable[[str], Any]:
    """A package ``__getattr__`` giving each name of ``modules`` (module -> names) from its
    module, imported at the first use of one of its names. A module is the package's own
    private one (``_compare``) or named in full (``eunomia.run``). ``aliases``: other names
    of some of them (alias -> name)."""
    module_of = {name: module for module, names in modules.items() for name in names}
    aliases = dict(aliases or {})
    namespace = sys.modules[package].__dict__

    def getattr_(name: str) -> Any:
        original = aliases.get(name, name)
        if original not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = module_of[original]
        if module.startswith("_"):
            module = f"{package}.{module}"
        __import__(module)  # as an import statement does (seen by python -X importtime)
        value = namespace[name] = getattr(sys.modules[module], original)
        return value

    return getattr_
