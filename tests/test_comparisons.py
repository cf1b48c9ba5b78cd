"""Is model A better than model B? The paired differences of the report, checked against
hand values, constructed data, Inspect's own clustered standard error and a seeded power
simulation."""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from pathlib import Path
from typing import cast

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score, Value, stderr

from inspect_medsp.full_report import render_markdown, write_report
from inspect_medsp.report import analyse
from inspect_medsp.scoring import clustered_ratio, mean_ci, t_quantile
from inspect_medsp.stats import Comparison, holm, mdd_factor, paired_difference, pairwise, signflip
from tests.support.runs import run
from tests.test_report import medsp_run

COLUMNS = ["group_a", "group_b", "competency", "scenarios", "cases", "a", "b", "difference",
           "ci_low", "ci_high", "p_value", "mdd", "p_raw", "holm_family", "smallest_p",
           "mdd_note"]  # fmt: skip


def overall(rows: list[Comparison], a: str, b: str) -> Comparison:
    return next(r for r in rows if (r.group_a, r.group_b, r.competency) == (a, b, "overall"))


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def test_scripted_runs_difference_is_the_hand_value(tmp_path: Path, _offline_tokens: None) -> None:
    # The scripted grader marks an item met when a clinician action is a word of it.
    # clin-asks acts "asks": anaphylaxis 1/17, bad news 5/17, asthma 1/17 items.
    # clin-c acts "epinephrine": anaphylaxis 4/17, bad news 0/17, asthma 0/17.
    # clin-asks leads (7/51 vs 4/51); clin-c - clin-asks per scenario: +3/17, -5/17, -1/17,
    # mean -1/17 overall. PC: (3/7 - 1/7), (0 - 1/2), (0 - 1/7): mean -5/42.
    asks = medsp_run(tmp_path / "asks", "clin-asks")
    epi = medsp_run(tmp_path / "epi", "clin-c")
    result = write_report([asks, epi], tmp_path / "out")
    assert result.analysis is not None
    rows = result.analysis.comparisons
    row = overall(rows, "mockllm/clin-asks", "mockllm/clin-c")
    assert row.paired.difference == pytest.approx(-1 / 17)
    assert (row.paired.scenarios, row.paired.cases) == (3, 3)
    # 3 cases: too few for an interval that keeps its promise, and for any mdd
    assert math.isnan(row.paired.ci_low) and math.isnan(row.paired.ci_high)
    assert math.isnan(row.paired.mdd)
    pc = next(r for r in rows if r.competency == "PC")
    assert pc.paired.difference == pytest.approx(-5 / 42)
    assert math.isnan(pc.paired.ci_low)
    # 3 cases, exact test over 8 sign patterns of (+3, -5, -1)/17: |sum| >= 3/17 in 6; the
    # p-value is the larger of that and the cluster-robust t test's
    assert row.p_value >= 6 / 8
    assert row.reachable_p == pytest.approx(2 / 8)
    columns, written = read_csv(tmp_path / "out" / "comparisons.csv")
    assert columns == COLUMNS
    first = written[0]
    assert (first["group_a"], first["group_b"], first["competency"]) == (
        "mockllm/clin-asks",
        "mockllm/clin-c",
        "overall",
    )
    assert float(first["difference"]) == pytest.approx(-1 / 17)
    assert float(first["b"]) - float(first["a"]) == pytest.approx(float(first["difference"]))
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert (
        "**mockllm/clin-c** vs **mockllm/clin-asks**: no difference detectable: -5.9 points"
        in markdown
    )
    assert "this comparison can detect" not in markdown
    assert "no difference is detectable with this design: with 3 cases" in markdown
    assert "the smallest p-value the test can reach is 0.250" in markdown
    assert "(no interval: fewer than 6 cases" in markdown
    assert first["mdd"] == "" and first["mdd_note"] == "not detectable with this design"
    assert "[differences.png](differences.png)" in markdown
    assert (tmp_path / "out" / "differences.png").stat().st_size > 0
    table = (tmp_path / "out" / "table.md").read_text()
    assert "| mockllm/clin-asks | " in table and "| 3 |" in table
    assert "mockllm/clin-asks &" in (tmp_path / "out" / "table.tex").read_text()
    assert "[table.md](table.md), [table.tex](table.tex)" in markdown


