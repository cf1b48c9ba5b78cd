"""How far to trust an interval: coverage of the report's 95% intervals and power at the
``mdd`` it reports, in a seeded simulation.

Usage (from the repository root): ``python -m bench.coverage_bench [--replicates 2000]``

Each simulated run grades every scenario's rubric items with a logistic item model: the logit
of an item being met is the sum of a model effect, a case effect, the model's own case effect,
a scenario effect, the model's own scenario effect, an item effect and an encounter (epoch)
effect; then the grader flips each verdict with a small probability. Two models (A and B) run
the same scenarios. The true macro of a model, and the true difference B - A, are the
expectations of that model over cases, scenarios and items (worked out once on a large seeded
draw).

Designs: 6, 8, 10, 15 and 30 cases (each case's number of scenarios drawn from the full set's
case sizes), Q100's shape (100 scenarios from 85 cases: 9 cases with more than one scenario)
and the full set's (1,548 scenarios from 595 cases: a size histogram with the full set's
count, sum and sum of squares, 9,362).

For each design it reports, over the replicates:

- the coverage of the 95% interval of A's macro and micro (the metrics' intervals) and of the
  paired difference B - A (the report's interval), with B better than A by about 3 points;
- the power at the reported mdd: ``mdd`` is read off run pairs with no true difference; then
  fresh run pairs whose true difference is the mean reported ``mdd`` are tested, and power is
  the share detected at two-sided 5% (what "this comparison can detect X points" promises of
  the design);
- the power at each run's own mdd: each run pair's reported ``mdd`` is the true difference of
  one fresh run pair. At few cases this is lower, as one run's ``mdd`` is itself a noisy
  estimate (its standard error rests on a few cases), and power drops faster below the mdd
  than it rises above it.

The table it prints is the README's "How far to trust an interval".
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from bench.item_model import FULL_SIZES as FULL_SIZES  # the other benches' names stay
from bench.item_model import Q100_SIZES as Q100_SIZES
from bench.item_model import Model as Model
from bench.item_model import expand as expand
from bench.item_model import sigmoid
from inspect_medsp.scoring.clustered import clustered_ratio
from inspect_medsp.stats.paired import Pairing, paired_differences
from inspect_medsp.stats.power import ALPHA

SEED = 2024

_sigmoid = sigmoid
"""The logistic function (``bench.item_model.sigmoid``), by the name other benches import."""

SHIFT = 0.15
"""B's logit advantage for the coverage runs (about 3 points of completion)."""


class Pair(NamedTuple):
    """One simulated pair of runs: per-scenario completed and total items, and cases."""

    a_met: np.ndarray
    b_met: np.ndarray
    items: np.ndarray
    cases: list[str]


def simulate(sizes: np.ndarray, shift: float, rng: np.random.Generator, m: Model) -> Pair:
    """Runs A and B over cases of ``sizes``; B's logit is ``shift`` higher."""
    n_cases = len(sizes)
    case_of = np.repeat(np.arange(n_cases), sizes)
    n = len(case_of)
    items = rng.integers(m.items_low, m.items_high + 1, n)
    scenario_of = np.repeat(np.arange(n), items)
    shared = (rng.normal(0, m.case, n_cases)[case_of] + rng.normal(0, m.scenario, n))[scenario_of]
    item = rng.normal(0, m.item, len(scenario_of))
    met = []
    for model_shift in (0.0, shift):
        own = rng.normal(0, m.model_case, n_cases)[case_of] + rng.normal(0, m.model_scenario, n)
        own += rng.normal(0, m.epoch, n)
        p = sigmoid(m.mean + model_shift + shared + own[scenario_of] + item)
        verdict = rng.random(len(p)) < p
        flipped = rng.random(len(p)) < m.flip
        met.append(np.bincount(scenario_of, weights=verdict ^ flipped, minlength=n))
    return Pair(met[0], met[1], items.astype(float), [f"c{c}" for c in case_of])


