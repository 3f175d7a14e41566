"""What a comparison could have detected: its minimum detectable effects."""

from __future__ import annotations

from eunomia import defaults
from eunomia.compare._facts import Agg
from eunomia.compare._model import ComparisonPower, OverallDelta
from eunomia.stats import detection_power, score_power


def comparison_power(pairs: list[tuple[Agg, Agg]], overall: OverallDelta, alpha: float,
           effect: float | None, detects: bool) -> ComparisonPower:
    """The minimum detectable effects: of the score from the spread of the paired per-case
    differences, of detection by McNemar's power (``effect``: the cases it needs)."""
    both = [(a.score, b.score) for a, b in pairs
            if a.ok and b.ok and a.score is not None and b.score is not None]
    score = score_power([x for x, _ in both], [y for _, y in both], alpha=alpha,
                        power=defaults.POWER, effect=effect)
    det = overall.detection
    detection = None
    if detects and det is not None:
        rate_effect = None
        if effect is not None and overall.score.unit == "%":
            rate_effect = min(1.0, abs(effect) / 100)
        detection = detection_power(det.n, det.regressions or 0, det.fixes or 0, alpha=alpha,
                                    power=defaults.POWER, effect=rate_effect)
    return ComparisonPower(score, detection)
