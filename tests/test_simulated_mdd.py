"""The minimum detectable difference on few cases is found by simulating the report's own
test: at the reported mdd that test (its p-values, not a shortcut) detects the difference in
80% of the simulated comparisons, on average it is the difference the test finds with 80%
power, and a level the design cannot reach gives none."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inspect_medsp.full_report import render_markdown
from inspect_medsp.report import analyse
from inspect_medsp.stats import paired_difference, simpower
from inspect_medsp.stats.pairtest import paired_test
from inspect_medsp.stats.power import mdd
from tests.support.runs import run

SUMS = np.array([0.31, -0.12, 0.05, 0.22, -0.02, 0.4, 0.13, -0.2])
SIZES = np.array([1.0, 1.0, 2.0, 3.0, 1.0, 4.0, 1.0, 2.0])


def detected_share(delta: float, draws: int = 600) -> float:
    """The share of the simulation's draws in which the test's p-value is below 5% when the
    true difference is ``delta`` (drawn as the module says, then tested in full)."""
    total = SIZES.sum()
    residuals = (SUMS - SUMS.sum() / total * SIZES) / np.sqrt(1 - SIZES / total)
    rng = np.random.default_rng(simpower.SIMULATION_SEED)
    rows = rng.integers(0, len(SUMS), size=(draws, len(SUMS)))
    test = paired_test(residuals[rows] + delta * SIZES[rows], SIZES[rows])
    return float(np.mean(test.p_values < 0.05))


def test_the_simulated_mdd_is_where_the_tests_own_p_values_reach_80_percent() -> None:
    found = simpower.simulated_mdd(SUMS, SIZES, draws=600)
    assert detected_share(found * 1.001) >= 0.8 > detected_share(found * 0.99)


def test_on_few_equal_cases_the_simulated_mdd_has_80_percent_power_on_average() -> None:
    # eight cases of one scenario, differences normal with sd 1: the test's true power curve
    # from 4,000 fresh comparisons, against the mdd reported from 80 observed ones
    rng = np.random.default_rng(8)
    sizes = np.ones(8)
    fresh = paired_test(rng.normal(0, 1, (4000, 8)), np.ones((4000, 8)), p_values=False)
    needs = np.sort(-fresh.low)
    true_mdd = float(needs[int(0.8 * len(needs))])
    simulated, formula = [], []
    for _ in range(80):
        observed = rng.normal(0, 1, 8)
        simulated.append(simpower.simulated_mdd(observed, sizes, draws=1000))
        test = paired_test(observed[None], sizes[None])
        formula.append(mdd(float(test.se[0]), 8, df=float(test.df[0])))
    assert float(np.mean(simulated)) == pytest.approx(true_mdd, rel=0.06)
    # the t formula promises power the test does not have on eight cases
    assert float(np.mean(formula)) < 0.95 * true_mdd
    power_at_mean = float(np.mean(needs < np.mean(simulated)))
    assert 0.75 <= power_at_mean <= 0.85


def test_a_level_the_design_cannot_reach_gives_no_mdd() -> None:
    # six cases: the exact test's smallest p-value is 2/64 = 0.031, so at 1% nothing is found
    sums, sizes = SUMS[:6], SIZES[:6]
    assert math.isnan(simpower.simulated_mdd(sums, sizes, alpha=0.01))
    assert not math.isnan(simpower.simulated_mdd(sums, sizes, alpha=0.05))


def test_a_report_on_eight_cases_states_the_simulated_mdd() -> None:
    ids = [f"c{i}/scenario1" for i in range(8)]
    weak = dict(zip(ids, [0.2, 0.3, 0.35, 0.4, 0.5, 0.55, 0.6, 0.7], strict=True))
    lift = np.array([0.1, 0.05, 0.15, -0.05, 0.1, 0.15, 0.0, 0.05])
    strong = {k: v + u for (k, v), u in zip(weak.items(), lift, strict=True)}
    analysis = analyse([run("weak", weak), run("strong", strong)])
    (row,) = [r for r in analysis.comparisons if r.competency == "overall"]
    assert (row.group_a, row.group_b) == ("strong", "weak")
    d = (
        np.round(np.array(list(weak.values())) * 20) / 20
        - np.round(np.array(list(strong.values())) * 20) / 20
    )
    assert row.paired.mdd == pytest.approx(simpower.simulated_mdd(d, np.ones(8)))
    alone = paired_difference(np.zeros(8), d, [f"c{i}" for i in range(8)])
    # the test on eight cases needs more than the t formula says
    assert row.paired.mdd > mdd(alone.se, 8, df=alone.df)
    text = render_markdown(analysis, charts=False)
    # below 15 cases the sentence says the 80% is a rough guide
    detect = f"can detect {row.paired.mdd * 100:.1f} points in either direction (80% power"
    assert f"{detect} if its 8 cases" in text