def test_overlapping_intervals_can_hide_a_clear_paired_difference() -> None:
    rng = np.random.default_rng(7)
    n = 60
    cases = [f"case_{i}" for i in range(n)]
    a = rng.uniform(0.2, 0.9, n)  # scenarios differ a lot in difficulty
    b = a + 0.03 + rng.normal(0, 0.01, n)  # b is 3 points better on every one
    a_interval = mean_ci(a, cases)
    b_interval = mean_ci(b, cases)
    assert b_interval[0] < a_interval[1]  # side by side, the intervals overlap
    paired = paired_difference(a, b, cases)
    assert paired.ci_low > 0  # paired, the difference is clear
    assert paired.ci_low <= paired.difference <= paired.ci_high
    assert paired.p_value < 0.001
    assert paired.mdd < 0.01


def test_separate_intervals_from_scenario_mix_are_not_a_paired_difference() -> None:
    # A ran 40 shared scenarios plus 40 easy ones, B the same 40 plus 40 hard ones; on the
    # 40 both ran, they are equally good.
    rng = np.random.default_rng(3)
    shared = {f"s{i}/scenario1": float(v) for i, v in enumerate(rng.uniform(0.3, 0.7, 40))}
    easy = {f"e{i}/scenario1": float(v) for i, v in enumerate(rng.uniform(0.8, 1.0, 40))}
    hard = {f"h{i}/scenario1": float(v) for i, v in enumerate(rng.uniform(0.0, 0.2, 40))}
    noise = {k: v + float(rng.choice([-0.05, 0.05])) for k, v in shared.items()}
    analysis = analyse([run("model-a", shared | easy), run("model-b", noise | hard)])
    first, second = analysis.groups
    assert first.label == "model-a"
    assert first.metrics["macro_ci_low"] > second.metrics["macro_ci_high"]  # separate
    row = overall(analysis.comparisons, "model-a", "model-b")
    assert row.paired.scenarios == 40
    assert row.paired.ci_low < 0 < row.paired.ci_high
    assert not row.detectable
    text = render_markdown(analysis, charts=False)
    assert "≈ not detectably different" in text
    assert "over 40 shared scenarios from 40 cases; this comparison can detect" in text


def test_detectable_difference_sentence_and_leaderboard() -> None:
    ids = [f"c{i // 2}/scenario{i % 2 + 1}" for i in range(80)]
    rng = np.random.default_rng(11)
    base = {sid: float(v) for sid, v in zip(ids, rng.uniform(0.2, 0.8, 80), strict=True)}
    better = {sid: v + 0.1 for sid, v in base.items()}
    analysis = analyse([run("strong", better), run("weak", base)])
    row = overall(analysis.comparisons, "strong", "weak")
    assert row.paired.difference == pytest.approx(-0.1)
    assert row.paired.cases == 40
    text = render_markdown(analysis, charts=False)
    expected = "**strong** is ahead of **weak** by 10.0 points [10.0, 10.0] (p < 0.001) over 80"
    assert f"{expected} shared scenarios from 40 cases." in text
    assert "| -10.0 pts |" in text


def test_mdd_is_the_hand_calculation_and_inspects_clustered_stderr() -> None:
    # one scenario per case: se = sd / sqrt(n); d = 0, .1, ..., .5 -> sd^2 = 0.035
    result = paired_difference([0.5] * 6, [0.5, 0.6, 0.7, 0.8, 0.9, 1.0], list("abcdef"))
    se = math.sqrt(0.035 / 6)
    assert result.se == pytest.approx(se)
    assert mdd_factor(6) == pytest.approx(3.490126, rel=1e-5)
    # above 12 cases: t quantiles on 20 - 1 degrees of freedom, not the normal's 2.80
    d = np.arange(20) / 40 + 0.01
    result = paired_difference(np.zeros(20), d, [f"c{i}" for i in range(20)])
    se = float(d.std(ddof=1)) / math.sqrt(20)
    assert result.mdd == pytest.approx((2.093024 + 0.860954) * se, rel=1e-5)
    # several scenarios per case: the same clustered standard error as Inspect's stderr
    rng = np.random.default_rng(5)
    cases = [f"case{i // 3}" for i in range(30)]
    d = rng.normal(0.02, 0.1, 30)
    scores = [
        SampleScore(score=Score(value=float(v)), sample_id=i, sample_metadata={"case": c})
        for i, (v, c) in enumerate(zip(d, cases, strict=True))
    ]
    inspect_se = cast(Callable[[list[SampleScore]], Value], stderr(cluster="case"))
    paired = paired_difference(np.zeros(30), d, cases)
    assert paired.se == pytest.approx(float(cast(float, inspect_se(scores))))


def test_mdd_has_80_percent_power_in_a_seeded_simulation() -> None:
    # true difference = mdd computed from the known spread: about 80% of runs detect it
    n, sd, sims = 50, 0.1, 300
    true = mdd_factor(n) * sd / math.sqrt(n)
    rng = np.random.default_rng(2026)
    cases = [f"c{i}" for i in range(n)]
    detected = 0
    mdds = []
    for _ in range(sims):
        d = rng.normal(true, sd, n)
        result = paired_difference(np.zeros(n), d, cases, permutations=999)
        detected += result.p_value < 0.05
        mdds.append(result.mdd)
    assert 0.72 <= detected / sims <= 0.88
    assert float(np.mean(mdds)) == pytest.approx(true, rel=0.05)


