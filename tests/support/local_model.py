"""Tests of a local model run only where it can: llama-cpp-python installed and the model's
weights present (``./scripts/setup.sh`` installs both); otherwise they are skipped, saying why."""

from __future__ import annotations

import pytest

from eunomia.errors import EunomiaError
from eunomia.models import ensure_weights


def require_local_model(model: str) -> None:
    """Skip the calling test module (or test) unless ``model`` can run here."""
    pytest.importorskip("llama_cpp", reason="the local extra (llama-cpp-python) is not installed")
    try:
        ensure_weights(model)
    except EunomiaError as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"weights of {model} not installed: {exc.message}", allow_module_level=True)
