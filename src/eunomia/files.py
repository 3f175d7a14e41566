"""Writing result files safely: whole or not at all, with a clear error naming the file."""

from __future__ import annotations

import os
import re
from pathlib import Path

from eunomia.errors import EunomiaError


def write_text_atomic(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file, so a reader never sees half a file.

    Creates the parent folder. Any OS error (unwritable folder, disk full) becomes an
    :class:`EunomiaError` naming the file; files written before are left as they are.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise EunomiaError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def file_safe(name: str) -> str:
    """``name`` as a file or folder name: ``openai:gpt-4o-mini`` -> ``openai_gpt-4o-mini``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:80] or "target"
