"""The paired sign-flip (permutation) test: exact at any size under the null of no change.

When two runs of one system are compared (an A/A comparison), each case's difference
``b - a`` is as likely to be ``+d`` as ``-d``; the test flips the signs of the differences and
asks how often the flipped sum is at least as far from 0 as the observed one. Unlike a
bootstrap p-value, whose false-positive rate at 10 to 14 cases is about 8% for a nominal 5%
(its resampled means spread less than the true mean does: ``(n - 1) / n`` of the variance,
and normal rather than t tails), it holds its level with few cases.

Exact enumeration of all ``2**n`` sign patterns up to :data:`EXACT_UP_TO` cases; a seeded
Monte Carlo of sign patterns up to :data:`SAMPLED_UP_TO`; the normal approximation of the
flipped sum (mean 0, variance ``sum(d**2)``, very close at that size) beyond.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from eunomia.stats._validate import as_finite_array, check_same_length

EXACT_UP_TO = 16
SAMPLED_UP_TO = 2000
_BLOCK_CELLS = 1 << 22
_TOL = 1e-12


def sign_flip_p(a: Sequence[float], b: Sequence[float], *, resamples: int = 10000,
                seed: int = 0) -> float:
    """Two-sided p-value of ``H0: b - a is symmetric around 0`` (no change), by flipping
    the signs of the paired differences. 1.0 for no pairs or all differences 0.

    Raises ValueError for mismatched lengths, non-finite values or ``resamples < 1``.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1 (got {resamples})")
    check_same_length(a, b, "a and b")
    deltas = as_finite_array(b, "b") - as_finite_array(a, "a")
    deltas = deltas[deltas != 0]  # a zero difference flips to itself
    n = int(deltas.size)
    if n == 0:
        return 1.0
    observed = abs(float(deltas.sum()))
    threshold = observed * (1 - _TOL) - _TOL
    if n <= EXACT_UP_TO:
        patterns = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1) * 2 - 1
        sums = np.abs(patterns @ deltas)
        return float(np.count_nonzero(sums >= threshold)) / float(1 << n)
    if n <= SAMPLED_UP_TO:
        rng = np.random.default_rng(seed)
        extreme = 0
        block = max(1, _BLOCK_CELLS // n)
        for start in range(0, resamples, block):
            rows = min(block, resamples - start)
            signs = rng.integers(0, 2, size=(rows, n), dtype=np.int8) * 2 - 1
            extreme += int(np.count_nonzero(np.abs(signs @ deltas) >= threshold))
        return min(1.0, (1 + extreme) / (1 + resamples))
    spread = math.sqrt(float(np.dot(deltas, deltas)))
    return min(1.0, 2 * (1 - NormalDist().cdf(observed / spread)))