def test_paired_interval_holds_the_t_interval_and_agrees_with_the_p_value() -> None:
    rng = np.random.default_rng(9)
    for n_cases in (6, 8, 17, 40):
        for trial in range(20):
            cases = [f"case{i % n_cases}" for i in range(3 * n_cases)]
            a = rng.uniform(0, 1, len(cases))
            b = a + rng.normal(0.04 * (trial % 3), 0.15, len(cases))
            result = paired_difference(a, b, cases)
            # the paired test's own t interval: CR2 on the Bell-McCaffrey degrees of freedom
            t = clustered_ratio(b - a, np.ones(len(cases)), cases)
            half = t_quantile(0.975, result.df) * result.se
            assert result.se >= t.se - 1e-12
            low, high = result.difference - half, result.difference + half
            assert result.ci_low <= low + 1e-12 and result.ci_high >= high - 1e-12
            leaves_out_zero = result.ci_low > 0 or result.ci_high < 0
            assert leaves_out_zero == (result.p_value < 0.05)


def test_permutation_interval_is_the_inverted_test() -> None:
    # every delta inside keeps p >= 0.05 for "the difference is delta"; just outside, p < 0.05
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 5, 20).astype(float)
    sums = rng.normal(0.03, 0.1, 20) * sizes
    test = signflip.sign_flip(sums[None], sizes[None])
    low, high = float(test.low[0]), float(test.high[0])

    def p_at(delta: float) -> float:
        return float(signflip.sign_flip((sums - delta * sizes)[None], sizes[None]).p_values[0])

    assert p_at(low + 1e-6) >= 0.05 and p_at(high - 1e-6) >= 0.05
    assert p_at(low - 1e-3) < 0.05 and p_at(high + 1e-3) < 0.05


def test_random_sign_flips_do_not_depend_on_what_was_drawn_before() -> None:
    signflip._SIGNS.clear()
    small = signflip.sign_patterns(600, 99, 1)
    signflip._SIGNS.clear()
    large = signflip.sign_patterns(613, 99, 1)
    assert (large[:600] == small).all()
    assert signflip.sign_patterns(600, 99, 1).shape == (600, 99)


def test_holm_by_hand() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.2, math.nan]) == [0.2, pytest.approx(math.nan, nan_ok=True)]


def test_three_groups_are_holm_corrected_and_said_so() -> None:
    rng = np.random.default_rng(1)
    base = {f"c{i}/scenario1": float(v) for i, v in enumerate(rng.uniform(0.2, 0.7, 30))}
    runs = [
        run("m1", {k: v + 0.2 for k, v in base.items()}),
        run("m2", {k: v + 0.02 for k, v in base.items()}),
        run("m3", base),
    ]
    rows = pairwise([(r.model, r.samples) for r in runs])
    firsts = [r for r in rows if r.competency == "overall"]
    assert [(r.group_a, r.group_b) for r in firsts] == [("m1", "m2"), ("m1", "m3"), ("m2", "m3")]
    assert all(r.corrected for r in rows)
    assert holm([r.paired.p_value for r in firsts]) == pytest.approx([r.p_value for r in firsts])
    text = render_markdown(analyse(runs), charts=False)
    assert "Holm-corrected over the 3 pairs" in text
    assert "Holm-adjusted over 3" in text


def test_one_case_gives_no_interval_and_says_why() -> None:
    analysis = analyse(
        [run("x", {"c1/scenario1": 0.5, "c1/scenario2": 0.6}), run("y", {"c1/scenario1": 0.4})]
    )
    row = overall(analysis.comparisons, "x", "y")
    assert row.paired.scenarios == 1 and math.isnan(row.paired.ci_low) and math.isnan(row.p_value)
    text = render_markdown(analysis, charts=False)
    assert "one case says nothing about case-to-case spread" in text


def test_epochs_are_averaged_before_pairing() -> None:
    analysis = analyse(
        [
            run("e", {"c1/scenario1": [0.2, 0.6], "c2/scenario1": [0.5, 0.5]}),
            run("f", {"c1/scenario1": 0.1, "c2/scenario1": 0.2}),
        ]
    )
    row = overall(analysis.comparisons, "e", "f")
    assert row.paired.a == pytest.approx(0.45)
    assert row.paired.difference == pytest.approx((0.1 - 0.4 + 0.2 - 0.5) / 2)
