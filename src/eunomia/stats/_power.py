"""What a comparison could have detected: the minimum detectable effect (MDE) at a power,
the cases needed for a named effect, McNemar's power, and when there are too few cases.

Paired mean difference (the score): with ``n`` pairs whose differences have standard
deviation ``sd``, a two-sided test at level ``alpha`` detects a true mean difference ``d``
with probability ``power`` when ``d >= (z[1-alpha/2] + z[power]) * sd / sqrt(n)`` (the
normal approximation of the paired test; ``z`` the standard normal quantiles, from
``statistics.NormalDist``). Solved for ``n``: ``n = ((z[1-alpha/2] + z[power]) * sd / d)**2``.

McNemar (detection, a yes/no outcome per case): with a share ``psi`` of discordant pairs
and a difference ``delta`` between the two rates, its power is
``Phi((|delta| sqrt(n) - z[1-alpha/2] sqrt(psi)) / sqrt(psi - delta**2))`` and it needs
``n = (z[1-alpha/2] sqrt(psi) + z[power] sqrt(psi - delta**2))**2 / delta**2`` pairs
(Connor 1987). Whatever the spread, the exact test reaches ``p < alpha`` only when at
least ``k`` cases change in one direction and none in the other, with ``2 * 0.5**k < alpha``
(6 for 0.05): a floor of ``k / n`` on any detectable change of a rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, stdev

from eunomia import defaults
from eunomia.stats._intervals import Interval

_NORMAL = NormalDist()


def enough(n: int) -> bool:
    """Whether ``n`` independent cases are enough for an interval or test to mean
    something (``defaults.MIN_CASES_FOR_INTERVAL``)."""
    return n >= defaults.MIN_CASES_FOR_INTERVAL


TOO_FEW = "too few cases to tell"
"""What every view says in place of an interval, a p-value or a verdict below the minimum."""


def too_few_text(n: int) -> str:
    return (f"{TOO_FEW} ({n} case{'s' if n != 1 else ''}; at least "
            f"{defaults.MIN_CASES_FOR_INTERVAL} are needed)")


def ci_text(interval: Interval | None, digits: int = 2, sign: str = "",
            scale: float = 1.0, unit: str = "") -> str:
    """An estimate with its interval for a table cell: ``"0.62 [0.41, 0.80]"``; the
    estimate alone when the interval has no width; ``"0.62 (too few cases to tell, n=3)"``
    below ``defaults.MIN_CASES_FOR_INTERVAL``; ``"-"`` for none. ``scale`` and ``unit``
    show a rate as a percentage (100, ``"%"``)."""
    if interval is None:
        return "-"

    def f(v: float) -> str:
        return f"{scale * v:{sign}.{digits}f}{unit}"
    if interval.too_few:
        return f"{f(interval.estimate)} ({TOO_FEW}, n={interval.n})"
    if interval.low == interval.high:
        return f(interval.estimate)
    return f"{f(interval.estimate)} [{f(interval.low)}, {f(interval.high)}]"


def interval_json(interval: Interval | None) -> dict[str, object] | None:
    """An interval for a JSON file, with ``too_few`` (then no bounds: they mean nothing)."""
    if interval is None:
        return None
    few = interval.too_few
    return {"estimate": interval.estimate, "low": None if few else interval.low,
            "high": None if few else interval.high, "n": interval.n,
            "confidence": interval.confidence, "too_few": few}


def _z_sum(alpha: float, power: float) -> float:
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError(f"alpha and power must be between 0 and 1 (got {alpha}, {power})")
    return _NORMAL.inv_cdf(1 - alpha / 2) + _NORMAL.inv_cdf(power)


def paired_mde(sd: float, n: int, *, alpha: float = defaults.COMPARE_ALPHA,
               power: float = defaults.POWER) -> float | None:
    """The smallest true mean difference the paired test detects with ``power``: ``(z[1 -
    alpha/2] + z[power]) * sd / sqrt(n)``; None for ``n < 1``."""
    if n < 1:
        return None
    if not math.isfinite(sd) or sd < 0:
        raise ValueError(f"sd must be a finite number >= 0 (got {sd})")
    return _z_sum(alpha, power) * sd / math.sqrt(n)


def paired_cases_needed(sd: float, effect: float, *, alpha: float = defaults.COMPARE_ALPHA,
                        power: float = defaults.POWER) -> int:
    """Pairs needed to detect a true mean difference ``effect`` with ``power`` (at least 2)."""
    if not math.isfinite(effect) or effect == 0:
        raise ValueError(f"the effect must be a finite non-zero number (got {effect})")
    if not math.isfinite(sd) or sd < 0:
        raise ValueError(f"sd must be a finite number >= 0 (got {sd})")
    return max(2, math.ceil((_z_sum(alpha, power) * sd / abs(effect)) ** 2))


def exact_min_discordant(alpha: float = defaults.COMPARE_ALPHA) -> int:
    """The fewest cases that must change (all one way) before an exact paired test can
    reach ``p < alpha``: the smallest ``k`` with ``2 * 0.5**k < alpha``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1 (got {alpha})")
    k = 1
    while 2 * 0.5 ** k >= alpha:
        k += 1
    return k


