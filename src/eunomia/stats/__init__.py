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
    fisher_interval,
    pearson,
    spearman,
)
from eunomia.stats._descriptive import distribution, flip_rate, pareto_front, quantile
from eunomia.stats._intervals import Interval, bootstrap_mean_ci
from eunomia.stats._raters import RaterAgreement, paired_statistic_ci, rater_agreement
from eunomia.stats._regression import LinearFit, linear_fit, t_quantile
from eunomia.stats._tests import PairedDelta, TestResult, mcnemar, paired_bootstrap

__all__ = [
    "Correlation",
    "Interval",
    "LinearFit",
    "PairedDelta",
    "RaterAgreement",
    "TestResult",
    "auc",
    "average_ranks",
    "bootstrap_mean_ci",
    "clustered_auc_ci",
    "cohen_kappa",
    "correlation",
    "distribution",
    "fisher_interval",
    "fleiss_kappa",
    "flip_rate",
    "icc",
    "krippendorff_alpha",
    "linear_fit",
    "mcnemar",
    "mean_absolute_difference",
    "paired_bootstrap",
    "paired_statistic_ci",
    "pareto_front",
    "pearson",
    "percent_agreement",
    "quadratic_weighted_kappa",
    "quantile",
    "rater_agreement",
    "spearman",
    "t_quantile",
]
