"""Small things a new user of the report notices: each one visible and checked here."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from inspect_ai.scorer import SampleScore, Score, Value

from inspect_medsp.full_report import render_markdown
from inspect_medsp.report import analyse, bin_ranges
from inspect_medsp.scoring.epochs import tidy
from inspect_medsp.scoring.metrics import medsp_summary, score_value
from tests.support.runs import run


def test_report_says_when_the_clinician_is_the_scripted_demo() -> None:
    analysis = analyse([run("medsp/scripted", {"c1/scenario1": 0.7, "c2/scenario1": 0.6})])
    text = render_markdown(analysis, charts=False)
    assert "is medsp/scripted, the package's scripted demo provider" in text
    assert "not what any model can do" in text
    for clinician in ("openai/gpt-5.5", "medsp/human"):
        other = render_markdown(analyse([run(clinician, {"c1/scenario1": 0.5})]), False)
        assert "scripted demo provider" not in other


def test_input_length_bin_labels_do_not_overlap() -> None:
    assert bin_ranges([7.8, 8.3, 10.0]) == ["7.8 to <8.3", "8.3 to 10.0"]
    assert bin_ranges([1.0, 2.0]) == ["1 to 2"]


def test_strategy_rows_are_the_groups_and_empty_csvs_are_said_so() -> None:
    base = {f"c{i}/scenario1": 0.5 for i in range(4)}
    turns = run("openai/gpt-5.5", base)
    tools = run("openai/gpt-5.5", base, created="2026-01-02T00:00:00")
    tools.task_metadata.protocol = "tools"
    tools.path = "/logs/tools.eval"
    single = run("openai/gpt-5.5", base, created="2026-01-03T00:00:00")
    single.task_metadata.strategy = {"strategy": "single"}
    single.path = "/logs/single.eval"
    text = render_markdown(analyse([turns, tools, single]), charts=False)
    section = text.split("## Strategy by competency")[1].split("## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| openai")]
    assert len(rows) == 3 and len(set(rows)) == 3
    assert "protocol=tools" in section
    plain = render_markdown(analyse([turns]), charts=False)
    assert "- [strategy_competency.csv](strategy_competency.csv) (header only" in plain
    assert "- [leaderboard.csv](leaderboard.csv)\n" in plain


def test_score_values_read_as_a_person_would() -> None:
    value = score_value({"overall": (12, 17), "PC": (5, 7)})
    assert value["overall_completed"] == 12 and isinstance(value["overall_completed"], int)
    reduced = tidy(Score(value={"overall": 0.75, "overall_completed": 12.0,
                                "overall_total": 16.0, "PC_completed": 5.5}))  # fmt: skip
    assert reduced.value == {
        "overall": 0.75,
        "overall_completed": 12,
        "overall_total": 16,
        "PC_completed": 5.5,
    }
    assert isinstance(reduced.value, dict)
    assert isinstance(reduced.value["overall_total"], int)


def test_summary_counts_scenarios_as_a_whole_number() -> None:
    scores = [
        SampleScore(score=Score(value=score_value({"overall": (1, 2)})), sample_id=f"c{i}/s1")
        for i in range(3)
    ]
    summary = cast(Callable[[list[SampleScore]], Value], medsp_summary())(scores)
    assert isinstance(summary, dict)
    assert summary["scenarios"] == 3 and isinstance(summary["scenarios"], int)
