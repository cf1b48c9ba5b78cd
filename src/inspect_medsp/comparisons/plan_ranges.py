"""The plan's ranges: the 10th to 90th percentile of each projection over what the runs leave
possible: the spread by a case bootstrap of the runs (each case drawn as often as it was
drawn, :mod:`~inspect_medsp.comparisons.case_weights`), the intra-case correlation from its
one-way ANOVA pivot with degrees of freedom that allow for heavy-tailed cases
(:func:`~inspect_medsp.comparisons.case_weights.icc_draws`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from inspect_medsp.comparisons.case_weights import (
    case_draws,
    icc_draws,
    pair_spreads,
    paired_values,
    run_spreads,
    scenarios_of,
)
from inspect_medsp.comparisons.planning import (
    FULL_SCENARIOS,
    half_width,
    mdd,
    scenarios_needed,
)
from inspect_medsp.record import MedspSample

EPOCH_CHOICES = (1, 2, 3, 5)
RESAMPLES = 200
"""Case bootstrap resamples behind every range of the plan."""
RANGE_SEED = 1638
Range = tuple[float, float]
"""10th and 90th percentile over the case bootstrap of the whole projection."""


def _percentiles(values: list[float]) -> Range | None:
    finite = [v for v in values if math.isfinite(v)]
    if len(finite) < 10:
        return None
    low, high = np.percentile(finite, [10, 90])
    return float(low), float(high)


def half_width_range(samples: Sequence[MedspSample], epochs: int) -> Range | None:
    """The 10th-90th percentile of the full-set half-width: the spread of a case bootstrap of
    the run, with the intra-case correlation drawn from its pivot (``icc_draws``)."""
    scenarios = scenarios_of(samples, {})
    cases = int(scenarios.case.max(initial=-1)) + 1
    if cases < 2:
        return None
    spreads = run_spreads(scenarios, case_draws(cases, RESAMPLES, RANGE_SEED))
    rhos = icc_draws(scenarios.value, scenarios.case, RESAMPLES, RANGE_SEED)
    return _percentiles(
        [
            half_width(s._replace(rho=r), FULL_SCENARIOS, epochs)
            for s, r in zip(spreads, rhos, strict=True)
            if s
        ]
    )


def pair_ranges(
    a: Sequence[MedspSample], b: Sequence[MedspSample], detect: float
) -> tuple[dict[int, Range], dict[int, Range]]:
    """Epochs -> 10th-90th percentile of the full-set mdd, and of the scenarios needed to
    detect ``detect``: a case bootstrap of both runs together, with the intra-case correlation
    of the differences drawn from its pivot."""
    cases: dict[str, int] = {}
    first, second = scenarios_of(a, cases), scenarios_of(b, cases)
    if len(cases) < 2:
        return {}, {}
    differences, case = paired_values(first, second)
    rhos = icc_draws(differences, case, RESAMPLES, RANGE_SEED)
    draws = pair_spreads(first, second, case_draws(len(cases), RESAMPLES, RANGE_SEED))
    spreads = [s._replace(rho=r) for s, r in zip(draws, rhos, strict=True) if s]
    mdds = {
        e: r
        for e in EPOCH_CHOICES
        if (r := _percentiles([mdd(s, FULL_SCENARIOS, e) for s in spreads]))
    }
    needed = {
        e: r
        for e in EPOCH_CHOICES
        if (r := _percentiles([float(scenarios_needed(s, detect, e)) for s in spreads]))
    }
    return mdds, needed
