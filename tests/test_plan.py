"""``medsp-report plan``: the planner's formulas against hand calculations, the full set's
structure against the published rubrics, and the command on two scripted runs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from inspect_medsp.cli import main
from inspect_medsp.comparisons.planning import (
    FULL_CASES,
    FULL_CLUSTER_SIZE,
    FULL_SCENARIOS,
    Spread,
    design_effect,
    epochs_needed,
    half_width,
    mdd,
    planned_cluster_size,
    scenarios_needed,
)
from inspect_medsp.comparisons.spread import pair_spread, run_spread
from inspect_medsp.data import COMPETENCIES
from inspect_medsp.stats import mdd_factor
from tests.support.runs import run
from tests.test_report import medsp_run

SPREAD = Spread(fixed=0.02, per_epoch=0.01, rho=0.1)


def test_formulas_by_hand() -> None:
    # design effect 1 + (6.0478 - 1) * 0.1 = 1.50478; one epoch: variance 0.03
    assert design_effect(0.1) == pytest.approx(1.50478, abs=1e-5)
    # se on the full set: sqrt(0.03 * 1.50478 / 1548) = 0.0054003; t quantiles on 594
    # degrees of freedom (2.8062 for mdd, 1.9640 for the interval), not the normal's
    assert mdd(SPREAD) == pytest.approx(2.806192 * 0.0054003, rel=1e-4)
    assert half_width(SPREAD) == pytest.approx(1.963966 * 0.0054003, rel=1e-4)
    # two epochs: variance 0.02 + 0.01 / 2 = 0.025; the case part 0.1 * 0.03 stays, so the
    # correlation at two epochs is 0.003 / 0.025 = 0.12 (not the 0.1 seen at one)
    assert SPREAD.rho_at(2) == pytest.approx(0.12)
    assert mdd(SPREAD, epochs=2) == pytest.approx(
        2.806192 * (0.025 * (1 + 5.047804 * 0.12) / 1548) ** 0.5, rel=1e-5
    )
    # a random subset of n scenarios has size-weighted mean case size
    # 1 + (n - 1) * 7814 / (1548 * 1547): 1.32 for 100, the full set's 6.05 for 1548
    assert planned_cluster_size(100) == pytest.approx(1 + 99 * 7814 / (1548 * 1547))
    assert planned_cluster_size(FULL_SCENARIOS) == pytest.approx(FULL_CLUSTER_SIZE)
    # to detect 3 points: the fewest n whose mdd (at n's own case size and cases) is <= 0.03
    n = scenarios_needed(SPREAD, 0.03)
    assert n == 291
    assert mdd(SPREAD, n) <= 0.03 < mdd(SPREAD, n - 1)
    # 1.5 points: more than the full set at 1 epoch, within it at 2
    assert scenarios_needed(SPREAD, 0.015) == 1597
    assert scenarios_needed(SPREAD, 0.015, 2) == 1340
    assert epochs_needed(SPREAD, 0.015) == 2
    # 1 point: the scenario part alone is too wide at any number of epochs
    assert epochs_needed(SPREAD, 0.01) is None
    with pytest.raises(ValueError):
        scenarios_needed(SPREAD, 0.0)


def test_mdd_on_the_full_set_matches_a_seeded_simulation() -> None:
    # 595 cases of 1548 scenarios shaped like the full set would give this se; simulate the
    # mean difference of many full-set-sized comparisons with independent scenarios (rho 0)
    spread = Spread(fixed=0.01, per_epoch=0.0, rho=0.0)
    rng = np.random.default_rng(1548)
    means = rng.normal(0, 0.1, size=(2000, FULL_SCENARIOS)).mean(axis=1)
    assert mdd(spread) / mdd_factor(FULL_CASES) == pytest.approx(float(means.std()), rel=0.05)


def test_full_set_structure_is_the_published_rubrics(upstream: Path) -> None:
    sizes: Counter[str] = Counter()
    for path in (upstream / "rubrics").glob("*.json"):
        if not path.stat().st_size:
            continue
        rubric = json.loads(path.read_text(encoding="utf-8"))
        if any(rubric.get(c) for c in COMPETENCIES):
            sizes[rubric["case_id"]] += 1
    assert sum(sizes.values()) == FULL_SCENARIOS
    assert len(sizes) == FULL_CASES
    assert sum(n * n for n in sizes.values()) / FULL_SCENARIOS == pytest.approx(FULL_CLUSTER_SIZE)


def test_spreads_from_runs() -> None:
    a = {f"c{i}/scenario1": 0.4 for i in range(10)}
    b = {f"c{i}/scenario1": 0.4 + (0.1 if i % 2 else 0.0) for i in range(10)}
    spread = pair_spread(run("a", a).samples, run("b", b).samples)
    assert spread is not None
    assert spread.fixed == pytest.approx(float(np.var([0.0, 0.1] * 5, ddof=1)))
    assert spread.per_epoch == 0.0 and spread.rho == 0.0
    epochs = run("e", {f"c{i}/scenario1": [0.2 + 0.05 * i, 0.3 + 0.05 * i] for i in range(10)})
    single = run_spread(epochs.samples)
    assert single is not None
    assert single.per_epoch == pytest.approx(0.005)  # var of (x, x + 0.1) is 0.005


def test_plan_command_on_two_scripted_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], _offline_tokens: None
) -> None:
    asks = medsp_run(tmp_path / "asks", "clin-asks")
    epi = medsp_run(tmp_path / "epi", "clin-c")
    prices = tmp_path / "prices.yaml"
    price = "{input: %s, output: %s, input_cache_write: %s, input_cache_read: 0.1}\n"
    prices.write_text(
        f"mockllm/clin-asks: {price % (5, 30, 5)}mockllm/clin-c: {price % (5, 30, 5)}"
        f"mockllm/model: {price % (1, 2, 1)}",
        encoding="utf-8",
    )
    assert main(["plan", asks, epi, "--detect", "0.05", "--model-cost-config", str(prices)]) == 0
    out = capsys.readouterr().out
    assert "curated, quality-controlled subset, not a random draw" in out
    assert "its mean is not a forecast of the full-set mean" in out
    assert "mockllm/clin-c minus mockllm/clin-asks: -5.9 points here over 3 shared scenarios" in out
    assert "1 epoch : " in out and "for both runs" in out
    # every projection carries its range from a case bootstrap
    assert "10th to 90th percentile of each number over a case bootstrap" in out
    assert "per full-set epoch" in out
    assert main(["plan", asks, "--detect", "3"]) == 2
    assert "--detect 3.0: give a share between 0 and 1" in capsys.readouterr().err
    assert main(["plan", asks, "--model-cost-config", str(tmp_path / "none.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
