"""The re-grading noise of a one-epoch run with grader repeats, against simulated truth: one set
of votes per item pins the variance of their majority only to a range, so the report gives the
range, and the range holds the truth where the old per-item estimate missed it by a factor of
two to four."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest
from bench.regrading_bench import SHAPES, Draw, old_estimate

from inspect_medsp.comparisons.spread import rerun_noise, variance_rows
from inspect_medsp.comparisons.vote_bounds import (
    Bounds,
    Vote,
    bounds_for,
    regrading_variance,
    simplex,
)
from inspect_medsp.full_report import render_markdown, write_report
from inspect_medsp.record import ItemVerdict, MedspSample
from inspect_medsp.report import analyse
from inspect_medsp.scoring import medsp_rubric
from tests.support.runs import run, sample
from tests.support.scripts import Script
from tests.test_grader_trust import RANDOM_ITEMS, RandomGrader, saved
from tests.test_scoring import CASES, JUDGE, MET_A, RUBRICS, Run, per_case, rescore, run_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The three demo scenarios, graded once by grader A, saved as a log file."""
    return run_demo(Script(per_case(MET_A)), str(tmp_path_factory.mktemp("logs")))


def test_the_bounds_hold_the_truth_for_every_shape_of_grader() -> None:
    # Q100-shaped runs (100 scenarios, 4-28 items), 3 per shape and number of repeats
    rng = np.random.default_rng(2026)
    held = tried = 0
    widths: dict[tuple[str, int], list[float]] = {}
    for k in (2, 3, 5):
        for shape in SHAPES:
            for _ in range(3):
                draw = Draw(shape, k, rng)
                found = bounds_for(draw.votes())
                assert found is not None and found.low <= found.high
                tried += 1
                held += found.low <= draw.truth <= found.high
                widths.setdefault((shape, k), []).append(math.sqrt(found.high / found.low))
    assert held / tried >= 0.95
    # how wide (the SD's high end over its low end): narrow when graders often disagree,
    # about a factor 2 to 4 when most items are unanimous
    assert max(widths[("noisy", 3)] + widths[("noisy", 5)]) < 1.6
    assert max(widths[("consistent", 5)] + widths[("mix", 5)]) < 3.5
    assert max(widths[("mix", 3)]) < 5.5


def _samples(draw: Draw, k: int) -> list[MedspSample]:
    """The draw's votes as one epoch's scored samples (the score the majority, as the
    scorer's), the weights giving each scenario's items."""
    out = []
    start = 0
    for s in range(draw.scenarios):
        items = round(1 / math.sqrt(draw.weight[start] * draw.scenarios))
        met, judged = draw.met[start : start + items], draw.judged[start : start + items]
        votes: list[list[bool | None]] = [
            [True] * int(m) + [False] * int(j - m) + [None] * int(k - j)
            for m, j in zip(met, judged, strict=True)
        ]
        verdicts = [sum(v is True for v in vs) * 2 > sum(v is not None for v in vs) for vs in votes]
        found = sample(f"c{s}/scenario1", sum(verdicts) / items, items=items)
        assert found.score is not None
        found.score.metadata.items = [
            ItemVerdict(number=i, competency="PC", text=f"item {i}", met=m, judged=True, votes=v)
            for i, (m, v) in enumerate(zip(verdicts, votes, strict=True))
        ]
        out.append(found)
        start += items
    return out


@pytest.mark.parametrize(("shape", "k"), [("bench φ=0.05", 5), ("bench φ=0.02", 3),
                                          ("noisy", 3), ("unequal", 5)])  # fmt: skip
def test_rerun_noise_of_one_epoch_holds_the_truth_the_old_estimate_missed(
    shape: str, k: int
) -> None:
    draw = Draw(shape, k, np.random.default_rng(5))
    truth = math.sqrt(draw.truth / draw.scenarios)
    rerun = rerun_noise(_samples(draw, k))
    assert math.isnan(rerun.encounter) and rerun.scenarios == 100
    low, high = rerun.macro_sd_range
    assert low <= truth <= high
    assert rerun.macro_sd == high
    old = math.sqrt(old_estimate(draw.judged, draw.met, draw.weight) / draw.scenarios)
    if shape.startswith("bench"):
        # the old figure (the share of each item's votes plugged into q(1 - q)) was one
        # number, 3 times the truth here: a range pinned to it would have left the truth out
        assert old > 2.5 * truth