def mcnemar_power(n: int, psi: float, delta: float, *,
                  alpha: float = defaults.COMPARE_ALPHA) -> float:
    """Power of McNemar's test with ``n`` pairs, a discordant share ``psi`` and a
    difference ``delta`` between the paired rates (Connor 1987)."""
    if not 0 <= abs(delta) <= psi <= 1:
        raise ValueError(f"need 0 <= |delta| <= psi <= 1 (got delta={delta}, psi={psi})")
    if n < 1 or psi == 0:
        return 0.0
    if delta == 0:
        return alpha
    spread = math.sqrt(psi - delta ** 2)
    z = _NORMAL.inv_cdf(1 - alpha / 2)
    if spread == 0:
        return 1.0
    return _NORMAL.cdf((abs(delta) * math.sqrt(n) - z * math.sqrt(psi)) / spread)


def mcnemar_cases_needed(psi: float, delta: float, *, alpha: float = defaults.COMPARE_ALPHA,
                         power: float = defaults.POWER) -> int:
    """Pairs McNemar's test needs to detect ``delta`` with ``power`` when a share ``psi`` of
    pairs is discordant (Connor 1987)."""
    if not 0 < abs(delta) <= psi <= 1:
        raise ValueError(f"need 0 < |delta| <= psi <= 1 (got delta={delta}, psi={psi})")
    za, zb = _NORMAL.inv_cdf(1 - alpha / 2), _NORMAL.inv_cdf(power)
    n = (za * math.sqrt(psi) + zb * math.sqrt(psi - delta ** 2)) ** 2 / delta ** 2
    return max(exact_min_discordant(alpha), math.ceil(n))


def mcnemar_mde(n: int, psi: float, *, alpha: float = defaults.COMPARE_ALPHA,
                power: float = defaults.POWER) -> float | None:
    """The smallest rate difference McNemar's test detects with ``power`` given ``n`` pairs
    and a discordant share ``psi``, never below the exact test's floor
    ``exact_min_discordant / n``; None when no case is discordant (nothing to plan from:
    at least ``exact_min_discordant`` cases must change) or even ``delta = psi`` is not
    enough."""
    if n < 1:
        return None
    floor = exact_min_discordant(alpha) / n
    if psi <= 0 or floor > 1 or mcnemar_power(n, psi, psi, alpha=alpha) < power:
        return None
    low, high = 0.0, psi
    for _ in range(60):
        mid = (low + high) / 2
        if mcnemar_power(n, psi, mid, alpha=alpha) >= power:
            high = mid
        else:
            low = mid
    return max(high, floor)


