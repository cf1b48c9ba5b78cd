from inspect_medsp.scoring.capability import RUBRIC
from inspect_medsp.scoring.clustered import MIN_CASES, TOO_FEW, clustered_ratio, small_samples
from inspect_medsp.scoring.epochs import epoch_mean
from inspect_medsp.scoring.metrics import (
    Row,
    case_of,
    completion_summary,
    mean_ci,
    of_the_baseline,
    percentile_interval,
    resampled_sums,
)
from inspect_medsp.scoring.scorer import judge_items, medsp_rubric
from inspect_medsp.scoring.tdist import t_quantile, t_sf_two_sided

__all__ = [
    "MIN_CASES",
    "RUBRIC",
    "TOO_FEW",
    "Row",
    "case_of",
    "clustered_ratio",
    "completion_summary",
    "epoch_mean",
    "judge_items",
    "mean_ci",
    "medsp_rubric",
    "of_the_baseline",
    "percentile_interval",
    "resampled_sums",
    "small_samples",
    "t_quantile",
    "t_sf_two_sided",
]
