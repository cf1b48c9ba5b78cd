"""The simulated full set and its item model, shared by the benches that simulate runs
(``coverage_bench``, ``trust_coverage``, ``synthetic_logs``, ``share_coverage``,
``report_bench``): the case sizes of the full set and of Q100, and the standard deviations of
the logistic item model with its grader."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

FULL_SIZES: dict[int, int] = {
    1: 302, 2: 91, 3: 73, 4: 58, 5: 15, 6: 20, 7: 7, 8: 6, 9: 5, 10: 4, 11: 4, 12: 1,
    15: 2, 16: 1, 18: 2, 19: 1, 20: 1, 29: 1, 30: 1,
}  # fmt: skip
"""Cases by number of scenarios: 595 cases, 1,548 scenarios, sum of squared sizes 9,362 (the
full set's three numbers; the published archive's shape with the unscoreable scenarios
taken out)."""
Q100_SIZES: dict[int, int] = {1: 76, 2: 3, 3: 6}
"""85 cases, 100 scenarios, 9 cases with more than one."""


class Model(NamedTuple):
    """Standard deviations of the logistic item model (logit scale) and its grader."""

    mean: float = 0.35
    case: float = 0.5
    model_case: float = 0.3
    scenario: float = 0.6
    model_scenario: float = 0.4
    item: float = 1.1
    epoch: float = 0.3
    flip: float = 0.05
    items_low: int = 4
    items_high: int = 28


def expand(histogram: dict[int, int]) -> np.ndarray:
    """Each case's number of scenarios, from a histogram (size -> cases)."""
    return np.array([size for size, n in sorted(histogram.items()) for _ in range(n)])


def sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-x))
    return out
