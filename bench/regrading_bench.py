"""How far the re-grading noise of a one-epoch run with grader repeats can be trusted: the
bounds the report gives against the truth, in a seeded simulation.

Usage (from the repository root): ``python -m bench.regrading_bench [--replicates 20]``

Each simulated run has Q100's shape in items (100 scenarios of 4 to 28 rubric items); each item
has a vote rate ``p`` (the chance one grader repeat says met, for this transcript) drawn from a
shape of grader, and ``k`` repeats vote on it. The truth is the variance of the macro over a
re-grading of the same transcripts, worked out from the items' ``p``: the mean over scenarios
of ``sum q (1 - q) / items**2``, over the scenarios, ``q`` the chance a fresh majority says met.
Shapes:

- ``bench φ``: the coverage bench's logistic item model (an item's verdict drawn from it, then
  each repeat flips it with chance φ, the same for every item);
- ``consistent``: p from Beta(0.15, 0.15), most items unanimous, a few torn;
- ``noisy``: p from Beta(2, 2), graders that often disagree;
- ``mix``: 80% of items at p = 0.01 or 0.99, 20% anywhere from 0.2 to 0.8;
- ``item flips``: a verdict, then a flip chance of the item's own from Beta(1, 9);
- ``unequal``: the mix with a repeat's vote lost (not judged) 15% of the time, so items have
  from 0 to k judged votes.

For each it prints the truth (SD of the macro, points), the old estimate (each item's share of
votes plugged into ``q (1 - q)``) and the report's bounds, as ratios to the truth (mean over
replicates), and how often the bounds held the truth.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import numpy as np

from inspect_medsp.comparisons.vote_bounds import Vote, bounds_for, regrading_variance

Shape = Callable[[int, np.random.Generator], np.ndarray]


def _bench(flip: float) -> Shape:
    def draw(n: int, rng: np.random.Generator) -> np.ndarray:
        met = rng.random(n) < 1 / (1 + np.exp(-(0.35 + rng.normal(0, 1.5, n))))
        out: np.ndarray = np.where(met, 1 - flip, flip)
        return out

    return draw


def _mix(n: int, rng: np.random.Generator) -> np.ndarray:
    sure = np.where(rng.random(n) < 0.6, 0.99, 0.01)
    out: np.ndarray = np.where(rng.random(n) < 0.8, sure, rng.uniform(0.2, 0.8, n))
    return out


def _item_flips(n: int, rng: np.random.Generator) -> np.ndarray:
    flip = rng.beta(1, 9, n)
    out: np.ndarray = np.where(rng.random(n) < 0.6, 1 - flip, flip)
    return out


SHAPES: dict[str, Shape] = {
    "bench φ=0.02": _bench(0.02),
    "bench φ=0.05": _bench(0.05),
    "bench φ=0.10": _bench(0.10),
    "bench φ=0.20": _bench(0.20),
    "consistent": lambda n, rng: rng.beta(0.15, 0.15, n),
    "noisy": lambda n, rng: rng.beta(2, 2, n),
    "mix": _mix,
    "item flips": _item_flips,
    "unequal": _mix,
}
LOST = 0.15
"""The chance a repeat's vote on an item is lost (not judged) in the ``unequal`` shape."""


def old_estimate(judged: np.ndarray, met: np.ndarray, weight: np.ndarray) -> float:
    """The estimate the report used before: each item's share of votes met plugged into the
    majority's variance (items with fewer than two judged votes left out)."""
    total = 0.0
    for k in np.unique(judged):
        if k < 2:
            continue
        mine = judged == k
        rate = met[mine] / k
        total += float((weight[mine] * regrading_variance(int(k), rate)).sum())
    return total


class Draw:
    """One simulated run's votes and its truth (variances of one scenario's completion,
    averaged over scenarios; divide by the scenarios for the macro's)."""

    def __init__(self, shape: str, k: int, rng: np.random.Generator, scenarios: int = 100) -> None:
        items = rng.integers(4, 29, scenarios)
        self.scenarios = scenarios
        p = SHAPES[shape](int(items.sum()), rng)
        self.weight = np.repeat(1.0 / scenarios / items.astype(float) ** 2, items)
        cast = rng.random((len(p), k)) < p[:, None]
        judged = rng.random((len(p), k)) >= LOST if shape == "unequal" else np.ones_like(cast)
        self.judged = judged.sum(axis=1)
        self.met = (cast & judged).sum(axis=1)
        self.truth = sum(
            float(
                (
                    self.weight[self.judged == j] * regrading_variance(int(j), p[self.judged == j])
                ).sum()
            )
            for j in np.unique(self.judged)
        )

    def votes(self) -> list[Vote]:
        return [
            Vote(int(j), int(m), float(w))
            for j, m, w in zip(self.judged, self.met, self.weight, strict=True)
        ]

    def sd(self, variance: float) -> float:
        """The macro's SD in points from one scenario's variance."""
        return math.sqrt(variance / self.scenarios) * 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(33)
    print("| Shape | k | True SD (points) | Old estimate | Bounds (low to high) | Held |")
    print("|---|---|---|---|---|---|")
    for k in (2, 3, 5):
        for shape in SHAPES:
            truth, old, low, high, held = [], [], [], [], 0
            for _ in range(args.replicates):
                draw = Draw(shape, k, rng)
                found = bounds_for(draw.votes())
                assert found is not None
                truth.append(draw.sd(draw.truth))
                old.append(draw.sd(old_estimate(draw.judged, draw.met, draw.weight)) / truth[-1])
                low.append(draw.sd(found.low) / truth[-1])
                high.append(draw.sd(found.high) / truth[-1])
                held += found.low <= draw.truth <= found.high
            print(
                f"| {shape} | {k} | {np.mean(truth):.2f} | {np.mean(old):.2f}x | "
                f"{np.mean(low):.2f}x to {np.mean(high):.2f}x | {held}/{args.replicates} |"
            )


if __name__ == "__main__":
    main()
