"""The paired permutation test of a mean difference, and the interval it gives when inverted.

Under "no difference" the labels of two runs could be swapped within a case, so the sign of
each case's summed difference ``s_c`` is flipped at random: the two-sided p-value is the share
of sign patterns ``g`` whose ``|sum_c g_c s_c|`` reaches the observed ``|sum_c s_c|`` (every
pattern when there are at most :data:`EXACT_CASES` cases, else :data:`PERMUTATIONS` seeded
random ones plus the observed, so never 0). Random draws resolve a p-value only down to about
``1 / (PERMUTATIONS + 1)``; a family of many rows corrected with Holm would meet that
resolution as a floor (546 competency rows times 0.0001 is over 0.05). So where it matters
(a row significant at 5%, whose draws reached the observed sum at most :data:`FEW_HITS` times,
and whose draws' p-value is not below its family's Holm level, 5% over the family's size) the
p-value is the exact sign-flip distribution's, computed on a lattice (:func:`lattice_p`): each
case's ``|s_c|`` rounded to ``1 / LATTICE_UNITS`` of their total, the distribution of the
signed sum by the discrete Fourier transform of its characteristic function
``prod_c cos(w k_c)``. The rounding adds a variance of at most ``C h^2 / 12`` (``h`` the
lattice step) to the sum's, a fraction below 1% of it, so the tail is the exact test's to
within that.

Inverting the test gives the interval: a difference ``delta`` is kept when the test of
"the mean difference is ``delta``" (case sums ``s_c - delta * n_c``, ``n_c`` the case's
scenarios) does not reject at 5%. For one pattern, ``|A - delta B| >= |S - delta N|`` (``A``,
``B`` the pattern's signed sums of ``s`` and ``n``; ``S``, ``N`` the plain ones) holds exactly on
the closed interval between ``(A - S) / (B - N)`` and ``(A + S) / (B + N)``, and every such
interval contains the observed mean ``S / N``; so the p-value falls as ``delta`` moves away
from ``S / N`` on either side, and the kept set is one interval whose ends are order
statistics of those endpoints. The interval and the p-value agree by construction: 0 is
outside the interval exactly when ``p < 0.05``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

ALPHA = 0.05
PERMUTATIONS = 9999
"""Random sign flips of the permutation test when there are more than EXACT_CASES cases."""
EXACT_CASES = 12
"""Up to this many cases, the permutation test enumerates every sign pattern (4,096)."""
SEED = 1638
FEW_HITS = 100
"""Up to this many random patterns reaching the observed sum, a significant row whose draws'
p-value is at or above its Holm level gets the lattice p-value."""
LATTICE_UNITS = 2048
"""Lattice points over the total ``sum_c |s_c|`` (at least; 4 per case beyond 512 cases)."""


def sign_patterns(
    n_clusters: int, permutations: int = PERMUTATIONS, seed: int = SEED
) -> np.ndarray:
    """Sign flips of the clusters, one *column* per pattern, shape ``(n_clusters, patterns)``:
    every pattern when there are at most :data:`EXACT_CASES` clusters, else ``permutations``
    random ones (the first ``n`` rows of one seeded matrix, so they do not depend on how many
    other comparisons there are)."""
    if n_clusters <= EXACT_CASES:
        codes = np.arange(2**n_clusters)
        bits = (codes[None, :] >> np.arange(n_clusters)[:, None]) & 1
        return (1.0 - 2.0 * bits).astype(np.float64)
    return _random_signs(n_clusters, permutations, seed)


_SIGNS: dict[tuple[int, int], np.ndarray] = {}


def _random_signs(rows: int, permutations: int, seed: int) -> np.ndarray:
    """The first ``rows`` rows of the seeded random sign matrix (grown when more are asked
    for; its rows are drawn in order, so a longer matrix starts with the shorter one)."""
    known = _SIGNS.get((permutations, seed))
    if known is None or len(known) < rows:
        rng = np.random.default_rng(seed)
        packed = rng.integers(0, 256, size=(rows, (permutations + 7) // 8), dtype=np.uint8)
        known = np.unpackbits(packed, axis=1)[:, :permutations].astype(np.float64) * 2 - 1
        known.flags.writeable = False
        _SIGNS[(permutations, seed)] = known
    return known[:rows]


class SignFlip(NamedTuple):
    """The test of each comparison: p-value of "no difference" and the inverted interval."""

    p_values: np.ndarray
    low: np.ndarray
    high: np.ndarray


def _kth(values: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """The ``k``-th smallest (or largest) of each row, ``k`` from 1; ``-inf``/``inf`` when
    ``k`` is below 1."""
    rows, columns = values.shape
    if k < 1:
        return np.full(rows, np.inf if largest else -np.inf)
    at = columns - k if largest else k - 1
    return np.partition(values, at, axis=1)[:, at]


def lattice_p(case_sums: np.ndarray) -> float:
    """The two-sided sign-flip p-value ``P(|sum_c g_c s_c| >= |sum_c s_c|)`` over all ``2^C``
    sign patterns, on a lattice (see the module): exact for sums on the lattice, and for others
    to within the rounding's variance (below 1% of the sum's)."""
    signed = np.asarray(case_sums, dtype=float)
    signed = signed[np.abs(signed) > 0]
    if not len(signed):
        return 1.0
    sums = np.abs(signed)
    total = float(sums.sum())
    units = max(LATTICE_UNITS, 4 * len(sums))
    step = total / units
    k = np.maximum(1, np.rint(sums / step).astype(np.int64))
    observed = abs(int((np.sign(signed).astype(np.int64) * k).sum()))
    reach = int(k.sum())
    size = 1 << int(2 * reach + 1).bit_length()
    frequencies = 2.0 * np.pi * np.arange(size // 2 + 1) / size
    characteristic = np.ones(len(frequencies))
    for chunk in np.array_split(k, max(1, len(k) // 64)):
        characteristic *= np.cos(np.outer(chunk, frequencies)).prod(axis=0)
    pmf = np.fft.irfft(characteristic, n=size)
    values = np.arange(size)
    values = np.where(values > size // 2, values - size, values)
    tail = float(pmf[np.abs(values) >= observed].clip(min=0.0).sum())
    floor = 2.0 / 2.0 ** len(sums)
    return min(1.0, max(tail, floor))


def sign_flip(
    case_sums: np.ndarray,
    case_sizes: np.ndarray,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
    alpha: float = ALPHA,
    p_values: bool = True,
    levels: np.ndarray | None = None,
) -> SignFlip:
    """The permutation p-values and inverted ``1 - alpha`` intervals of many comparisons with
    the same number of cases (one row of ``case_sums`` and ``case_sizes`` each, shape
    ``(comparisons, n_clusters)``); without ``p_values`` (a power simulation needs only the
    intervals) the p-values are NaN and the intervals single precision. ``levels`` (one per
    row) is each row's Holm level (5% over its family's size): a significant row with few hits
    whose draws' p-value is not below it gets the lattice p-value (see the module). With
    p-values everything is float64."""
    sums = np.atleast_2d(np.asarray(case_sums, dtype=float))
    sizes = np.atleast_2d(np.asarray(case_sizes, dtype=float))
    n = sums.shape[1]
    exact = n <= EXACT_CASES
    signs = sign_patterns(n, permutations, seed)
    patterns = signs.shape[1]
    # every pattern g has its mirror -g with the same |signed sum| and the same interval
    # below: with every pattern enumerated, half of them (the last case's sign kept) count
    # twice
    twice = 2 if exact and n >= 1 else 1
    signs = signs[:, : patterns // twice]
    # a power simulation (no p-values) needs only where its intervals fall, not their last
    # digits: single precision halves its time; the report's own tests are in float64
    precision = np.float64 if p_values else np.float32
    signs = signs.astype(precision, copy=False)
    signed = sums.astype(precision) @ signs
    scale = np.maximum(1.0, np.abs(sums).sum(axis=1))
    tolerance = 1e-9 * scale
    found = np.full(len(sums), math.nan)
    if p_values:
        observed = np.abs(sums.sum(axis=1))
        hits = twice * np.count_nonzero(np.abs(signed) >= (observed - tolerance)[:, None], axis=1)
        found = hits / patterns if exact else (1 + hits) / (patterns + 1)
        if not exact:
            # a row whose draws' p-value is below its Holm level is starred whatever its exact
            # value; one at or above it (and below alpha) is where the draws' resolution
            # could decide a Holm step
            level = np.full(len(sums), alpha) if levels is None else np.asarray(levels)
            resolve = (found >= level) & (found < alpha) & (hits <= FEW_HITS)
            for row in np.flatnonzero(resolve):
                found[row] = min(found[row], lattice_p(sums[row]))
    # inversion: each pattern keeps delta on [min(d1, d2), max(d1, d2)]; a pattern whose
    # signed sizes reach the total (|b| = N: a zero denominator) keeps every delta
    a = signed
    b = sizes.astype(precision) @ signs
    s_total = sums.sum(axis=1)[:, None].astype(precision)
    n_total = sizes.sum(axis=1)[:, None].astype(precision)
    trivial = np.abs(b) >= n_total - 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        d1 = (a - s_total) / (b - n_total)
        d2 = np.add(a, s_total, out=a)
        d2 /= b + n_total
    hi = np.maximum(d1, d2)
    lo = np.minimum(d1, d2, out=d1)
    lo[trivial] = -np.inf
    hi[trivial] = np.inf
    # kept when the patterns whose interval holds delta are enough for p >= alpha
    needed = (
        math.ceil(alpha * patterns - 1e-9)
        if exact
        else math.ceil(alpha * (patterns + 1) - 1e-9) - 1
    )
    low = _kth(lo, math.ceil(needed / twice), largest=False).astype(float)
    high = _kth(hi, math.ceil(needed / twice), largest=True).astype(float)
    # an end within round-off of 0 is 0: a tie (a pattern's |signed sum| equal to the
    # observed) keeps 0 in the interval exactly as the p-value counts it a hit
    near = tolerance / n_total[:, 0]
    low = np.where(np.abs(low) <= near, 0.0, low)
    high = np.where(np.abs(high) <= near, 0.0, high)
    return SignFlip(p_values=found, low=low, high=high)


def smallest_p(nonzero_cases: int, cases: int, permutations: int = PERMUTATIONS) -> float:
    """The smallest two-sided p-value the test can give when ``nonzero_cases`` of ``cases``
    have a summed difference other than 0 (a case with none is the same under either sign,
    so it cannot count towards a difference): ``2 / 2^k``, every pattern enumerated up to
    :data:`EXACT_CASES` cases and the lattice p-value resolving it above, where a family's
    Holm level asks for it (``cases`` and ``permutations`` are kept for callers)."""
    del cases, permutations
    if nonzero_cases < 1:
        return 1.0
    return min(1.0, 2.0 / 2.0**nonzero_cases)
