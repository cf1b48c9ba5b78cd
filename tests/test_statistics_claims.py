"""The report's statistical promises that an independent simulation found broken, checked fast
and seeded: ``mdd`` does not depend on which group is ``a``; ``p < 0.05`` exactly when the
interval leaves out 0, ties included; no permutation floor under a Holm step; intervals inside
what is possible; the plan's correlation draws not clipped at 0; "best" and "gaps" only where
told apart from noise (the full checks: ``python -m bench.heldout_checks``)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from inspect_medsp.comparisons.case_weights import (
    case_draws,
    icc_draws,
    mean_square_df,
    once,
    studentized_variance,
)
from inspect_medsp.report import analyse, table_markdown
from inspect_medsp.report.gaps import below_text
from inspect_medsp.scoring import clustered_ratio
from inspect_medsp.stats import Pairing, paired_difference, paired_differences
from inspect_medsp.stats.signflip import lattice_p
from inspect_medsp.stats.simpower import power_at
from tests.support.runs import run


def _pair(rng: np.random.Generator, cases: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    sizes = rng.integers(1, 4, cases)
    clusters = [f"c{i}" for i, n in enumerate(sizes) for _ in range(n)]
    shared = np.repeat(rng.normal(0, 0.15, cases), sizes)
    a = np.clip(rng.uniform(0.3, 0.9, len(clusters)), 0, 1)
    b = np.clip(a + shared + rng.normal(0.03, 0.15, len(clusters)), 0, 1)
    return np.round(a * 17) / 17, np.round(b * 13) / 13, clusters


@pytest.mark.parametrize("cases", [6, 8, 12])
def test_mdd_is_the_same_whichever_group_is_a(cases: int) -> None:
    rng = np.random.default_rng(cases)
    for _ in range(3):
        a, b, clusters = _pair(rng, cases)
        forward, backward = paired_difference(a, b, clusters), paired_difference(b, a, clusters)
        assert not math.isnan(forward.mdd)
        assert forward.mdd == backward.mdd
        sums = np.bincount(np.unique(clusters, return_inverse=True)[1], weights=b - a)
        sizes = np.bincount(np.unique(clusters, return_inverse=True)[1]).astype(float)
        # the power at the printed mdd is at least 80% either way in the simulation behind it
        assert power_at(sums, sizes, forward.mdd) >= 0.8
        assert power_at(-sums, sizes, forward.mdd) >= 0.8


def test_p_below_5_percent_exactly_when_the_interval_leaves_out_0_with_ties() -> None:
    """Case sums on a coarse grid make many sign patterns tie with the observed sum, so 0 sits
    exactly on an interval end; the p-value and the interval must still agree."""
    checked = excluded = 0
    rng = np.random.default_rng(7)
    for cases in (6, 7, 9, 14):
        for _ in range(60):
            values = rng.integers(-2, 4, cases) / 3.0
            clusters = [f"c{i}" for i in range(cases)]
            r = paired_difference(np.zeros(cases), values, clusters)
            leaves_out = r.ci_low > 0 or r.ci_high < 0
            assert (r.p_value < 0.05) == leaves_out, (values, r)
            checked += 1
            excluded += leaves_out
    # the classic case: six cases all +1/3 and one... the interval's end must not be -0.0
    r = paired_difference(np.zeros(6), np.array([-1, -1, -1, -1, 1, -1]) * 2 / 3, list("abcdef"))
    assert r.p_value == pytest.approx(0.21875)
    assert r.ci_high >= 0.0 and not (r.ci_low > 0 or r.ci_high < 0)
    assert checked == 240 and 0 < excluded < checked


def test_lattice_p_matches_every_sign_pattern() -> None:
    rng = np.random.default_rng(3)
    for _ in range(4):
        sums = rng.normal(0.4, 1.0, 14)
        patterns = np.array(list(itertools.product([-1.0, 1.0], repeat=14)))
        exact = float(np.mean(np.abs(patterns @ sums) >= abs(sums.sum()) - 1e-12))
        assert lattice_p(sums) == pytest.approx(exact, rel=0.05, abs=2e-4)


def test_no_permutation_floor_under_a_holm_step() -> None:
    """A strong difference on 100 cases in a family of 546 rows: its p-value goes below the
    1 / 10,000 the random flips resolve, so Holm over 546 rows can still star it."""
    rng = np.random.default_rng(11)
    clusters = [f"c{i}" for i in range(100)]
    a = rng.uniform(0.2, 0.8, 100)
    b = np.clip(a + 0.25 + rng.normal(0, 0.2, 100), 0, 1)
    [row] = paired_differences([Pairing(a, b, clusters)], alphas=[0.05 / 546], detectable=False)
    assert row.p_value * 546 < 0.05
    assert row.p_value < 1e-4
    [plain] = paired_differences([Pairing(a, b, clusters)], detectable=False)
    assert plain.p_value == pytest.approx(1e-4)  # a lone row keeps the random draws' value


def test_intervals_are_clipped_to_what_is_possible() -> None:
    share = clustered_ratio([1, 1, 1, 1, 1, 0.2], [1] * 6, list("abcdef"), limits=(0.0, 1.0))
    assert 0.0 <= share.low < share.estimate < share.high <= 1.0
    shift = clustered_ratio([1, 1, 1, 1, 0.9, -0.2], [1] * 6, list("abcdef"), limits=(-1, 1))
    assert shift.high == 1.0 and shift.clipped and shift.low >= -1.0
    r = paired_difference([0, 0, 0, 0, 0, 0.8], [1, 1, 1, 1, 1, 0], list("abcdef"))
    assert r.clipped and r.ci_high == 1.0 and r.ci_low >= -1.0
    assert math.isnan(r.mdd)  # no possible difference is found with 80% power
    # a spread dominated by one case widens the interval (fewer degrees of freedom)
    even = clustered_ratio([0.5, 0.6, 0.4, 0.55, 0.45, 0.5], [1] * 6, list("abcdef"))
    lopsided = clustered_ratio([0.5, 0.5, 0.5, 0.5, 0.5, 0.9], [1] * 6, list("abcdef"))
    assert lopsided.df < 2.0 < even.df
    assert not (even.clipped or lopsided.clipped)
    # a share's interval is on the logit scale: inside (0, 1), holding the share, and skewed
    rare = clustered_ratio(
        [0, 0, 1, 0, 0, 2], [20, 15, 30, 10, 25, 40], list("abcdef"), limits=(0, 1)
    )
    assert 0.0 < rare.low < rare.estimate < rare.high < 1.0
    assert rare.high - rare.estimate > rare.estimate - rare.low


def test_intra_case_correlation_draws_can_fall_below_0() -> None:
    rng = np.random.default_rng(5)
    case = np.repeat(np.arange(40), 3)
    values = rng.normal(0, 1, len(case))  # no case effect at all
    draws = icc_draws(values, case, 400, 1)
    assert (draws < 0).mean() > 0.3
    assert draws.min() > -0.19


def test_intra_case_correlation_range_holds_the_truth_with_heavy_tailed_cases() -> None:
    """A few far-out cases (one in ten with a case effect five times the others') make the
    between-case mean square vary more than its normal-theory chi-square: with the normal
    degrees of freedom the 10-90% range of the correlation's draws held the truth 60% of the
    time here; with the degrees of freedom from the cases' own parts, 73%."""
    case = np.repeat(np.arange(60), 3)
    between = 0.9 * 0.3**2 + 0.1 * 1.5**2
    truth = between / (between + 1.0)
    held = 0
    for seed in (2, 3):
        rng = np.random.default_rng(seed)
        for _ in range(200):
            far = rng.random(60) < 0.1
            effects = np.where(far, rng.normal(0, 1.5, 60), rng.normal(0, 0.3, 60))
            draws = icc_draws(effects[case] + rng.normal(0, 1, len(case)), case, 1000, 3)
            low, high = np.percentile(draws, [10, 90])
            held += low <= truth <= high
    assert held / 400 > 0.68
    # one case carrying the whole sum: the fewest degrees of freedom; even parts: the normal
    assert mean_square_df(np.array([0.0] * 9 + [10.0]), np.ones(10), 9) <= 2.0
    assert mean_square_df(np.ones(10), np.ones(10), 9) == 9


def test_variance_range_reaches_further_up_when_few_cases_carry_the_spread() -> None:
    """The plan's spread: a studentized case bootstrap of the log variance. With every case
    once it is the sample variance; with a few far-out cases (one in ten with a case effect
    about seven times the others') its 10-90% range reaches higher than a plain case
    bootstrap's and holds the true variance at least as often."""
    case = np.repeat(np.arange(60), 3)
    x = np.random.default_rng(0).normal(size=len(case))
    assert studentized_variance(x, case, once(60))[0] == pytest.approx(np.var(x, ddof=1))
    truth = 0.9 * 0.3**2 + 0.1 * 2.0**2 + 1.0
    held = {"studentized": 0, "plain": 0}
    tops = {"studentized": 0.0, "plain": 0.0}
    for seed in (2, 3):
        rng = np.random.default_rng(seed)
        for _ in range(200):
            far = rng.random(60) < 0.1
            effects = np.where(far, rng.normal(0, 2.0, 60), rng.normal(0, 0.3, 60))
            x = effects[case] + rng.normal(0, 1, len(case))
            k = case_draws(60, 200, 7)
            plain = k[:, case] @ x  # (the plain bootstrap's variance, below)
            n = k[:, case].sum(axis=1)
            plain = (k[:, case] @ (x * x) - plain * plain / n) / (n - 1)
            studentized = studentized_variance(x, case, k)
            for name, draws in (("studentized", studentized), ("plain", plain)):
                low, high = np.percentile(draws, [10, 90])
                held[name] += low <= truth <= high
                tops[name] += high
    assert held["studentized"] >= held["plain"]
    assert tops["studentized"] > tops["plain"]


def test_best_is_bold_only_when_told_apart() -> None:
    close = analyse(
        [
            run("org/a", {f"c{i}/scenario1": 0.60 + 0.05 * (i % 3) for i in range(12)}),
            run("org/b", {f"c{i}/scenario1": 0.59 + 0.05 * (i % 3) for i in range(12)}),
        ]
    )
    assert "**" not in table_markdown(close.groups).split("| org/a |")[1]
    apart = analyse(
        [
            run("org/a", {f"c{i}/scenario1": 0.80 + 0.05 * (i % 3) for i in range(12)}),
            run("org/b", {f"c{i}/scenario1": 0.30 + 0.05 * (i % 3) for i in range(12)}),
        ]
    )
    assert "**" in table_markdown(apart.groups).split("| org/a |")[1].split("\n")[0]
    few = analyse([run("org/a", {"c1/s1": 0.5, "c2/s1": 0.7}), run("org/b", {"c1/s1": 0.2})])
    md = table_markdown(few.groups)
    assert "nan" not in md and "**" not in md


def test_a_gap_is_bold_only_when_its_interval_is_below_the_macro() -> None:
    group = analyse([run("org/a", {f"c{i}/scenario1": 0.6 for i in range(8)})]).groups[0]
    metrics = {
        "macro": 0.70,
        "PC_macro": 0.698,
        "PC_macro_ci_low": 0.60,
        "PC_macro_ci_high": 0.79,
        "MK_macro": 0.40,
        "MK_macro_ci_low": 0.30,
        "MK_macro_ci_high": 0.50,
    }
    shown = group.model_copy(update={"below_overall": ["PC", "MK"], "metrics": metrics})
    text = below_text(shown, 0.70)
    assert "**MK** 40.0% [30.0%, 50.0%]" in text
    assert "**PC**" not in text
    assert "not told apart from it: PC 69.8% [60.0%, 79.0%]" in text
