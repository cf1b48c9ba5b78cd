"""Does a model recall the cases? The row test: one decision per model from all its
scenarios, with a stated false-positive rate for the whole row.

For each probe, ``k`` of the ``n`` scenarios probed are above their control. Without memory
a probe and its control are alike, so the probe is above the control no more often than the
control is above the probe by the same margins: the control's own rate, ``b / n``, taken at
its one-sided 95% upper bound (``b / n + 1.645 * se``, so that a low draw of ``b`` does not
lower the bar). The test is one-sided and exact: the chance of ``k`` or more of ``n`` above
at the null rate ``max(that bound, NULL_FLOOR)``. The probes' p-values are adjusted by
Holm's step-down (``stats.holm``) and the row is flagged when any adjusted p-value is below
``ROW_ALPHA``: the chance that a model which recalls nothing is flagged is at most about
``ROW_ALPHA`` whenever each probe's rate of false "above" is at most its null rate
(docs/contamination.md computes it at full size by simulation).

``NULL_FLOOR`` is at least ``ROW_ALPHA``, so no single scenario above its control flags a row
(with one of ``n`` above the p-value is ``1 - (1 - NULL_FLOOR) ** n``, never below
``ROW_ALPHA``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from pydantic import BaseModel

from inspect_medsp.stats import holm

ROW_ALPHA = 0.05
"""The row flag's false-positive rate: the chance a model that recalls nothing is flagged."""

NULL_FLOOR = 0.05
"""The least null rate of a probe: however rarely its control beats the probe, a probe is
taken to be above its control by chance in at least one scenario in twenty (what a knowledge
control can miss: a hint only the probe's fuller passage or title gives)."""

Z95 = 1.959963984540054
"""The 97.5th percentile of the standard normal distribution."""

Z90 = 1.6448536269514722
"""The 95th percentile of the standard normal distribution (a one-sided 95% bound)."""


def _log_pmf(i: int, n: int, log_p: float, log_q: float) -> float:
    return (
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
        + i * log_p + (n - i) * log_q
    )  # fmt: skip


def _log_sum(terms: list[float]) -> float:
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), exact (summed in log space over the shorter
    side)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    if k > n * p:  # the upper tail is the small one: sum it
        upper = [_log_pmf(i, n, log_p, log_q) for i in range(k, n + 1)]
        return min(1.0, math.exp(_log_sum(upper)))
    lower = [_log_pmf(i, n, log_p, log_q) for i in range(k)]
    return max(0.0, 1.0 - math.exp(_log_sum(lower)))


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of the share ``k / n`` (``(0, 1)`` when ``n`` is 0)."""
    if n == 0:
        return 0.0, 1.0
    share = k / n
    half = Z95 * math.sqrt(share * (1 - share) / n + Z95**2 / (4 * n * n))
    centre = share + Z95**2 / (2 * n)
    scale = 1 + Z95**2 / n
    return max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale)


class ProbeTest(BaseModel):
    """One probe's part of the row test."""

    name: str
    probed: int
    """Scenarios probed with it."""
    above: int
    """Scenarios above their control."""
    below: int
    """Scenarios whose control is above the probe by the same margins."""
    interval: tuple[float, float]
    """The 95% Wilson interval of the share above."""
    null_rate: float
    """The rate the share above is tested against: the larger of the control's own rate
    (its one-sided 95% upper bound) and ``NULL_FLOOR``."""
    p_value: float
    """One-sided exact binomial p-value of ``above`` or more at the null rate."""
    adjusted: float = 1.0
    """The p-value adjusted by Holm over the row's probes."""

    @property
    def share(self) -> float:
        return self.above / self.probed if self.probed else 0.0

    @property
    def significant(self) -> bool:
        return self.adjusted < ROW_ALPHA


class RowTest(BaseModel):
    """The row test of one model: each probe's test, and the decision."""

    probes: list[ProbeTest]

    @property
    def flagged(self) -> bool:
        """Some probe's share above its control is beyond its null rate after Holm."""
        return any(t.significant for t in self.probes)

    @property
    def reasons(self) -> list[str]:
        """The probes that flag the row."""
        return [t.name for t in self.probes if t.significant]


def probe_test(name: str, probed: int, above: int, below: int) -> ProbeTest:
    """One probe's test, before the adjustment."""
    own = below / probed if probed else 0.0
    bound = own + Z90 * math.sqrt(own * (1 - own) / probed) if probed else 0.0
    null = min(1.0, max(bound, NULL_FLOOR))
    return ProbeTest(
        name=name,
        probed=probed,
        above=above,
        below=below,
        interval=wilson(above, probed),
        null_rate=null,
        p_value=binomial_tail(above, probed, null) if probed else 1.0,
    )


def row_test(counts: Mapping[str, tuple[int, int, int]]) -> RowTest:
    """The row test from each probe's ``(probed, above, below)`` counts (probes with no
    scenario probed are left out of the test and of the adjustment)."""
    tests = [probe_test(name, *c) for name, c in counts.items() if c[0] > 0]
    adjusted = holm([t.p_value for t in tests])
    return RowTest(
        probes=[t.model_copy(update={"adjusted": a}) for t, a in zip(tests, adjusted, strict=True)]
    )


def simulated_flag_rate(
    rates: Mapping[str, tuple[float, float]], scenarios: int, runs: int, seed: int = 11
) -> float:
    """How often the row test flags a row: the share of ``runs`` simulated rows of
    ``scenarios`` scenarios in which each probe is above its control at its first rate and
    its control above it at its second, each scenario independently. At the rates of a
    model that recalls nothing it is the row flag's false-positive rate; at a memorizer's,
    its power."""
    rng = np.random.default_rng(seed)
    flagged = 0
    for _ in range(runs):
        counts: dict[str, tuple[int, int, int]] = {}
        for name, (up, down) in rates.items():
            draws = rng.random(scenarios)
            k_above = int((draws < up).sum())
            k_below = int(((draws >= up) & (draws < up + down)).sum())
            counts[name] = (scenarios, k_above, k_below)
        flagged += row_test(counts).flagged
    return flagged / runs
