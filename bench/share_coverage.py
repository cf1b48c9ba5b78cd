"""Tuning set for the share intervals: coverage of one run's macro and of a flip rate under
strong, heavy-tailed case variation, with the package's interval (``clustered_ratio`` with
``limits=(0, 1)``: logit scale, the smaller of the Bell-McCaffrey and the cases' own
Welch-Satterthwaite degrees of freedom) next to the plain CR2 / Bell-McCaffrey t interval it
replaced.

Usage (from the repository root): ``python -m bench.share_coverage [--replicates 1500]``

Macro: each case draws a logit effect from a t distribution with 3 degrees of freedom scaled to
SD 1.0 (and a case-size effect), each scenario an SD 0.8 effect and a rubric of 4 to 40
items clustered within the case, each item an SD 1.2 effect. Flip rate: each scenario has 2 to
24 items, about 40% of which could flip; each flips with a chance whose logit is that of 5%
plus an SD 1.0 case effect and an SD 0.8 item effect. Case sizes are drawn from the full set's.
The truths are the population values (a large seeded draw).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import numpy as np

from bench.coverage_bench import FULL_SIZES, _sigmoid, expand
from inspect_medsp.scoring.clustered import clustered_ratio, small_sample
from inspect_medsp.scoring.tdist import t_quantile

SIZES = expand(FULL_SIZES)
Draw = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Numerators, denominators and each row's case."""


def macro_draw(n: int, rng: np.random.Generator) -> Draw:
    sizes = rng.choice(SIZES, n)
    case_of = np.repeat(np.arange(n), sizes)
    base = rng.choice([4, 8, 11, 15, 25, 40], n)[case_of]
    items = np.maximum(1, (base * np.exp(rng.normal(0, 0.38, len(case_of)))).astype(int))
    effect = rng.standard_t(3, n) / math.sqrt(3) - 0.35 * (np.log(sizes) - 1)
    logit = 0.7 + effect[case_of] + rng.normal(0, 0.8, len(case_of))
    scenario = np.repeat(np.arange(len(case_of)), items)
    p = _sigmoid(logit[scenario] + rng.normal(0, 1.2, len(scenario)))
    met = np.bincount(scenario, weights=rng.random(len(scenario)) < p, minlength=len(case_of))
    return met / items, np.ones(len(case_of)), case_of


def flip_draw(n: int, rng: np.random.Generator) -> Draw:
    sizes = rng.choice(SIZES, n)
    case_of = np.repeat(np.arange(n), sizes)
    could = rng.binomial(rng.integers(2, 25, len(case_of)), 0.4)
    logit = math.log(0.05 / 0.95) + rng.normal(0, 1.0, n)[case_of]
    flips = np.array(
        [
            (rng.random(c) < _sigmoid(logit[i] + rng.normal(0, 0.8, c))).sum()
            for i, c in enumerate(could)
        ]
    )
    return flips.astype(float), could.astype(float), case_of


def truth(draw: Callable[[int, np.random.Generator], Draw], seed: int = 3) -> float:
    rng = np.random.default_rng(seed)
    top = bottom = 0.0
    for _ in range(300):
        y, x, _ = draw(200, rng)
        top, bottom = top + float(y.sum()), bottom + float(x.sum())
    return top / bottom


def plain_interval(y: np.ndarray, x: np.ndarray, case: np.ndarray, n: int) -> tuple[float, float]:
    """The replaced interval: CR2 (at least CR1) on the Bell-McCaffrey degrees of freedom."""
    total = float(x.sum())
    ratio = float(y.sum()) / total
    sums = np.bincount(case, weights=y - ratio * x, minlength=n)
    weights = np.bincount(case, weights=x, minlength=n)
    found = small_sample(sums, weights, total)
    half = t_quantile(0.975, found.df) * found.se
    return ratio - half, ratio + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1500)
    args = parser.parse_args()
    rng = np.random.default_rng(9)
    print("| statistic | cases | replicates | CR2, Bell-McCaffrey | now |")
    print("|---|---:|---:|---:|---:|")
    for name, draw in (("one run's macro", macro_draw), ("flip rate", flip_draw)):
        true = truth(draw)
        for n in (6, 10, 15, 30):
            before = now = used = 0
            for _ in range(args.replicates):
                y, x, case = draw(n, rng)
                if x.sum() <= 0:
                    continue
                used += 1
                low, high = plain_interval(y, x, case, n)
                before += low <= true <= high
                found = clustered_ratio(y, x, [str(c) for c in case], limits=(0.0, 1.0))
                now += found.low <= true <= found.high
            print(f"| {name} | {n} | {used} | {before / used:.1%} | {now / used:.1%} |")


if __name__ == "__main__":
    main()