@dataclass(frozen=True, slots=True)
class Power:
    """What a paired comparison of ``n`` cases can detect."""

    n: int
    alpha: float
    power: float
    sd: float | None
    """Standard deviation of the per-case differences (or of the scores, see ``basis``)."""
    mde: float | None
    """Minimum detectable effect: the smallest true mean difference detected with
    ``power`` at ``alpha`` (None when ``too_few``)."""
    basis: str
    """Where ``sd`` comes from, in words."""
    effect: float | None = None
    """An effect the user named (``--effect``)."""
    needed: int | None = None
    """Cases needed to detect ``effect`` with ``power``."""

    @property
    def too_few(self) -> bool:
        return not enough(self.n)


def score_power(a: Sequence[float], b: Sequence[float] | None = None, *,
                alpha: float = defaults.COMPARE_ALPHA, power: float = defaults.POWER,
                effect: float | None = None) -> Power:
    """The MDE of a paired comparison of scores ``a`` and ``b`` (one per case, repeats
    averaged), from the spread of the differences ``b - a``. Without ``b``, or when the
    differences do not vary (identical answers), the spread is planned from the scores of
    ``a``: a future comparison of equal size whose two runs correlate 0.5 has differences
    spreading like the scores themselves."""
    n = len(a)
    sd: float | None
    basis = "the spread of the paired per-case differences"
    if b is not None:
        if len(b) != n:
            raise ValueError(f"a and b must pair up (got {n} and {len(b)})")
        diffs = [y - x for x, y in zip(a, b, strict=True)]
        sd = stdev(diffs) if n >= 2 else None
    else:
        sd = None
    if sd is None or sd == 0:
        sd = stdev(a) if n >= 2 else None
        basis = ("the spread of the per-case scores (a future comparison of equal size, "
                 "runs correlating 0.5)")
        if b is not None and n >= 2:
            basis = ("the spread of A's per-case scores: the differences do not vary, so "
                     "their own spread says nothing of a change")
    mde = None if sd is None or not enough(n) else paired_mde(sd, n, alpha=alpha, power=power)
    needed = None
    if effect is not None and sd is not None:
        needed = paired_cases_needed(sd, effect, alpha=alpha, power=power)
    return Power(n, alpha, power, sd, mde, basis, effect, needed)


@dataclass(frozen=True, slots=True)
class DetectionPower:
    """What McNemar's test on detection can see with ``n`` paired cases."""

    n: int
    alpha: float
    power: float
    discordant: int
    """Cases whose detection differs between the runs."""
    min_changed: int
    """Cases that must change (all one way) before the exact test can reach ``alpha``."""
    mde: float | None
    """Smallest difference of detection rates detected with ``power`` (0-1); None when no
    difference within these ``n`` cases could be."""
    observed_power: float | None
    """Power against the observed difference (None when it is 0)."""
    effect: float | None = None
    needed: int | None = None

    @property
    def too_few(self) -> bool:
        return not enough(self.n)


def detection_power(n: int, regressions: int, fixes: int, *,
                    alpha: float = defaults.COMPARE_ALPHA, power: float = defaults.POWER,
                    effect: float | None = None) -> DetectionPower:
    """McNemar's power on ``n`` pairs with ``regressions`` and ``fixes`` discordant ones;
    ``effect``: a difference of rates (0-1) to plan for."""
    discordant = regressions + fixes
    psi = discordant / n if n else 0.0
    delta = (fixes - regressions) / n if n else 0.0
    mde = mcnemar_mde(n, psi, alpha=alpha, power=power) if enough(n) else None
    observed = mcnemar_power(n, psi, delta, alpha=alpha) if n and delta else None
    needed = None
    if effect is not None:
        plan = max(psi, abs(effect))
        needed = mcnemar_cases_needed(plan, abs(effect), alpha=alpha, power=power)
    return DetectionPower(n, alpha, power, discordant, exact_min_discordant(alpha), mde,
                          observed, effect, needed)