def test_items_with_one_vote_and_none_count_as_what_they_can_be() -> None:
    # one vote met of one: q(1 - q) = p(1 - p) for some p, anything from 0 to 1/4 per the
    # vote seen; an item no repeat judged is never met and adds nothing
    one = bounds_for([Vote(1, 1, 1.0), Vote(1, 0, 1.0)])
    assert one is not None
    assert one.low == pytest.approx(0.0, abs=1e-9)
    assert one.high == pytest.approx(0.5, abs=1e-6)  # both at p = 1/2
    assert bounds_for([Vote(0, 0, 1.0)]) is None
    # many unanimous items: the range shrinks toward 0 with their number
    sure = bounds_for([Vote(3, 3 * (i % 2), 1.0 / 2000) for i in range(2000)])
    assert sure is not None and sure.low == pytest.approx(0.0, abs=1e-9) and sure.high < 0.01


def test_the_simplex_solves_small_programs_and_finds_the_infeasible() -> None:
    # min -x - 2y with x + y + s = 4, x + 3y + t = 6: the optimum x = 3, y = 1, -5
    a = np.array([[1.0, 1.0, 1.0, 0.0], [1.0, 3.0, 0.0, 1.0]])
    found = simplex(np.array([-1.0, -2.0, 0.0, 0.0]), a, np.array([4.0, 6.0]))
    assert found == pytest.approx(-5.0)
    # x + y = 1 and x + y = 2: no solution
    assert simplex(np.array([1.0, 1.0]), np.ones((2, 2)), np.array([1.0, 2.0])) is None
    # a redundant row (the same equation twice) is no obstacle
    twice = simplex(np.array([1.0, 2.0]), np.ones((2, 2)), np.array([1.0, 1.0]))
    assert twice == pytest.approx(1.0)


def test_the_report_says_the_range_of_a_regrading() -> None:
    draw = Draw("mix", 3, np.random.default_rng(9))
    samples = _samples(draw, 3)
    [row] = variance_rows([("regraded", samples)])
    assert not row.encounter_measured and row.noise_sd_low < row.noise_sd_macro
    analysis = analyse([run("x", {"c1/scenario1": 0.5})])
    analysis.groups[0].samples = samples
    text = render_markdown(analysis, charts=False)
    low, high = f"{row.noise_sd_low * 100:.1f}", f"{row.noise_sd_macro * 100:.1f}"
    assert f"would move its macro by between {low} and {high} points (one SD" in text
    assert "a range, as 3 votes per item bound the variance of their majority" in text
    assert "30% low to 50% high" not in text
    assert f"| {low} to {high} |" in text


def test_a_repeats_log_read_back_reports_a_range_that_holds_the_truth(
    demo: Run, tmp_path: Path
) -> None:
    # the random grader says met with chance 0.7 on 9 items of each demo scenario and agrees
    # with itself on the other 8: graded by 5 repeats, the truth is known
    scorer = medsp_rubric(judge=JUDGE, samples=5)
    rescored = rescore(demo.log, RandomGrader().script(), scorer=scorer)
    path = saved(rescored, tmp_path / "repeats.eval")
    result = write_report([path], tmp_path / "out")
    assert result.analysis is not None
    per_scenario = [
        len(RANDOM_ITEMS[case])
        * float(regrading_variance(5, np.array([0.7]))[0])
        / len(RUBRICS[case].items()) ** 2
        for case in CASES
    ]
    truth = math.sqrt(float(np.mean(per_scenario)) / len(CASES))
    with (tmp_path / "out" / "variance.csv").open() as f:
        [written] = list(csv.DictReader(f))
    low, high = float(written["noise_sd_macro_low"]), float(written["noise_sd_macro"])
    assert written["encounter_measured"] == "False"
    assert low <= truth <= high
    text = (tmp_path / "out" / "report.md").read_text()
    said = re.search(r"would move its macro by between ([\d.]+) and ([\d.]+) points", text)
    assert said and (float(said[1]), float(said[2])) == (round(low * 100, 1), round(high * 100, 1))
    assert Bounds(low, high) == pytest.approx(
        rerun_noise(result.analysis.groups[0].samples).macro_sd_range
    )
