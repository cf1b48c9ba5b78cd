"""The paper's figures in ``medsp-report``, from two scripted runs labelled by specialty.

- ``a``: clinician ``mockllm/clin-a`` (procedures), strategy ``off``;
- ``b``: clinician ``mockllm/clin-b`` (history and communication), strategy ``single``.

Both runs use a specialties file naming ``mockllm/classifier``, and the clinician's usage
grows with what it reads, so the input-length view has something to bin. The grader is the
scripted one of ``test_report`` (an item is met when a clinician action is a word of it).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model

from inspect_medsp import medsp_demo
from inspect_medsp.data import load_rubrics, published_set
from inspect_medsp.full_report import write_report
from inspect_medsp.report import (
    PALETTE,
    SHADES,
    GroupSummary,
    age_group,
    patient_sex,
    shade,
    styles,
    token_edges,
)
from inspect_medsp.scoring import Row, completion_summary
from inspect_medsp.specialty import SpecialtiesFile
from tests.conftest import DEMO
from tests.support.scripts import Script
from tests.test_report import (
    KEYWORDS,
    clinician_script,
    environment_script,
    grader_script,
    met,
    patient_script,
    png_size,
    read_csv,
)

LABELS = {
    "demo_anaphylaxis/scenario1": "Emergency medicine",
    "demo_bad_news/scenario1": "Hematology and oncology",
    "demo_peds_asthma/scenario1": "Emergency medicine",
}
FIGURES = (
    "competencies.png",
    "distribution.png",
    "radar.png",
    "specialties.png",
    "input_length.png",
    "strategy_competency.png",
    "case_metadata.png",
)


def sized(
    reply: Callable[[list[ChatMessage]], dict[str, Any]],
) -> Callable[[list[ChatMessage]], ModelOutput]:
    """The reply, with usage of one input token per four characters the model read."""

    def output(messages: list[ChatMessage]) -> ModelOutput:
        result = ModelOutput.from_content(model="mockllm", content=json.dumps(reply(messages)))
        read = sum(len(m.text) for m in messages) // 4
        result.usage = ModelUsage(input_tokens=read, output_tokens=20, total_tokens=read + 20)
        return result

    return output


CLINICIANS: dict[str, Script] = {}
"""The scripted clinician of each run, by clinician name (filled by the fixture)."""


def run(log_dir: Path, clin: str, specialties: Path, strategy: Any) -> str:
    CLINICIANS[clin] = Script(sized(clinician_script(KEYWORDS[clin])))
    logs = eval(
        medsp_demo(judge="mockllm/model", specialties=str(specialties), strategy=strategy),
        model=get_model(f"mockllm/{clin}", custom_outputs=CLINICIANS[clin], memoize=False),
        model_roles={
            "patient": Script(patient_script).model(),
            "environment": Script(environment_script).model(),
            "grader": Script(grader_script()).model(),
        },
        log_dir=str(log_dir),
        display="none",
    )
    assert logs[0].location
    return logs[0].location


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory, _offline_tokens: None) -> Path:
    base = tmp_path_factory.mktemp("figures")
    file = base / "specialties.json"
    SpecialtiesFile(model="mockllm/classifier", prompt_sha256="f" * 64, specialties=LABELS).write(
        file
    )
    logs = [run(base / "a", "clin-a", file, "off"), run(base / "b", "clin-b", file, "single")]
    result = write_report(logs, base / "out", ("md", "html"))
    assert result.analysis is not None and result.problems == []
    return base / "out"


def completion(sid: str, clin: str) -> tuple[int, int]:
    """Completed and total items of one scenario for one scripted clinician, by hand."""
    rubric = load_rubrics(DEMO / "upstream").rubrics[sid]
    items = rubric.items()
    return sum(met(i.text, KEYWORDS[clin]) for i in items), len(items)


def test_every_figure_is_a_valid_png(report_dir: Path) -> None:
    from matplotlib.image import imread

    md = (report_dir / "report.md").read_text()
    for name in FIGURES:
        width, height = png_size(report_dir / name)
        assert 300 < width < 5000 and 300 < height < 5000, (name, width, height)
        pixels = imread(report_dir / name)
        assert pixels.shape[:2] == (height, width)
        assert pixels.std() > 0.01, f"{name} is blank"
        assert f"]({name})" in md, f"{name} is not in report.md"
    page = (report_dir / "report.html").read_text()
    assert '<img src="specialties.png"' in page and '<img src="radar.png"' in page


def test_specialty_csv_equals_a_hand_computation(report_dir: Path) -> None:
    rows = read_csv(report_dir / "specialties.csv")
    assert len(rows) == 4  # two specialties for each of two groups
    for clin in ("clin-a", "clin-b"):
        by_label: dict[str, list[tuple[int, int]]] = defaultdict(list)
        ids: dict[str, list[str]] = defaultdict(list)
        for sid, label in LABELS.items():
            by_label[label].append(completion(sid, clin))
            ids[label].append(sid)
        for label, counts in by_label.items():
            row = next(
                r
                for r in rows
                if r["group"].startswith(f"mockllm/{clin}") and r["specialty"] == label
            )
            assert float(row["mean_overall"]) == pytest.approx(
                sum(c / t for c, t in counts) / len(counts)
            )
            hand = [
                Row(c, t, sid.split("/")[0]) for sid, (c, t) in zip(ids[label], counts, strict=True)
            ]
            summary = completion_summary({"overall": hand}, "macro")
            # two scenarios at most: too few cases for an interval (NaN, an empty cell)
            assert float(row["ci_low"] or "nan") == pytest.approx(
                summary["macro_ci_low"], nan_ok=True
            )
            assert float(row["ci_high"] or "nan") == pytest.approx(
                summary["macro_ci_high"], nan_ok=True
            )
            assert int(row["n"]) == int(row["scenarios"]) == int(row["cases"]) == len(counts)
            assert row["small"] == "True" and row["source"] == "mockllm/classifier"
    emergency = [r for r in rows if r["specialty"] == "Emergency medicine"]
    assert emergency and all(r["ci_low"] in ("", "nan") for r in emergency)  # two cases: none
    md = (report_dir / "report.md").read_text()
    assert "3 scenarios classified by mockllm/classifier" in md
    assert "Emergency medicine ⚠" in md


def test_input_length_bins_cover_every_sample(report_dir: Path) -> None:
    per = read_csv(report_dir / "per_scenario.csv")
    bins = read_csv(report_dir / "input_length.csv")
    tokens = sorted(int(r["clinician_input_tokens"]) for r in per)
    assert len(set(tokens)) > 1  # the clinician read different amounts
    for group in {r["group"] for r in per}:
        mine = [r for r in per if r["group"] == group]
        in_bins = [b for b in bins if b["group"] == group]
        assert sum(int(b["n"]) for b in in_bins) == len(mine) == 3
        # each group is binned on its own lengths: its bins start at its shortest encounter
        own = sorted(int(r["clinician_input_tokens"]) for r in mine)
        assert min(float(b["tokens_low_k"]) for b in in_bins) * 1000 == own[0]
        for b in in_bins:
            low, high = float(b["tokens_low_k"]) * 1000, float(b["tokens_high_k"]) * 1000
            last = b["bin"] == str(len(token_edges(own)) - 2)
            members = [
                float(r["overall"])
                for r in mine
                if low <= int(r["clinician_input_tokens"]) and (
                    int(r["clinician_input_tokens"]) < high or last
                )
            ]  # fmt: skip
            assert float(b["macro"]) == pytest.approx(sum(members) / len(members))
            assert int(b["n"]) == len(members)


def test_clinician_input_tokens_are_what_the_clinician_read(report_dir: Path) -> None:
    per = read_csv(report_dir / "per_scenario.csv")
    for clin, script in CLINICIANS.items():
        read = sum(sum(len(m.text) for m in call) // 4 for call in script.calls)
        mine = [int(r["clinician_input_tokens"]) for r in per if clin in r["group"]]
        assert len(mine) == 3 and sum(mine) == read


def test_case_metadata_breakdown_matches_the_demo_metadata(report_dir: Path) -> None:
    rows = read_csv(report_dir / "case_metadata.csv")
    assert {r["field"] for r in rows} == {"department", "urgency", "patient sex", "age group"}
    a = {(r["field"], r["category"]): r for r in rows if r["group"].startswith("mockllm/clin-a")}
    done = {sid: completion(sid, "clin-a") for sid in LABELS}
    female = [done["demo_bad_news/scenario1"], done["demo_peds_asthma/scenario1"]]
    assert int(a[("patient sex", "female")]["scenarios"]) == 2
    assert float(a[("patient sex", "female")]["macro"]) == pytest.approx(
        sum(c / t for c, t in female) / 2
    )
    assert int(a[("patient sex", "male")]["scenarios"]) == 1
    assert [k[1] for k in a if k[0] == "age group"] == ["0-17", "40-64"]
    assert int(a[("age group", "40-64")]["scenarios"]) == 2
    assert ("urgency", "emergent") in a and ("department", "Emergency department") in a
    assert "### By patient sex" in (report_dir / "report.md").read_text()


def test_strategy_heatmap_cells_are_the_groups_metrics(report_dir: Path) -> None:
    cells = read_csv(report_dir / "strategy_competency.csv")
    board = {r["group"]: r for r in read_csv(report_dir / "leaderboard.csv")}
    assert {c["strategy"] for c in cells} == {"off", "single"}
    assert len(cells) == 2 * 7
    for c in cells:
        key = "macro" if c["competency"] == "overall" else f"{c['competency']}_macro"
        assert c["macro"] == board[c["group"]][key]


def test_one_colour_per_model_and_distinct_markers() -> None:
    set_ = published_set("MedSP-demo", None, None)

    def group(clinician: str, strategy: str) -> GroupSummary:
        return GroupSummary(
            key=(clinician, strategy, "turns", "j", set_.key, ""),
            label=f"{clinician} ({strategy})", clinician=clinician, strategy=strategy,
            protocol="turns", judge="j", case_set=set_, runs=[], metrics={}, source="log",
            samples=[],
        )  # fmt: skip

    groups = [group("m/b", "off"), group("m/a", "off"), group("m/b", "bon")]
    look = styles(groups)
    # each model its colour; a model's second group a lighter shade of it with another kind
    # of hatch (not the same lines in the other direction)
    assert look["m/a (off)"].colour == PALETTE[0] and look["m/b (off)"].colour == PALETTE[1]
    assert look["m/b (bon)"].colour == shade(PALETTE[1], SHADES[1]) != PALETTE[1]
    assert look["m/b (bon)"].hatch not in {look["m/b (off)"].hatch, "\\\\"}
    assert len({s.marker for s in look.values()}) == 3
    # the colour follows the model, not the order of the groups
    assert styles(list(reversed(groups)))["m/a (off)"].colour == look["m/a (off)"].colour


@pytest.mark.parametrize(
    ("text", "group"),
    [("6-year-old", "0-17"), ("18 months", "0-17"), ("34", "18-39"), ("G2P1, 28 years", "18-39"),
     ("58 years", "40-64"), ("72 yo", "65+"), ("newborn", "0-17"), ("adult", "(not given)")],
)  # fmt: skip
def test_age_groups_from_free_text(text: str, group: str) -> None:
    assert age_group(text) == group


def test_patient_sex_spellings() -> None:
    assert [patient_sex(t) for t in ("Female", " M ", "girl", "intersex")] == [
        "female", "male", "female", "intersex"
    ]  # fmt: skip
