"""Statistics that keep their promise at any size: intervals no narrower than the
cluster-robust t interval at few cases, no detectable difference claimed where the design
cannot detect one (Holm and zero-difference cases counted), no mdd of 0, Holm over every
competency row, and pooling by log rather than by epoch. All on synthetic runs whose truth is
known by construction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inspect_medsp.comparisons.comparisons_sections import comparisons as comparisons_table
from inspect_medsp.full_report import render_markdown
from inspect_medsp.report import analyse
from inspect_medsp.scoring import clustered_ratio, t_quantile
from inspect_medsp.stats import NO_SPREAD, NOT_DETECTABLE, Comparison, pairwise
from tests.support.runs import run


def overall(rows: list[Comparison], a: str, b: str) -> Comparison:
    return next(r for r in rows if (r.group_a, r.group_b, r.competency) == (a, b, "overall"))


def test_pooling_takes_every_epoch_of_a_scenario_from_the_newest_log() -> None:
    rng = np.random.default_rng(24)
    ids = [f"c{i}/scenario1" for i in range(12)]
    old = {sid: [float(v) for v in rng.uniform(0.2, 0.8, 3)] for sid in ids}
    new = {sid: float(v) for sid, v in zip(ids, rng.uniform(0.5, 0.9, 12), strict=True)}
    older = run("model", old, created="2026-01-01T00:00:00")
    older.path = "/logs/old.eval"
    newer = run("model", new, created="2026-02-01T00:00:00")
    newer.path = "/logs/new.eval"
    analysis = analyse([newer, older])
    (group,) = analysis.groups
    # the newer log's macro, not its epoch 1 averaged with the old log's epochs 2 and 3
    new_macro = float(np.mean([round(v * 20) / 20 for v in new.values()]))
    assert group.metrics["macro"] == pytest.approx(new_macro)
    assert {s.epoch for s in group.samples} == {1}
    assert group.supplied == {"new.eval": 12}
    assert any("new.eval supplied 12 scenarios" in n for n in analysis.notes)


def test_pooling_keeps_an_older_logs_epochs_for_scenarios_the_newer_did_not_score() -> None:
    older = run("model", {"c1/scenario1": [0.2, 0.4, 0.6], "c2/scenario1": [0.5, 0.5, 0.5]})
    older.path = "/logs/old.eval"
    newer = run("model", {"c1/scenario1": 0.9}, created="2026-02-01T00:00:00")
    newer.path = "/logs/new.eval"
    (group,) = analyse([older, newer]).groups
    assert group.metrics["macro"] == pytest.approx((0.9 + 0.5) / 2)
    assert group.supplied == {"old.eval": 1, "new.eval": 1}
    assert sorted((s.id, s.epoch) for s in group.samples) == [
        ("c1/scenario1", 1), ("c2/scenario1", 1), ("c2/scenario1", 2), ("c2/scenario1", 3)
    ]  # fmt: skip


def test_three_groups_on_six_cases_claim_no_detectable_difference() -> None:
    ids = [f"c{i}/scenario1" for i in range(6)]
    base = dict(zip(ids, [0.2, 0.3, 0.4, 0.5, 0.6, 0.7], strict=True))
    runs = [
        run("m1", {k: v + 0.25 for k, v in base.items()}),
        run("m2", {k: v + 0.1 + 0.05 * (i % 2) for i, (k, v) in enumerate(base.items())}),
        run("m3", base),
    ]
    analysis = analyse(runs)
    rows = [r for r in analysis.comparisons if r.competency == "overall"]
    assert len(rows) == 3
    for row in rows:
        # Holm's floor: 3 x 2 / 2^6 = 0.094, so nothing can reach p < 0.05
        assert row.reachable_p == pytest.approx(3 * 2 / 64)
        assert math.isnan(row.paired.mdd) and row.mdd_note == NOT_DETECTABLE
        assert not row.detectable
    text = render_markdown(analysis, charts=False)
    assert "can detect" not in text
    assert "no difference is detectable with this design: with 6 cases" in text
    assert "after Holm over 3 is 0.094" in text
    table = comparisons_table(analysis)
    assert all(v is None for v in table.column("mdd"))


def test_zero_difference_cases_count_for_nothing() -> None:
    ids = [f"c{i}/scenario1" for i in range(8)]
    a = {sid: 0.5 for sid in ids}
    # three cases with no difference: 5 informative cases, smallest p 2 / 2^5 = 0.0625
    b = {sid: 0.5 if i < 3 else 0.7 for i, sid in enumerate(ids)}
    row = overall(analyse([run("a", a), run("b", b)]).comparisons, "b", "a")
    assert row.paired.nonzero_cases == 5
    assert row.reachable_p == pytest.approx(2 / 32)
    assert row.mdd_note == NOT_DETECTABLE and math.isnan(row.paired.mdd)


def test_identical_runs_give_no_mdd_of_zero() -> None:
    values = {f"c{i}/scenario{j}": 0.3 + 0.05 * i for i in range(10) for j in (1, 2)}
    analysis = analyse([run("a", values), run("b", dict(values))])
    row = overall(analysis.comparisons, "a", "b")
    assert row.paired.difference == 0
    assert math.isnan(row.paired.mdd)
    assert row.mdd_note == NOT_DETECTABLE  # every case is a zero-difference case
    text = render_markdown(analysis, charts=False)
    assert "can detect 0.0" not in text
    assert "no difference is detectable with this design" in text


def test_differences_that_do_not_vary_cannot_estimate_an_mdd() -> None:
    values = {f"c{i}/scenario1": 0.3 + 0.04 * i for i in range(10)}
    shifted = {k: v + 0.05 for k, v in values.items()}
    analysis = analyse([run("a", values), run("b", shifted)])
    row = overall(analysis.comparisons, "b", "a")
    assert row.paired.se == pytest.approx(0, abs=1e-12) and row.detectable
    assert math.isnan(row.paired.mdd) and row.mdd_note == NO_SPREAD


@pytest.mark.parametrize("seed", range(8))
def test_every_interval_at_six_cases_is_at_least_the_cluster_robust_t_interval(
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 5, 6)
    ids = [f"c{c}/scenario{j + 1}" for c, n in enumerate(sizes) for j in range(n)]
    cases = [sid.split("/")[0] for sid in ids]
    a_values = rng.uniform(0.2, 0.8, len(ids))
    b_values = np.clip(a_values + rng.normal(0.03, 0.12, len(ids)), 0, 1)
    a = dict(zip(ids, a_values.tolist(), strict=True))
    b = dict(zip(ids, b_values.tolist(), strict=True))
    analysis = analyse([run("a", a), run("b", b)])
    for group in analysis.groups:
        values = [s.values["overall"] for s in sorted(group.samples, key=lambda s: s.id)]
        counts = [s.counts["overall"] for s in sorted(group.samples, key=lambda s: s.id)]
        order = sorted(ids)
        ref = clustered_ratio(
            values, np.ones(len(values)), [c.split("/")[0] for c in order], limits=(0.0, 1.0)
        )
        width = group.metrics["macro_ci_high"] - group.metrics["macro_ci_low"]
        assert width >= ref.high - ref.low - 1e-12 > 0
        micro = clustered_ratio(
            [c for c, _ in counts],
            [t for _, t in counts],
            [c.split("/")[0] for c in order],
            limits=(0.0, 1.0),
        )
        assert group.metrics["micro_ci_high"] - group.metrics["micro_ci_low"] >= (
            micro.high - micro.low - 1e-12
        )
    row = (
        overall(analysis.comparisons, "a", "b")
        if analysis.groups[0].label == "a"
        else (overall(analysis.comparisons, "b", "a"))
    )
    d = [s.values["overall"] for s in sorted(analysis.groups[1].samples, key=lambda s: s.id)]
    first = [s.values["overall"] for s in sorted(analysis.groups[0].samples, key=lambda s: s.id)]
    ref = clustered_ratio(np.array(d) - np.array(first), np.ones(len(d)), sorted(cases))
    # the paired test's own t interval: that standard error on the Bell-McCaffrey df
    assert row.paired.se == pytest.approx(ref.se)
    half = t_quantile(0.975, row.paired.df) * row.paired.se
    low, high = row.paired.difference - half, row.paired.difference + half
    assert row.paired.ci_low <= low + 1e-12 and row.paired.ci_high >= high - 1e-12


def test_fewer_than_six_cases_give_no_interval_and_say_why() -> None:
    values = {f"c{i}/scenario{j}": 0.2 + 0.1 * i + 0.01 * j for i in range(5) for j in (1, 2)}
    analysis = analyse([run("a", values)])
    (group,) = analysis.groups
    assert math.isnan(group.metrics["macro_ci_low"]) and math.isnan(group.metrics["micro_ci_high"])
    text = render_markdown(analysis, charts=False)
    assert "fewer than 6 cases" in text


def test_competency_rows_are_holm_corrected_over_every_competency_and_pair() -> None:
    ids = [f"c{i}/scenario1" for i in range(30)]
    rng = np.random.default_rng(5)
    a = {sid: float(v) for sid, v in zip(ids, rng.uniform(0.2, 0.8, 30), strict=True)}
    b = {sid: float(np.clip(v + rng.normal(0.0, 0.1), 0, 1)) for sid, v in a.items()}
    analysis = analyse([run("a", a), run("b", b)])
    rows = analysis.comparisons
    first = [r for r in rows if r.competency == "overall"]
    competency = [r for r in rows if r.competency != "overall"]
    assert len(first) == 1 and not first[0].corrected and first[0].family == ""
    assert len(competency) == 2  # the synthetic rubrics have PC and MK
    for row in competency:
        assert row.corrected and row.family_size == 2
        assert row.family == "Holm over every competency row of every pair (2)"
        assert (
            row.p_value == pytest.approx(min(1.0, 2 * row.paired.p_value))
            or row.p_value >= row.paired.p_value
        )
    table = comparisons_table(analysis)
    families = dict(zip(table.column("competency"), table.column("holm_family"), strict=True))
    assert families["overall"] == ""
    assert str(families["PC"]).startswith("Holm over every competency")
    text = render_markdown(analysis, charts=False)
    assert "competency rows are Holm-corrected together, over every competency and pair" in text
    assert "competency stars are Holm-corrected over every competency and pair" in text


def test_under_no_difference_a_competency_star_is_rare() -> None:
    # 2 groups, 15 cases, no true difference anywhere: with Holm over the competency rows, a
    # star on any of them is about as rare as on the overall row
    rng = np.random.default_rng(15)
    ids = [f"c{i}/scenario1" for i in range(15)]
    starred = 0
    sims = 150
    for _ in range(sims):
        base = rng.uniform(0.2, 0.8, 15)
        a = {sid: float(v + rng.normal(0, 0.08)) for sid, v in zip(ids, base, strict=True)}
        b = {sid: float(v + rng.normal(0, 0.08)) for sid, v in zip(ids, base, strict=True)}
        rows = pairwise([("a", run("a", a).samples), ("b", run("b", b).samples)])
        starred += any(r.detectable for r in rows if r.competency != "overall")
    assert starred / sims <= 0.08


def test_different_scenario_sets_of_one_size_are_not_called_the_same() -> None:
    a = {f"c{i}/scenario1": 0.5 for i in range(40)}
    b = {f"c{i}/scenario1": 0.5 for i in range(5, 45)}
    analysis = analyse([run("model-a", a), run("model-b", b)])
    (flag,) = [f for f in analysis.flags if f.startswith("Different scenario sets")]
    assert flag == (
        "Different scenario sets: the groups did not all run the same scenarios (model-a ran "
        "40 scenarios, 5 of them not run by every group; model-b ran 40 scenarios, 5 of them "
        "not run by every group; 35 were run by every group). The comparison uses only the 35 "
        "scenarios every run scored."
    )
