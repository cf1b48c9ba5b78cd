"""How much a majority of grader repeats would move over a re-grading, from one set of votes.

An item graded by ``k`` repeats, each saying met with an unknown chance ``p`` (its vote rate),
is met when more than half say so (a tie is not met): a fresh re-grading says met with chance
``q_k(p)``, and its verdict varies by ``q (1 - q)``, a polynomial of degree ``2k`` in ``p``.
From ``k`` votes only polynomials of degree ``k`` or less have unbiased estimators, so no
estimator of one item's ``q (1 - q)`` is right for every ``p`` (the share of its votes plugged
into ``q (1 - q)`` gave twice the true SD of the macro with 3 repeats each flipping 5% of the
time, and a sixth too little with vote rates spread over the middle; ``bench/regrading_bench``).

Over many items the shares of items with 0, 1, ..., k votes met are the first ``k`` moments of
the distribution of ``p`` over those items, and nothing more: any distribution with those
moments gives the same votes. So this module bounds the sum rather than guessing it: the least
and the most ``q (1 - q)`` can average over distributions of ``p`` (on a fine grid) whose vote
shares lie within sampling error of the shares seen (a small linear program per number of
votes; the moment problem). The truth lies inside whatever the items' vote rates are, but for
the shares' sampling error (538 of the bench's 540 simulated runs); how wide
the range is depends on them (with 3 repeats a factor 2 to 4 in SD when most items are
unanimous, 1.4 with noisy graders, narrower with 5 repeats).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

GRID = np.linspace(0.0, 1.0, 401)
"""The vote rates the distribution of ``p`` is put on."""
Z = 2.0
"""How many standard errors each vote share may be off (with a floor of one item's worth)."""


class Bounds(NamedTuple):
    """The least and the most a quantity can be, given what was seen."""

    low: float
    high: float


class Vote(NamedTuple):
    """One item's votes: how many repeats judged it, how many said met, and its weight in the
    sum (one over the number of samples times its rubric's items squared)."""

    judged: int
    met: int
    weight: float


def majority_chance(k: int, p: np.ndarray) -> np.ndarray:
    """The chance that more than half of ``k`` votes, each met with chance ``p``, say met."""
    out = np.zeros_like(p, dtype=float)
    for j in range(k // 2 + 1, k + 1):
        out += math.comb(k, j) * p**j * (1 - p) ** (k - j)
    return out


def vote_shares(k: int, p: np.ndarray) -> np.ndarray:
    """The chance of ``j`` votes met of ``k`` at each vote rate (rows ``j = 0..k``)."""
    return np.array([math.comb(k, j) * p**j * (1 - p) ** (k - j) for j in range(k + 1)])


def regrading_variance(k: int, p: np.ndarray) -> np.ndarray:
    """The variance of a ``k``-vote majority over a re-grading at each vote rate."""
    q = majority_chance(k, p)
    out: np.ndarray = q * (1 - q)
    return out


def bounds_for(votes: Iterable[Vote]) -> Bounds | None:
    """Bounds on ``sum(weight * q (1 - q))`` over the items (None without an item judged):
    the items with the same number of judged votes are bounded together (their vote shares
    tell the moments of their vote rates), and the bounds of each number added up. An item
    no repeat judged counts 0 (it is not met whichever way a re-grading goes)."""
    by_k: dict[int, list[Vote]] = defaultdict(list)
    for v in votes:
        if v.judged > 0 and v.weight > 0:
            by_k[v.judged].append(v)
    if not by_k:
        return None
    low = high = 0.0
    for k, mine in sorted(by_k.items()):
        weights = np.array([v.weight for v in mine])
        met = np.array([v.met for v in mine])
        found = _class_bounds(k, met, weights)
        low += found.low
        high += found.high
    return Bounds(low, high)


def _class_bounds(k: int, met: np.ndarray, weights: np.ndarray) -> Bounds:
    """Bounds on ``sum(w q_k (1 - q_k))`` for items of ``k`` votes each."""
    total = float(weights.sum())
    shares = np.bincount(met, weights=weights, minlength=k + 1)[: k + 1] / total
    n_eff = total**2 / float((weights**2).sum())
    floor = 1.0 / n_eff
    clipped = np.clip(shares, floor, 1 - floor) if n_eff > 2 else np.full(k + 1, 0.5)
    slack = Z * np.sqrt(clipped * (1 - clipped) / n_eff) + 1e-9
    basis = vote_shares(k, GRID)
    target = regrading_variance(k, GRID)
    while True:
        low = _extreme(target, basis, shares - slack, shares + slack)
        high = _extreme(-target, basis, shares - slack, shares + slack)
        if low is not None and high is not None:
            return Bounds(total * max(0.0, low), total * max(0.0, -high))
        slack *= 2  # the shares sit outside every distribution's: widen until one fits


def _extreme(
    cost: np.ndarray, basis: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> float | None:
    """The least ``cost . g`` over weights ``g >= 0`` summing to 1 with
    ``lower <= basis @ g <= upper`` (None when no such ``g``)."""
    rows, cols = basis.shape
    # g, then the slacks of basis g + s = upper, then of basis g - t = lower
    a = np.zeros((1 + 2 * rows, cols + 2 * rows))
    a[0, :cols] = 1.0
    a[1 : 1 + rows, :cols] = basis
    a[1 : 1 + rows, cols : cols + rows] = np.eye(rows)
    a[1 + rows :, :cols] = basis
    a[1 + rows :, cols + rows :] = -np.eye(rows)
    b = np.concatenate([[1.0], upper, lower])
    c = np.concatenate([cost, np.zeros(2 * rows)])
    return simplex(c, a, b)


def simplex(c: np.ndarray, a: np.ndarray, b: np.ndarray, tol: float = 1e-11) -> float | None:
    """The least ``c . x`` with ``a x = b``, ``x >= 0`` (None when infeasible; the problems
    here are bounded). Two-phase tableau simplex: Dantzig's rule, then Bland's, so it ends."""
    m, n = a.shape
    sign = np.where(b < 0, -1.0, 1.0)
    a, b = a * sign[:, None], b * sign
    tableau = np.zeros((m + 1, n + m + 1))
    tableau[:m, :n] = a
    tableau[:m, n : n + m] = np.eye(m)
    tableau[:m, -1] = b
    basis = list(range(n, n + m))
    # phase 1: drive the artificial variables out
    tableau[m, :] = 0.0
    tableau[m, :n] = -a.sum(axis=0)
    tableau[m, -1] = -b.sum()
    _pivot_until_optimal(tableau, basis, n + m, tol)
    if -tableau[m, -1] > 1e-9:
        return None
    for row, var in enumerate(basis):
        if var >= n:  # an artificial left at 0: pivot it out on any real column
            cols = np.flatnonzero(np.abs(tableau[row, :n]) > tol)
            if len(cols):
                _pivot(tableau, basis, row, int(cols[0]))
    keep = [j for j in range(n)] + [n + m]
    tableau = tableau[:, keep]
    tableau[m, :] = 0.0
    tableau[m, :n] = c
    for row, var in enumerate(basis):
        if var < n:
            tableau[m, :] -= c[var] * tableau[row, :]
    stuck = [row for row, var in enumerate(basis) if var >= n]
    for row in stuck:  # a redundant row: its artificial stays at 0 and never re-enters
        tableau[row, :n] = 0.0
        basis[row] = -1
    _pivot_until_optimal(tableau, basis, n, tol)
    return float(-tableau[m, -1])


def _pivot_until_optimal(tableau: np.ndarray, basis: list[int], n: int, tol: float) -> None:
    m = tableau.shape[0] - 1
    for step in range(50_000):
        reduced = tableau[m, :n]
        entering = np.flatnonzero(reduced < -tol)
        if not len(entering):
            return
        # the steepest column first; Bland's (the first) after many steps, so it cannot cycle
        col = int(entering[0]) if step > 5_000 else int(np.argmin(reduced))
        column = tableau[:m, col]
        positive = column > tol
        if not positive.any():
            raise ArithmeticError("unbounded linear program")
        ratios = np.full(m, np.inf)
        ratios[positive] = tableau[:m, -1][positive] / column[positive]
        best = ratios.min()
        ties = np.flatnonzero(ratios <= best + tol * max(1.0, abs(best)))
        row = int(min(ties, key=lambda r: basis[r] if basis[r] >= 0 else math.inf))
        _pivot(tableau, basis, row, col)
    raise ArithmeticError("linear program did not converge")


def _pivot(tableau: np.ndarray, basis: list[int], row: int, col: int) -> None:
    tableau[row, :] /= tableau[row, col]
    for r in range(tableau.shape[0]):
        if r != row and tableau[r, col] != 0.0:
            tableau[r, :] -= tableau[r, col] * tableau[row, :]
    basis[row] = col
