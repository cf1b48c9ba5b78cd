"""The minimum detectable difference of the paired test, found by simulating that test.

On few cases the t formula of :func:`inspect_medsp.stats.power.mdd` promises more power than
the report's test has: that test takes the larger of a permutation p-value (which on few cases
can only take a few values) and a t p-value, and the t formula treats the estimated spread as
the true one. So up to :data:`SIMULATED_CASES` cases ``mdd`` is the true difference at which
the test the report uses (:func:`inspect_medsp.stats.pairtest.paired_test`, at the row's
level) detects it in 80% of simulated comparisons like the observed one:

1. the observed cases' summed differences are centred (each case's residual
   ``s_c - mean * n_c``) and scaled by CR2's ``1 / sqrt(1 - n_c / N)``, so their squares are
   unbiased for each case's variance;
2. :data:`DRAWS` comparisons of as many cases are drawn from them, whole cases with
   replacement (seeded);
3. a true difference ``delta`` adds ``delta * n_c`` to each drawn case. The test moves with it
   (its interval shifts by ``delta``), so a drawn comparison detects ``delta`` exactly when
   ``delta`` is beyond minus its interval's end, and the power at every ``delta`` comes from
   one run of the test over the draws. Only a detection in the true difference's direction
   counts, and each draw is counted with its mirror image (every residual negated), so the
   power is the same at ``delta`` and ``-delta`` and ``mdd`` does not depend on which run is
   ``a`` (two-sided by construction);
4. ``mdd`` is the smallest ``delta`` detected in its own direction in at least 80% of the
   draws and mirrors (:func:`power_at` gives that share at any ``delta``).
"""

from __future__ import annotations

import math

import numpy as np

from inspect_medsp.stats.pairtest import paired_test
from inspect_medsp.stats.power import ALPHA, POWER
from inspect_medsp.stats.signflip import EXACT_CASES, PERMUTATIONS

DRAWS = 1000
"""Simulated comparisons behind each simulated ``mdd``."""
SIMULATION_SEED = 80
SIMULATED_CASES = EXACT_CASES
"""Up to this many cases ``mdd`` is simulated (the permutation test enumerates every sign
pattern, so the simulation is quick; above, the t formula's power is close to its promise)."""
CHUNK = 250
"""Draws tested at once (bounds memory: draws x 4,096 sign patterns)."""


def simulated_mdd(
    case_sums: np.ndarray,
    case_sizes: np.ndarray,
    alpha: float = ALPHA,
    power: float = POWER,
    draws: int = DRAWS,
    seed: int = SIMULATION_SEED,
    permutations: int = PERMUTATIONS,
) -> float:
    """The smallest true difference the paired test at ``alpha`` detects with ``power`` in
    comparisons drawn from these cases (see the module); NaN when no difference reaches that
    power (the test at ``alpha`` cannot reject often enough whatever the difference)."""
    low, high = _draw_intervals(case_sums, case_sizes, alpha, draws, seed, permutations)
    return _smallest_shift(low, high, power)


def _draw_intervals(
    case_sums: np.ndarray,
    case_sizes: np.ndarray,
    alpha: float,
    draws: int,
    seed: int,
    permutations: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The test's intervals on ``draws`` comparisons drawn from the centred, CR2-scaled cases
    (whole cases with replacement, seeded): steps 1 and 2 of the module."""
    sums = np.asarray(case_sums, dtype=float)
    sizes = np.asarray(case_sizes, dtype=float)
    n_clusters = len(sums)
    total = float(sizes.sum())
    residuals = (sums - sums.sum() / total * sizes) / np.sqrt(
        np.maximum(1.0 - sizes / total, 1e-12)
    )
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n_clusters, size=(draws, n_clusters))
    lows, highs = [], []
    for start in range(0, draws, CHUNK):
        rows = drawn[start : start + CHUNK]
        test = paired_test(
            residuals[rows], sizes[rows], alpha, permutations, p_values=False, df_decimals=2
        )
        lows.append(test.low)
        highs.append(test.high)
    return np.concatenate(lows), np.concatenate(highs)


def _smallest_shift(low: np.ndarray, high: np.ndarray, power: float) -> float:
    """The smallest ``delta >= 0`` detected *in its own direction* by at least ``power`` of the
    draws and their mirror images (NaN when none is).

    A draw with interval ``[low, high]`` shifted by ``delta`` finds a difference above 0 when
    ``low + delta > 0``; its mirror image (every case's residual negated: interval
    ``[-high, -low]``) when ``delta - high > 0``. A draw significant the other way is not a
    detection. Counting every draw and its mirror makes the power at ``+delta`` and at
    ``-delta`` the same, and ``mdd`` the same whichever run is ``a``: swapping the runs negates
    the residuals, and the set of draws and mirrors is unchanged."""
    draws = len(low)
    shifts = np.sort(np.concatenate([-low, high]))
    candidates = shifts[np.isfinite(shifts) & (shifts >= 0)]
    if not len(candidates):
        return math.nan
    # detected at delta: -low < delta (and high < delta for the mirror). At a candidate
    # itself the draws with that edge hold 0 in their interval (not detected); just above it
    # they all are. So the power jumps there, and mdd is the smallest delta just above a
    # candidate (by a relative 1e-9) at which the share reaches ``power``
    found = np.searchsorted(shifts, candidates, side="right")
    share = found / (2 * draws)
    reached = np.flatnonzero(share >= power)
    if not len(reached):
        return math.nan
    edge = float(candidates[reached[0]])
    return edge + 1e-9 * max(abs(edge), 1e-6)


def power_at(
    case_sums: np.ndarray,
    case_sizes: np.ndarray,
    delta: float,
    alpha: float = ALPHA,
    draws: int = DRAWS,
    seed: int = SIMULATION_SEED,
    permutations: int = PERMUTATIONS,
) -> float:
    """The share of the simulated comparisons (and their mirrors) that find a true difference
    ``delta`` in its own direction: the power :func:`simulated_mdd` promises at ``delta``."""
    low, high = _draw_intervals(case_sums, case_sizes, alpha, draws, seed, permutations)
    size = abs(delta)
    return float(((low + size > 0).sum() + (size - high > 0).sum()) / (2 * len(low)))