def true_macro(shift: float, m: Model, draws: int = 400_000, seed: int = 7) -> float:
    """The expected completion of a model with ``shift`` (macro's and micro's true value:
    the number of items is independent of the effects)."""
    rng = np.random.default_rng(seed)
    latent = (
        rng.normal(0, math.sqrt(m.case**2 + m.model_case**2 + m.scenario**2
                                + m.model_scenario**2 + m.epoch**2 + m.item**2), draws)
    )  # fmt: skip
    p = sigmoid(m.mean + shift + latent)
    return float(np.mean(p * (1 - m.flip) + (1 - p) * m.flip))


class Shifts:
    """The logit shift that gives a true difference B - A (interpolated on a grid)."""

    def __init__(self, m: Model) -> None:
        base = true_macro(0.0, m)
        self.grid = np.linspace(0.0, 3.0, 121)
        self.differences = np.array([true_macro(s, m) - base for s in self.grid])

    def for_difference(self, difference: float) -> float:
        return float(np.interp(difference, self.differences, self.grid))

    def difference(self, shift: float) -> float:
        return float(np.interp(shift, self.grid, self.differences))


class Result(NamedTuple):
    design: str
    cases: int
    scenarios: float
    macro: float
    micro: float
    difference: float
    mdd: float
    """The mean reported mdd."""
    power: float
    """Power when the true difference is the mean reported mdd."""
    own_power: float
    """Mean power when the true difference is each run pair's own reported mdd."""
    no_mdd: float


def _pairings(pairs: Sequence[Pair]) -> list[Pairing]:
    return [Pairing(p.a_met / p.items, p.b_met / p.items, p.cases) for p in pairs]


def run_design(
    name: str,
    draw_sizes: Sequence[np.ndarray],
    shifts: Shifts,
    m: Model,
    rng: np.random.Generator,
    chunk: int = 200,
) -> Result:
    """Coverage and power over ``len(draw_sizes)`` replicates of a design."""
    truth_a = true_macro(0.0, m)
    truth_diff = shifts.difference(SHIFT)
    covered = {"macro": 0, "micro": 0, "difference": 0}
    mdds: list[float] = []
    own_detected = 0
    no_mdd = 0
    scenarios = 0
    replicates = len(draw_sizes)
    for start in range(0, replicates, chunk):
        block = draw_sizes[start : start + chunk]
        coverage_pairs = [simulate(sizes, SHIFT, rng, m) for sizes in block]
        for pair in coverage_pairs:
            scenarios += len(pair.items)
            a = pair.a_met / pair.items
            macro = clustered_ratio(a, np.ones(len(a)), pair.cases)
            micro = clustered_ratio(pair.a_met, pair.items, pair.cases)
            covered["macro"] += macro.low <= truth_a <= macro.high
            covered["micro"] += micro.low <= truth_a <= micro.high
        found = paired_differences(_pairings(coverage_pairs), detectable=False)
        covered["difference"] += sum(r.ci_low <= truth_diff <= r.ci_high for r in found)
        nulls = paired_differences(_pairings([simulate(z, 0.0, rng, m) for z in block]))
        own: list[tuple[np.ndarray, float]] = []
        for sizes, r in zip(block, nulls, strict=True):
            if r.smallest_p >= ALPHA or math.isnan(r.mdd):
                no_mdd += 1
            else:
                mdds.append(r.mdd)
                own.append((sizes, r.mdd))
        tested = paired_differences(
            _pairings([simulate(z, shifts.for_difference(t), rng, m) for z, t in own]),
            detectable=False,
        )
        own_detected += sum(r.p_value < ALPHA for r in tested)
    typical = float(np.mean(mdds)) if mdds else math.nan
    detected = 0
    if mdds:
        shift = shifts.for_difference(typical)
        for start in range(0, replicates, chunk):
            block = draw_sizes[start : start + chunk]
            tested = paired_differences(
                _pairings([simulate(z, shift, rng, m) for z in block]), detectable=False
            )
            detected += sum(r.p_value < ALPHA for r in tested)
    return Result(
        design=name,
        cases=len(draw_sizes[0]),
        scenarios=scenarios / replicates,
        macro=covered["macro"] / replicates,
        micro=covered["micro"] / replicates,
        difference=covered["difference"] / replicates,
        mdd=typical,
        power=detected / replicates if mdds else math.nan,
        own_power=own_detected / len(mdds) if mdds else math.nan,
        no_mdd=no_mdd / replicates,
    )


