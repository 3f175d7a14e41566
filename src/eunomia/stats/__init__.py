"""Statistics shared by both evaluation kinds: intervals, agreement, paired tests, fits.

Pure, deterministic functions (bootstrap resampling uses ``numpy.random.default_rng(seed)``)
returning small frozen dataclasses. Statistics that are undefined for the given input
(empty input, a single case, no variance) are returned as None rather than raising or NaN;
each function's docstring lists its edge cases. Malformed input (mismatched lengths,
non-finite numbers) raises ValueError.
"""

from eunomia.stats._agreement import (
    cohen_kappa,
    fleiss_kappa,
    icc,
    krippendorff_alpha,
    mean_absolute_difference,
    percent_agreement,
    quadratic_weighted_kappa,
)
from eunomia.stats._auc import auc, clustered_auc_ci
from eunomia.stats._correlation import (
    Correlation,
    average_ranks,
    correlation,
    correlation_difference,
    fisher_interval,
    pearson,
    spearman,
)
from eunomia.stats._descriptive import distribution, flip_rate, pareto_front, quantile
from eunomia.stats._intervals import Interval, bootstrap_mean_ci, cluster_mean_ci
from eunomia.stats._permutation import sign_flip_p
from eunomia.stats._power import (
    TOO_FEW,
    DetectionPower,
    Power,
    ci_text,
    detection_power,
    enough,
    exact_min_discordant,
    interval_json,
    mcnemar_cases_needed,
    mcnemar_mde,
    mcnemar_power,
    paired_cases_needed,
    paired_mde,
    score_power,
    too_few_text,
)
from eunomia.stats._raters import RaterAgreement, paired_statistic_ci, rater_agreement
from eunomia.stats._regression import LinearFit, linear_fit, t_quantile
from eunomia.stats._tests import PairedDelta, TestResult, mcnemar, paired_bootstrap

__all__ = [
    "TOO_FEW",
    "Correlation",
    "DetectionPower",
    "Interval",
    "LinearFit",
    "PairedDelta",
    "Power",
    "RaterAgreement",
    "TestResult",
    "auc",
    "average_ranks",
    "bootstrap_mean_ci",
    "ci_text",
    "cluster_mean_ci",
    "clustered_auc_ci",
    "cohen_kappa",
    "correlation",
    "correlation_difference",
    "detection_power",
    "distribution",
    "enough",
    "exact_min_discordant",
    "fisher_interval",
    "fleiss_kappa",
    "flip_rate",
    "icc",
    "interval_json",
    "krippendorff_alpha",
    "linear_fit",
    "mcnemar",
    "mcnemar_cases_needed",
    "mcnemar_mde",
    "mcnemar_power",
    "mean_absolute_difference",
    "paired_bootstrap",
    "paired_cases_needed",
    "paired_mde",
    "paired_statistic_ci",
    "pareto_front",
    "pearson",
    "percent_agreement",
    "quadratic_weighted_kappa",
    "quantile",
    "rater_agreement",
    "score_power",
    "sign_flip_p",
    "spearman",
    "t_quantile",
    "too_few_text",
]
