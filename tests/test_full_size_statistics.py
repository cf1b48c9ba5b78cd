"""The report's statistics where they were wrong at full size: the plan's ranges against the
truth on logs written to disk and read back, a competency difference among hundreds of Holm
rows, and the re-run noise when scenarios have different numbers of epochs."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from bench.item_model import Model
from bench.synthetic_logs import (
    draw_population,
    logit_gap,
    plan_truth,
    q100_sizes,
    votes,
    write_log,
)

from inspect_medsp.cli import main
from inspect_medsp.comparisons.plan_report import half_width_range, pair_ranges
from inspect_medsp.comparisons.spread import rerun_noise
from inspect_medsp.data import COMPETENCIES
from inspect_medsp.full_report import render_markdown
from inspect_medsp.record import ScoreMetadata, ScoreValue
from inspect_medsp.record.read import MedspSample, MedspScore, SampleMetadata, read_log
from inspect_medsp.report import analyse
from inspect_medsp.stats import OVERALL, pairwise
from tests.support.runs import run, sample

MODEL = Model()
SHIFT = logit_gap(MODEL, 3.0)
"""Model B's advantage: about 3 points."""
PILOTS = 20


@pytest.fixture(scope="module")
def truth() -> tuple[float, float]:
    found = plan_truth(MODEL, 0.0, SHIFT)
    return found.half_width, found.mdd


def _pilot(folder: Path, rng: np.random.Generator) -> tuple[Path, Path]:
    """Two Q100-shaped runs (85 cases, 100 scenarios), one epoch, written as .eval files."""
    pop = draw_population(q100_sizes(), rng, MODEL)
    a = write_log(folder / "a.eval", "synth/model-a", pop, votes(pop, 0.0, rng, MODEL))
    b = write_log(folder / "b.eval", "synth/model-b", pop, votes(pop, SHIFT, rng, MODEL))
    return a, b


def test_the_plans_ranges_cover_the_truth_on_logs_read_back(
    tmp_path: Path, truth: tuple[float, float]
) -> None:
    # the 10th-90th percentile ranges should hold the truth about 80% of the time; when a
    # resampled case's copies were merged into one case every range sat above the truth
    true_width, true_mdd = truth
    rng = np.random.default_rng(2024)
    width_in = mdd_in = 0
    for k in range(PILOTS):
        path_a, path_b = _pilot(tmp_path / f"pilot{k}", rng)
        a, b = read_log(path_a, lean=True).samples, read_log(path_b, lean=True).samples
        assert len(a) == len(b) == 100
        width = half_width_range(a, 1)
        mdds, _ = pair_ranges(a, b, 0.03)
        assert width is not None and 1 in mdds
        width_in += width[0] <= true_width <= width[1]
        mdd_in += mdds[1][0] <= true_mdd <= mdds[1][1]
    assert 0.6 <= width_in / PILOTS <= 0.95
    assert 0.6 <= mdd_in / PILOTS <= 0.95


def _range(line: str, what: str) -> tuple[float, float, float]:
    """The point and range printed after ``what`` (``1.5 (1.1 to 2.0)``)."""
    found = re.search(rf"{re.escape(what)}\s*(-?[\d.]+)(?: points)? \(([\d.]+) to ([\d.]+)\)", line)
    assert found, line
    point, low, high = (float(x) / 100 for x in found.groups())
    return point, low, high


def test_plan_prints_the_truth_inside_its_range_and_names_the_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], truth: tuple[float, float]
) -> None:
    true_width, true_mdd = truth
    path_a, path_b = _pilot(tmp_path, np.random.default_rng(7))
    assert main(["plan", str(path_a), str(path_b)]) == 0
    out = capsys.readouterr().out
    [run_a] = [x for x in out.splitlines() if x.startswith("- synth/model-a: macro")]
    point, low, high = _range(run_a, "expect +/-")
    assert low <= point <= high and low <= true_width <= high
    [full] = [x for x in out.splitlines() if "on the full set it could detect" in x]
    point, low, high = _range(full, "could detect:")
    assert low <= point <= high and low <= true_mdd <= high
    # the difference is said as "b minus a" with both named, its sign matching the macros
    macros = {
        name: float(value) / 100
        for name, value in re.findall(r"^- (synth/model-[ab]): macro ([\d.]+)", out, re.M)
    }
    [said] = re.findall(r"^- (synth/model-[ab]) minus (synth/model-[ab]): (-?[\d.]+) points", out,
                        re.M)  # fmt: skip
    first, second, points = said
    assert float(points) / 100 == pytest.approx(macros[first] - macros[second], abs=0.0015)


def _competency_sample(sid: str, values: dict[str, float], items: int = 10) -> MedspSample:
    counts: dict[str, tuple[int, int]] = {
        c: (round(values[c] * items), items) for c in COMPETENCIES
    }
    met = sum(done for done, _ in counts.values())
    counts[OVERALL] = (met, items * len(COMPETENCIES))
    return MedspSample(
        id=sid,
        metadata=SampleMetadata(case_id=sid.split("/")[0]),
        score=MedspScore(value=ScoreValue.of(counts), metadata=ScoreMetadata()),
    )