def designs(
    replicates: int, full_replicates: int, rng: np.random.Generator
) -> list[tuple[str, list[np.ndarray]]]:
    """Each design with the case sizes of every replicate."""
    full = expand(FULL_SIZES)
    out: list[tuple[str, list[np.ndarray]]] = []
    for n in (6, 8, 10, 15, 30):
        out.append((f"{n} cases", [rng.choice(full, n) for _ in range(replicates)]))
    q100 = expand(Q100_SIZES)
    out.append(("Q100's shape", [q100] * replicates))
    out.append(("full set's shape", [full] * full_replicates))
    return out


def _share(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.1%}"


def table(results: Sequence[Result]) -> str:
    """The Markdown table of the README."""
    lines = [
        "| design | cases | scenarios (mean) | macro interval | micro interval | "
        "difference interval | mean reported mdd (points) | power at the reported mdd | "
        "power at each run's own mdd |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        mdd = "n/a" if math.isnan(r.mdd) else f"{r.mdd * 100:.1f}"
        lines.append(
            f"| {r.design} | {r.cases} | {r.scenarios:.0f} | {r.macro:.1%} | {r.micro:.1%} | "
            f"{r.difference:.1%} | {mdd} | {_share(r.power)} | {_share(r.own_power)} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--full-replicates", type=int, default=500)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--only", nargs="*", default=None, help="run only these designs, e.g. '8 cases'"
    )
    parser.add_argument("--plan-pilots", type=int, default=400, help="Q100-shaped pilots")
    parser.add_argument("--full-plan-pilots", type=int, default=100)
    parser.add_argument("--agreement-replicates", type=int, default=2000)
    parser.add_argument(
        "--trust-only", action="store_true", help="only the plan and agreement rows"
    )
    args = parser.parse_args()
    if args.trust_only:
        _trust(args)
        return
    m = Model()
    shifts = Shifts(m)
    rng = np.random.default_rng(args.seed)
    results = []
    for name, sizes in designs(args.replicates, args.full_replicates, rng):
        if args.only is not None and name not in args.only:
            continue
        start = time.perf_counter()
        results.append(run_design(name, sizes, shifts, m, rng))
        print(f"{name}: {time.perf_counter() - start:.0f} s", flush=True)
    print()
    print(
        f"Coverage of the nominal 95% intervals and power at the reported mdd (seed "
        f"{args.seed}; {args.replicates:,} replicates, {args.full_replicates:,} for the full "
        f"set; true macro of A {true_macro(0.0, m):.3f}, true difference B - A "
        f"{shifts.difference(SHIFT) * 100:.2f} points):"
    )
    print()
    print(table(results))
    _trust(args)


def _trust(args: argparse.Namespace) -> None:
    """The plan's ranges and the agreement interval (``bench.trust_coverage``)."""
    from bench.trust_coverage import agreement_rows, plan_rows
    from bench.trust_coverage import table as trust_table

    start = time.perf_counter()
    rows = plan_rows(args.plan_pilots, args.full_plan_pilots)
    rows += agreement_rows(args.agreement_replicates)
    print(f"plan and agreement: {time.perf_counter() - start:.0f} s", flush=True)
    print()
    print(trust_table(rows))


if __name__ == "__main__":
    main()
