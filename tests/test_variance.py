"""Where the spread comes from: the variance split recovers known components from a seeded
simulation, reads grader repeats from the item votes, and is reported in words and CSV."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from inspect_medsp.comparisons.comparisons_sections import variance
from inspect_medsp.comparisons.spread import repeat_completions, rerun_noise, variance_rows
from inspect_medsp.comparisons.variance_split import decompose, icc
from inspect_medsp.full_report import render_markdown, write_report
from inspect_medsp.record import ItemVerdict, MedspSample
from inspect_medsp.report import analyse
from tests.support.runs import run, sample
from tests.test_scoring_paths import two_epochs


def simulated(
    scenarios: int, epochs: int, repeats: int, sds: tuple[float, float, float], seed: int = 0
) -> list[list[list[float]]]:
    rng = np.random.default_rng(seed)
    s_sd, e_sd, g_sd = sds
    out = []
    for _ in range(scenarios):
        level = 0.5 + rng.normal(0, s_sd)
        encounters = []
        for _ in range(epochs):
            encounter = level + rng.normal(0, e_sd)
            encounters.append([float(v) for v in encounter + rng.normal(0, g_sd, repeats)])
        out.append(encounters)
    return out


def test_known_components_are_recovered() -> None:
    parts = decompose(simulated(600, 3, 3, (0.15, 0.08, 0.05)))
    assert (parts.scenarios, parts.epochs, parts.repeats) == (600, 3, 3)
    assert math.sqrt(parts.scenario) == pytest.approx(0.15, rel=0.1)
    assert math.sqrt(parts.epoch) == pytest.approx(0.08, rel=0.1)
    assert math.sqrt(parts.grader) == pytest.approx(0.05, rel=0.1)
    assert parts.noise == pytest.approx(parts.epoch / 3 + parts.grader / 9)


def test_without_repeats_or_epochs_the_part_is_unknown() -> None:
    once = decompose([[[0.2]], [[0.4]], [[0.9]]])
    assert math.isnan(once.epoch) and math.isnan(once.grader)
    assert once.scenario == pytest.approx(float(np.var([0.2, 0.4, 0.9], ddof=1)))
    epochs_only = decompose([[[0.2], [0.4]], [[0.6], [0.6]]])
    assert math.isnan(epochs_only.grader)
    assert epochs_only.epoch == pytest.approx(0.01)  # (0.02 + 0) / 2


def test_repeat_completion_reads_each_repeats_votes() -> None:
    s = sample("c1/scenario1", 0.5, items=4)
    votes: list[list[bool | None]] = [
        [True, True, False],
        [True, False, False],
        [None, True, True],
        [False, False, False],
    ]
    assert s.score is not None
    s.score.metadata.items = [
        ItemVerdict(number=i, competency="PC", text=f"item {i}", met=True, judged=True, votes=v)
        for i, v in enumerate(votes)
    ]
    assert repeat_completions(s) == [2 / 4, 2 / 4, 1 / 4]


def test_icc_by_hand() -> None:
    # two cases of two scenarios, all the spread between the cases
    assert icc([0.2, 0.2, 0.8, 0.8], ["a", "a", "b", "b"]).rho == pytest.approx(1.0)
    # no case with two scenarios: not estimable, 0
    assert icc([0.1, 0.5], ["a", "b"]) == (0.0, 2, 0)


def test_report_splits_epochs_and_says_what_noise_means() -> None:
    rng = np.random.default_rng(4)
    levels = rng.uniform(0.2, 0.7, 30)
    runs = [
        run("two-epochs", {f"c{i}/scenario1": [float(v), v + 0.1] for i, v in enumerate(levels)}),
        run("once", {f"c{i}/scenario1": 0.5 for i in range(30)}),
    ]
    analysis = analyse(runs)
    rows = variance_rows([(g.label, g.samples) for g in analysis.groups])
    two = next(r for r in rows if r.group == "two-epochs")
    assert two.parts.epochs == 2 and two.split
    assert math.sqrt(two.parts.epoch) == pytest.approx(0.1 / math.sqrt(2), rel=0.2)
    text = render_markdown(analysis, charts=False)
    assert "## Where the spread comes from" in text
    assert "**two-epochs**: of the variance of one encounter's completion" in text
    assert "encounter-to-encounter variation (epochs)" in text
    table = variance(analysis)
    assert table.columns[:4] == ["group", "scenarios", "epochs", "repeats"]
    assert set(table.column("group")) == {"two-epochs", "once"}


def test_single_epoch_runs_say_the_spread_cannot_be_split() -> None:
    analysis = analyse([run("m", {f"c{i}/scenario1": 0.1 * (i % 9) for i in range(10)})])
    text = render_markdown(analysis, charts=False)
    assert "cannot be split into scenario difficulty" in text


def test_two_epoch_demo_run_splits_by_hand(tmp_path: Path) -> None:
    # the grader marks 7, 8 and 8 of 17 items in epoch 1 and nothing in epoch 2: each
    # scenario's epochs are (a/17, 0), whose sample variance is (a/17)^2 / 2
    result = write_report([two_epochs(tmp_path / "logs").location], tmp_path / "out")
    assert result.analysis is not None
    [row] = variance_rows([(g.label, g.samples) for g in result.analysis.groups])
    assert (row.parts.scenarios, row.parts.epochs, row.parts.repeats) == (3, 2, 1)
    assert row.parts.epoch == pytest.approx((49 + 64 + 64) / 289 / 2 / 3)
    # the scenario means (3.5, 4, 4)/17 vary less than epoch noise leaves in them: 0
    assert row.parts.scenario == 0.0
    assert math.isnan(row.parts.grader)
    assert row.noise_sd_macro == pytest.approx(math.sqrt(row.parts.epoch / 2 / 3))
    text = (tmp_path / "out" / "report.md").read_text()
    assert "0% is scenario difficulty, 100% encounter-to-encounter variation (epochs)" in text
    assert "would move its macro by about 13.0 points" in text
    written = (tmp_path / "out" / "variance.csv").read_text().splitlines()
    assert written[0].startswith("group,scenarios,epochs,repeats,scenario_variance")
    assert len(written) == 2


def voted_sample(
    sid: str, truths: np.ndarray, flip: float, rng: np.random.Generator
) -> MedspSample:
    """One epoch graded by 3 repeats, each vote wrong with probability ``flip``; the score is
    the majority (as the scorer does)."""
    votes = [(rng.random(3) < (1 - flip if t else flip)).tolist() for t in truths]
    met = [sum(v) >= 2 for v in votes]
    found = sample(sid, sum(met) / len(truths), items=len(truths))
    assert found.score is not None
    found.score.metadata.items = [
        ItemVerdict(number=i, competency="PC", text=f"item {i}", met=m, judged=True, votes=v)
        for i, (m, v) in enumerate(zip(met, votes, strict=True))
    ]
    return found


def test_rerun_noise_is_that_of_the_majority_vote_the_score_uses() -> None:
    rng = np.random.default_rng(24)
    truths = [rng.random(20) < rng.uniform(0.2, 0.8) for _ in range(40)]
    flips = [float(f) for f in rng.uniform(0.0, 0.2, 40)]

    def graded() -> list[MedspSample]:
        return [
            voted_sample(f"c{i}/scenario1", t, f, rng)
            for i, (t, f) in enumerate(zip(truths, flips, strict=True))
        ]

    observed = graded()
    predicted = rerun_noise(observed)
    assert math.isnan(predicted.encounter)  # one epoch: not measured
    macros = [np.mean([s.values["overall"] for s in graded()]) for _ in range(300)]
    actual = float(np.std(macros, ddof=1))
    # one set of 3 votes per item bounds the majority's variance without pinning it
    low, high = predicted.macro_sd_range
    assert low <= actual <= high
    assert predicted.macro_sd == high


def test_one_epoch_with_repeats_measures_no_encounter_noise() -> None:
    rng = np.random.default_rng(3)
    samples = [voted_sample(f"c{i}/scenario1", rng.random(15) < 0.5, 0.15, rng) for i in range(20)]
    [row] = variance_rows([("regraded", samples)])
    assert not row.encounter_measured and math.isnan(row.scenario_share)
    analysis = analyse([run("x", {"c1/scenario1": 0.5})])
    analysis.groups[0].samples = samples
    text = render_markdown(analysis, charts=False)
    assert "encounter-to-encounter variation is not measured" in text
    assert "no share of scenario difficulty is claimed" in text
    assert "is scenario difficulty" not in text