def test_a_25_point_competency_difference_is_starred_among_546_holm_rows() -> None:
    # 14 groups: 91 pairs, 546 competency rows. With the permutation p-value floored at
    # 1 / 10,000, Holm's smallest reachable p was 546 / 10,000 > 0.05: nothing could be starred
    rng = np.random.default_rng(14)
    base = rng.uniform(0.2, 0.6, (100, len(COMPETENCIES)))
    groups = []
    for g in range(14):
        samples = []
        for case in range(100):
            noise = rng.normal(0, 0.1, len(COMPETENCIES))
            values = np.clip(base[case] + noise, 0, 1)
            if g == 13:
                values[0] = min(1.0, values[0] + 0.25)  # PC, planted
            named = dict(zip(COMPETENCIES, values, strict=True))
            samples.append(_competency_sample(f"c{case}/s1", named))
        groups.append((f"model-{g:02d}", samples))
    rows = pairwise(groups)
    competency = [r for r in rows if r.competency != OVERALL]
    assert len(competency) == 546
    planted = [r for r in competency if r.group_b == "model-13" and r.competency == "PC"]
    assert len(planted) == 13
    assert all(r.paired.difference > 0.2 for r in planted)
    assert all(r.detectable and r.reachable_p < 0.05 and not r.mdd_note for r in planted)
    others = [
        r
        for r in competency
        if r.competency != "PC" or "model-13" not in (r.group_a, r.group_b)
    ]
    assert sum(r.detectable for r in others) <= 2  # the family-wise promise


def test_rerun_noise_at_unequal_epochs_matches_simulated_truth() -> None:
    # half the scenarios with one scored epoch, half with three: the macro's re-run variance
    # is noise * mean(1 / epochs) / scenarios (dividing by the mean epochs is 25% low)
    rng = np.random.default_rng(33)
    noise_sd, n = 0.08, 400
    epochs = [1 if i % 2 else 3 for i in range(n)]
    true_sd = math.sqrt(noise_sd**2 * float(np.mean([1 / e for e in epochs])) / n)
    found = []
    for _ in range(20):
        samples = [
            sample(f"c{i}/s1", float(np.clip(0.5 + rng.normal(0, noise_sd), 0, 1)), epoch, 1000)
            for i in range(n)
            for epoch in range(1, epochs[i] + 1)
        ]
        found.append(rerun_noise(samples).macro_sd)
    assert float(np.mean(found)) == pytest.approx(true_sd, rel=0.05)


def test_pooled_logs_that_differ_in_epochs_and_disagree_are_flagged() -> None:
    rng = np.random.default_rng(10)
    ids = [f"c{i}/scenario1" for i in range(30)]
    base = {sid: float(rng.uniform(0.3, 0.7)) for sid in ids}
    epochs = {
        sid: [float(np.clip(v - 0.06 + rng.normal(0, 0.05), 0, 1)) for _ in range(3)]
        for sid, v in base.items()
    }
    older = run("pooled-model", epochs, created="2026-01-01T00:00:00")
    newer = run(
        "pooled-model",
        {sid: float(np.clip(v + 0.06 + rng.normal(0, 0.05), 0, 1)) for sid, v in base.items()},
        created="2026-02-01T00:00:00",
    )
    older = older.model_copy(update={"path": "/logs/older.eval"})
    analysis = analyse([older, newer])
    [group] = analysis.groups
    [flag] = [f for f in analysis.flags if "pooled into this group" in f]
    assert "different numbers of epochs (older.eval 3, pooled-model.eval 1)" in flag
    assert "disagree beyond noise on the 30 scenarios both scored" in flag
    # one log alone, or two that agree, raise nothing
    assert not [f for f in analyse([newer]).flags if "pooled into this group" in f]
    twin = newer.model_copy(update={"path": "/logs/twin.eval", "created": "2026-03-01"})
    assert not [f for f in analyse([newer, twin]).flags if "pooled into this group" in f]
    assert group.pool_warning == flag


def test_the_sentences_say_what_their_numbers_are() -> None:
    # an mdd from 8 cases is said to be a rough guide; the competency table says its
    # intervals are not Holm-corrected while its stars are
    rng = np.random.default_rng(8)
    a = {f"c{i}/scenario1": float(rng.uniform(0.3, 0.6)) for i in range(8)}
    b = {sid: min(1.0, v + float(rng.normal(0, 0.05))) for sid, v in a.items()}
    analysis = analyse([run("model-a", a), run("model-b", b)])
    text = render_markdown(analysis, charts=False)
    assert re.search(
        r"this comparison can detect [\d.]+ points in either direction \(80% power if its 8 "
        r"cases are typical of "
        r"the next 8; worked out from fewer than 15 cases that is a rough guide", text
    )
    assert "the intervals are not, so a competency interval that leaves out 0 may carry no" in text
    assert "the intervals are not adjusted for multiplicity" in text
    many = {f"c{i}/scenario1": float(rng.uniform(0.3, 0.6)) for i in range(40)}
    noisy = {sid: min(1.0, v + float(rng.normal(0, 0.05))) for sid, v in many.items()}
    text = render_markdown(analyse([run("model-a", many), run("model-b", noisy)]), charts=False)
    assert re.search(r"this comparison can detect [\d.]+ points \(80% power\)", text)
