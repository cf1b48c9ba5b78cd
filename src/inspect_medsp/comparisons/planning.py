"""The quick-run decision in numbers, numpy only: from the spread seen in a run, the interval
and detectable difference to expect on the full benchmark, and the scenarios and epochs it
takes to detect a given difference between two runs.

The full set's structure is a fact of the published rubrics (pinned commit): 1,548 scoreable
scenarios from 595 cases, very unequal in size (1 to 30 scenarios), so a run's mean is
case-clustered with design effect ``1 + (m - 1) * rho``, where ``m`` is the size-weighted
mean case size of the set planned (sum of squared sizes over the sum of sizes: 9,362 / 1,548 =
6.05 for the full set; for ``n`` scenarios drawn at random from it, ``1 + (n - 1) * (9,362 -
1,548) / (1,548 * 1,547)``, e.g. 1.32 for 100) and ``rho`` the intra-case correlation seen in
the run (:func:`inspect_medsp.comparisons.variance_split.icc`).

A scenario's value at ``E`` epochs has variance ``fixed + per_epoch / E``: the scenario part
stays, the encounter and grader noise shrink with epochs (:class:`Spread`). The case part of
that variance (``rho`` times it, at the epochs the run had) does not shrink with epochs, so the
correlation at other epoch counts is worked out from it (:meth:`Spread.rho_at`) rather than
reused. For a paired comparison the same holds for the per-scenario difference. Intervals and
``mdd`` use t quantiles on the planned set's cases - 1 degrees of freedom.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from inspect_medsp.scoring import t_quantile
from inspect_medsp.stats import mdd_factor

FULL_SCENARIOS = 1548
FULL_CASES = 595
FULL_SQUARED_SIZES = 9362
"""Sum over the full set's cases of (scenarios in the case) squared."""
FULL_CLUSTER_SIZE = FULL_SQUARED_SIZES / FULL_SCENARIOS
"""Size-weighted mean scenarios per case of the full set (6.05)."""
Z_95 = 1.959963984540054
LOWEST_RHO = -0.95 / (FULL_CLUSTER_SIZE - 1.0)
"""The lowest intra-case correlation a plan works with: just above ``-1 / (m - 1)``, where the
full set's design effect ``1 + (m - 1) rho`` would reach 0 (a range's draws may be negative:
see :func:`inspect_medsp.comparisons.case_weights.icc_draws`)."""
MOST_SCENARIOS = 100 * FULL_SCENARIOS
"""Where the search for the scenarios needed stops."""


class Spread(NamedTuple):
    """Variance of one scenario's value (a run's completion, or a pair's difference)."""

    fixed: float
    """What epochs cannot average away (the scenario's own difficulty or effect)."""
    per_epoch: float
    """Encounter and grader noise of one epoch; divided by the number of epochs."""
    rho: float
    """Intra-case correlation of scenario values, at :attr:`epochs` epochs."""
    epochs: float = 1.0
    """The epochs of the run ``rho`` was measured at."""

    def variance(self, epochs: float) -> float:
        return self.fixed + self.per_epoch / epochs

    @property
    def between(self) -> float:
        """The case part of a scenario value's variance (what scenarios of a case share)."""
        return self.rho * self.variance(self.epochs)

    def rho_at(self, epochs: float) -> float:
        """The intra-case correlation at ``epochs`` epochs: the case part over the variance."""
        total = self.variance(epochs)
        return min(1.0, max(LOWEST_RHO, self.between / total)) if total > 0 else 0.0


def planned_cluster_size(scenarios: float) -> float:
    """Size-weighted mean case size of ``scenarios`` drawn at random from the full set (its
    6.05 for all 1,548; beyond, the same trend)."""
    pairs = (FULL_SQUARED_SIZES - FULL_SCENARIOS) / (FULL_SCENARIOS * (FULL_SCENARIOS - 1))
    return 1.0 + (max(1.0, scenarios) - 1.0) * pairs


def planned_cases(scenarios: float) -> int:
    """Cases to expect among ``scenarios`` drawn at random from the full set (a lower
    estimate: scenarios over the size-weighted mean case size; 595 for the full set)."""
    if scenarios >= FULL_SCENARIOS:
        return max(FULL_CASES, round(scenarios / FULL_CLUSTER_SIZE))
    return max(2, round(scenarios / planned_cluster_size(scenarios)))


def design_effect(rho: float, cluster_size: float = FULL_CLUSTER_SIZE) -> float:
    """How much case clustering inflates the variance of a mean over scenarios (a negative
    ``rho`` is kept above ``-0.95 / (m - 1)``, where the effect would reach 0)."""
    if cluster_size > 1.0:
        rho = max(rho, -0.95 / (cluster_size - 1.0))
    return 1.0 + (cluster_size - 1.0) * rho


def standard_error(spread: Spread, scenarios: int, epochs: float = 1) -> float:
    """Case-clustered standard error of a mean over ``scenarios`` (drawn at random from the
    full set) at ``epochs`` epochs."""
    size = FULL_CLUSTER_SIZE if scenarios == FULL_SCENARIOS else planned_cluster_size(scenarios)
    effect = design_effect(spread.rho_at(epochs), size)
    return math.sqrt(spread.variance(epochs) * effect / scenarios)


def half_width(spread: Spread, scenarios: int = FULL_SCENARIOS, epochs: float = 1) -> float:
    """Half the width of the 95% interval to expect."""
    df = planned_cases(scenarios) - 1
    return t_quantile(0.975, df) * standard_error(spread, scenarios, epochs)


def mdd(spread: Spread, scenarios: int = FULL_SCENARIOS, epochs: float = 1) -> float:
    """Minimum detectable difference (80% power, two-sided 5%) of a paired comparison whose
    per-scenario difference has ``spread``."""
    return mdd_factor(planned_cases(scenarios)) * standard_error(spread, scenarios, epochs)


def scenarios_needed(spread: Spread, detect: float, epochs: float = 1) -> int:
    """Scenarios a paired comparison needs to detect ``detect`` with 80% power (may exceed
    :data:`FULL_SCENARIOS`: then the full set at these epochs is not enough; at most
    :data:`MOST_SCENARIOS`)."""
    if detect <= 0:
        raise ValueError("the difference to detect must be above 0")
    low, high = 2, MOST_SCENARIOS
    if mdd(spread, high, epochs) > detect:
        return high
    while low < high:
        mid = (low + high) // 2
        if mdd(spread, mid, epochs) <= detect:
            high = mid
        else:
            low = mid + 1
    return low


def epochs_needed(spread: Spread, detect: float, limit: int = 20) -> int | None:
    """The fewest epochs (up to ``limit``) with which the full set detects ``detect``; None
    when even ``limit`` epochs are not enough (the scenario part alone is too wide)."""
    for epochs in range(1, limit + 1):
        if mdd(spread, FULL_SCENARIOS, epochs) <= detect:
            return epochs
    return None
