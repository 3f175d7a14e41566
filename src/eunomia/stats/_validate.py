"""Input validation shared by the statistics modules (private)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def as_finite_array(values: Sequence[float] | FloatArray, name: str) -> FloatArray:
    """Return ``values`` as a 1-D float64 array; raise ValueError on NaN/inf or wrong shape."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a flat sequence of numbers")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must contain only finite numbers")
    return array


def check_same_length(a: Sequence[object], b: Sequence[object], names: str) -> None:
    """Raise ValueError unless the two sequences have the same length."""
    if len(a) != len(b):
        raise ValueError(f"{names} must have the same length (got {len(a)} and {len(b)})")


def check_confidence(confidence: float) -> None:
    """Raise ValueError unless 0 < confidence < 1."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1 (got {confidence})")
