"""Reliability across epochs (tau2-bench's pass^k, item by item): the share of a scenario's
items met in all k encounters beside the share met in at least one, in the report's words, its
table and reliability.csv, on synthetic runs whose verdicts are known."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from inspect_medsp.comparisons.comparisons_sections import reliability as reliability_table
from inspect_medsp.comparisons.reliability import reliability_rows
from inspect_medsp.full_report import render_markdown
from inspect_medsp.record import ItemVerdict, MedspRun
from inspect_medsp.report import analyse, write_csv
from tests.support.runs import run

EPOCHS = [
    [True, True, False, False],
    [True, False, True, False],
    [True, True, False, False],
]
"""One scenario's verdicts on its 4 items in each of 3 epochs: item 1 met every time, items 2
and 3 sometimes, item 4 never."""


def with_verdicts(clinician: str, verdicts: dict[str, list[list[bool]]]) -> MedspRun:
    """A run whose scenarios carry these item verdicts, one list per epoch."""
    completion = {sid: [sum(e) / len(e) for e in epochs] for sid, epochs in verdicts.items()}
    found = run(clinician, completion, items=4)
    for s in found.samples:
        assert s.score is not None
        s.score.metadata.items = [
            ItemVerdict(number=i, competency="PC", text=f"item {i}", met=met, judged=True)
            for i, met in enumerate(verdicts[s.id][s.epoch - 1], start=1)
        ]
    return found


def test_reliably_met_is_the_share_met_in_every_epoch() -> None:
    verdicts = {f"c{i}/scenario1": EPOCHS for i in range(6)}
    (row,) = reliability_rows(
        [(g.label, g.samples) for g in analyse([with_verdicts("m", verdicts)]).groups]
    )
    assert (row.epochs, row.scenarios, row.left_out) == (3, 6, 0)
    assert row.reliably_met == pytest.approx(1 / 4)
    assert row.ever_met == pytest.approx(3 / 4)
    assert row.per_encounter == pytest.approx(6 / 12)
    assert row.unreliable == pytest.approx(1 / 2)
    # every scenario the same: no spread between cases, so the interval is the value itself
    assert row.reliably_low == pytest.approx(1 / 4) and row.reliably_high == pytest.approx(1 / 4)


def test_the_report_and_the_csv_say_it(tmp_path: Path) -> None:
    steady = {f"c{i}/scenario1": [EPOCHS[0]] * 2 for i in range(6)}
    flaky = {f"c{i}/scenario1": EPOCHS[:2] for i in range(6)}
    analysis = analyse([with_verdicts("steady", steady), with_verdicts("flaky", flaky)])
    text = render_markdown(analysis, charts=False)
    assert "### Reliability across epochs" in text
    # steady meets items 1 and 2 every time; flaky meets 1 every time, 2 and 3 once each
    assert (
        "**steady**: over 6 scenarios run 2 times, 50% of a scenario's rubric items were met "
        "in all 2 encounters and 50% in at least one (50% per encounter)"
    ) in text
    assert (
        "**flaky**: over 6 scenarios run 2 times, 25% of a scenario's rubric items were met in "
        "all 2 encounters and 75% in at least one (50% per encounter): of the items it did at "
        "least once, 67% it did only some of the time."
    ) in text
    table = reliability_table(analysis)
    write_csv(table, tmp_path)
    lines = (tmp_path / "reliability.csv").read_text().splitlines()
    assert lines[0] == (
        "group,epochs,scenarios,left_out,reliably_met,reliably_met_ci_low,"
        "reliably_met_ci_high,ever_met,per_encounter,sometimes_of_done"
    )
    by_group = {row[0]: row for row in table.rows}
    assert by_group["flaky"][4] == pytest.approx(0.25)
    assert by_group["flaky"][7] == pytest.approx(0.75)
    # of the items met at least once (0.75), those not met every time (0.5): two thirds
    assert by_group["flaky"][9] == pytest.approx(0.5 / 0.75)
    assert by_group["steady"][4] == pytest.approx(by_group["steady"][7])


def test_one_epoch_gives_no_reliability_and_a_short_scenario_is_counted_out() -> None:
    once = {f"c{i}/scenario1": [EPOCHS[0]] for i in range(6)}
    analysis = analyse([with_verdicts("once", once)])
    assert reliability_rows([(g.label, g.samples) for g in analysis.groups]) == []
    assert "Reliability across epochs" not in render_markdown(analysis, charts=False)
    assert reliability_table(analysis).rows == []
    # one scenario with only 2 of 3 epochs scored is left out, and the sentence says so
    partial = {f"c{i}/scenario1": EPOCHS for i in range(5)} | {"c9/scenario1": EPOCHS[:2]}
    analysis = analyse([with_verdicts("partial", partial)])
    (row,) = reliability_rows([(g.label, g.samples) for g in analysis.groups])
    assert (row.scenarios, row.left_out) == (5, 1)
    assert math.isnan(row.reliably_low)  # 5 cases: no interval
    text = render_markdown(analysis, charts=False)
    assert "over 5 scenarios run 3 times (1 scenario with fewer scored epochs left out)" in text
    assert "| partial | 3 | 5 | 25.0% (no interval: < 6 cases) | 75% | 50% |" in text
