"""The competency-gap report over real scripted ``medsp_demo`` runs (no network).

Five MedSP runs are made once for the module, each with its own log folder:

- ``a``: clinician ``mockllm/clin-a`` doing procedures, graded by ``mockllm/model``;
- ``b``: clinician ``mockllm/clin-b`` doing history and communication, same grader;
- ``a_single``: clin-a again under ``strategy="single"``;
- ``b_judge``: clin-b graded by ``mockllm/judge-b``, which cannot grade the bad-news case
  (that sample errors);
- ``c_one``: clinician ``mockllm/clin-c`` on the anaphylaxis scenario only, with a patient
  whose replies are never JSON (every patient reply degraded);
- ``none``: clin-c graded by ``mockllm/judge-n``, which grades nothing: no sample is scored.

The scripted grader marks an item met exactly when one of the clinician's actions (as the
encounter record shows them) appears as a word in the item's text.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, Model, get_model
from inspect_ai.scorer import match

from inspect_medsp import medsp_demo
from inspect_medsp.cli import main
from inspect_medsp.data import load_rubrics
from inspect_medsp.full_report import write_report
from inspect_medsp.report import ReportResult
from tests.conftest import DEMO
from tests.support.metrics import metrics_of
from tests.support.scripts import Script, clinician, environment, patient

KEYWORDS = {
    "clin-a": ["epinephrine", "oxygen", "corticosteroid", "monitoring"],
    "clin-b": ["asks", "explains", "introduces", "referral"],
    "clin-c": ["epinephrine"],
    "clin-asks": ["asks"],
}
COMPETENCY_HEADING = re.compile(r"^(PC|MK|SBP|ICS|PBLI|PROF) \(")
ITEM_LINE = re.compile(r"^\[(\d+)\] (.*)$")
ACTION_LINE = re.compile(r"^Clinician action: (.*?)(?: \[[^\]]*\])?$", re.M)
"""An action line of the record, without the controller's reading in brackets."""


# --- scripted roles -------------------------------------------------------------------


def _turn(messages: list[ChatMessage]) -> int:
    """This role's turn number: one more than the replies it has already given."""
    return 1 + sum(m.role == "assistant" for m in messages)


def clinician_script(keywords: list[str]) -> Callable[[list[ChatMessage]], dict[str, Any]]:
    def reply(messages: list[ChatMessage]) -> dict[str, Any]:
        if _turn(messages) == 1:
            return clinician("Hello, I am the doctor looking after you today.", keywords)
        return clinician("Thank you, that is all from me.", [], eos=True)

    return reply


def environment_script(messages: list[ChatMessage]) -> dict[str, Any]:
    if _turn(messages) == 1:
        return environment(0, "initial_assessment", feedback=["The nurse acknowledges."])
    return environment(0, "initial_assessment", end=True, reason="the clinician finished")


def patient_script(messages: list[ChatMessage]) -> dict[str, Any]:
    return patient("Okay, thank you.")


def checklist(prompt: str) -> list[tuple[str, str]]:
    """(competency, text) of every item in the grader's request, in order."""
    items: list[tuple[str, str]] = []
    competency = ""
    head = prompt.split("<encounter_record>")[0].split("The record of the encounter")[0]
    for line in head.splitlines():
        if heading := COMPETENCY_HEADING.match(line):
            competency = heading.group(1)
        elif item := ITEM_LINE.match(line):
            items.append((competency, item.group(2)))
        elif line.strip() and items and competency:
            c, text = items[-1]
            items[-1] = (c, text + "\n" + line)
    return items


def met(text: str, actions: list[str]) -> bool:
    return any(re.search(rf"\b{re.escape(a)}\b", text, re.I) for a in actions)


def grader_script(
    fail_on: str | None = None,
) -> Callable[[list[ChatMessage]], str | dict[str, Any]]:
    """Marks an item met when a clinician action in the record is a word of its text."""

    def reply(messages: list[ChatMessage]) -> str | dict[str, Any]:
        prompt = next(m.text for m in messages if m.role == "user")
        if fail_on is not None and fail_on in prompt:
            return "I would rather not answer in JSON."
        actions = ACTION_LINE.findall(prompt.split("<encounter_record>")[-1])
        verdicts: dict[str, Any] = {"reasoning": ["Scripted verdicts."]}
        for competency, text in checklist(prompt):
            verdicts.setdefault(competency, {})[text] = {
                "met": met(text, actions),
                "evidence": "scripted",
            }
        return verdicts

    return reply


def scripted(name: str, replies: Any) -> Model:
    return get_model(name, custom_outputs=Script(replies), memoize=False)


def medsp_run(
    log_dir: Path,
    clin: str,
    *,
    grader: str = "mockllm/model",
    fail_on: str | None = None,
    bad_patient: bool = False,
    **task_args: Any,
) -> str:
    logs = eval(
        medsp_demo(judge="mockllm/model", **task_args),
        model=scripted(f"mockllm/{clin}", clinician_script(KEYWORDS[clin])),
        model_roles={
            "patient": scripted(
                "mockllm/model",
                (lambda _: "this is not JSON at all") if bad_patient else patient_script,
            ),
            "environment": scripted("mockllm/model", environment_script),
            "grader": scripted(grader, grader_script(fail_on)),
        },
        log_dir=str(log_dir),
        display="none",
    )
    assert logs[0].location
    return logs[0].location


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, _offline_tokens: None) -> dict[str, str]:
    """Log file by run name (see the module docstring), plus ``other`` (a non-MedSP log)."""
    base = tmp_path_factory.mktemp("report_logs")
    out = {
        "a": medsp_run(base / "a", "clin-a"),
        "b": medsp_run(base / "b", "clin-b"),
        "a_single": medsp_run(base / "a_single", "clin-a", strategy="single"),
        "b_judge": medsp_run(base / "b_judge", "clin-b", grader="mockllm/judge-b", fail_on="Linda"),
        "c_one": medsp_run(
            base / "c_one", "clin-c", bad_patient=True, scenarios="demo_anaphylaxis/*"
        ),
        "none": medsp_run(base / "none", "clin-c", grader="mockllm/judge-n", fail_on=""),
    }
    tiny = Task(dataset=[Sample(input="Say hi", target="hi")], scorer=match(), name="tiny")
    other = eval(tiny, model="mockllm/model", log_dir=str(base / "other"), display="none")
    assert other[0].location
    out["other"] = other[0].location
    return out


def report(tmp_path: Path, *inputs: str, formats: tuple[str, ...] = ("md",)) -> ReportResult:
    result = write_report(inputs, tmp_path / "out", formats)
    assert result.analysis is not None
    return result


def read_csv(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def log_metrics(path: str) -> dict[str, float]:
    """Every macro and micro figure of the log, computed from its samples and checked against
    the summary the log itself carries."""
    return metrics_of(read_eval_log(path))


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# --- tests ----------------------------------------------------------------------------


def test_leaderboard_numbers_are_each_logs_own_metrics(
    runs: dict[str, str], tmp_path: Path
) -> None:
    result = report(tmp_path, runs["a"], runs["b"])
    analysis = result.analysis
    assert analysis is not None
    assert analysis.flags == [] and analysis.problems == []
    by_model = {g.clinician: g for g in analysis.groups}
    assert set(by_model) == {"mockllm/clin-a", "mockllm/clin-b"}
    rows = {r["clinician"]: r for r in read_csv(tmp_path / "out" / "leaderboard.csv")}
    comps = read_csv(tmp_path / "out" / "competencies.csv")
    for run, model in (("a", "mockllm/clin-a"), ("b", "mockllm/clin-b")):
        metrics = log_metrics(runs[run])
        group = by_model[model]
        assert group.source == "log"
        assert group.metrics == pytest.approx(metrics, nan_ok=True)
        row = rows[model]
        for key in ("macro", "macro_ci_low", "macro_ci_high", "micro", "micro_ci_low"):
            assert float(row[key] or "nan") == pytest.approx(metrics[key], nan_ok=True)
        for c in ("PC", "MK", "SBP", "ICS", "PBLI", "PROF"):
            assert float(row[f"{c}_macro"]) == metrics[f"{c}_macro"]
            comp = next(r for r in comps if r["group"] == model and r["competency"] == c)
            assert float(comp["macro"]) == metrics[f"{c}_macro"]
            assert float(comp["micro_ci_high"] or "nan") == pytest.approx(
                metrics[f"{c}_micro_ci_high"], nan_ok=True
            )
        assert row["scenarios_scored"] == "3"
        # the shared comparison (the same three scenarios) agrees with the log
        assert group.shared["macro"] == pytest.approx(metrics["macro"])
        assert group.shared["macro_ci_low"] == pytest.approx(metrics["macro_ci_low"], nan_ok=True)

    md = (tmp_path / "out" / "report.md").read_text()
    board = md.split("## Leaderboard")[1].split("\n## ")[0]
    assert "mockllm/clin-a" in board and "mockllm/clin-b" in board
    a_macro = log_metrics(runs["a"])["macro"]
    assert f"{a_macro * 100:.1f}%" in board
    assert "All 2 groups scored the same 3 scenarios" in md
    assert "![" in md and "(competencies.png)" in md and "(distribution.png)" in md


def test_charts_are_readable_pngs(runs: dict[str, str], tmp_path: Path) -> None:
    report(tmp_path, runs["a"], runs["b"], runs["a_single"])
    for name in ("competencies.png", "distribution.png"):
        width, height = png_size(tmp_path / "out" / name)
        assert 300 < width < 5000 and 300 < height < 5000, (name, width, height)


def test_gaps_name_the_items_the_clinician_left_undone(
    runs: dict[str, str], tmp_path: Path
) -> None:
    result = report(tmp_path, runs["a"], runs["b"])
    assert result.analysis is not None
    rubrics = load_rubrics(DEMO / "upstream").rubrics
    missed = read_csv(tmp_path / "out" / "missed_items.csv")
    for clin in ("clin-a", "clin-b"):
        undone = {
            (i.competency, i.text)
            for r in rubrics.values()
            for i in r.items()
            if not met(i.text, KEYWORDS[clin])
        }
        done = {(i.competency, i.text) for r in rubrics.values() for i in r.items()} - undone
        assert done and undone
        mine = [m for m in missed if m["group"] == f"mockllm/{clin}"]
        assert {(m["competency"], m["text"]) for m in mine if m["missed"] == "1"} == undone
        assert {(m["competency"], m["text"]) for m in mine if m["missed"] == "0"} == done
        assert all(m["seen"] == "1" and m["unjudged"] == "0" for m in mine)

    md = (tmp_path / "out" / "report.md").read_text()
    section = md.split("### mockllm/clin-a")[1].split("###")[0]
    listed = [line for line in section.splitlines() if line.startswith("| PC") or "1 of 1" in line]
    assert listed and all("1 of 1" in line for line in listed)
    assert "Gives epinephrine 0.5 mg" not in section  # clin-a gave epinephrine

    group = next(g for g in result.analysis.groups if g.clinician == "mockllm/clin-a")
    overall = group.metrics["macro"]
    assert group.below_overall == [
        c for c in ("PC", "MK", "SBP", "ICS", "PBLI", "PROF")
        if f"{c}_macro" in group.metrics and group.metrics[f"{c}_macro"] < overall
    ]  # fmt: skip
    assert "PC" not in group.below_overall and "ICS" in group.below_overall
    specialties = {
        r["specialty"]: float(r["mean_overall"])
        for r in read_csv(tmp_path / "out" / "specialties.csv")
        if r["group"] == "mockllm/clin-a"
    }
    per = {s.specialty: s.values["overall"] for s in group.samples}
    assert specialties == per
    assert set(specialties) == {"Emergency Medicine", "Internal Medicine", "Pediatrics"}
    assert specialties["Internal Medicine"] == 0.0  # no procedure fits breaking bad news


def test_mixed_judges_and_unscored_run_are_flagged(runs: dict[str, str], tmp_path: Path) -> None:
    result = report(tmp_path, runs["a"], runs["b"], runs["b_judge"])
    analysis = result.analysis
    assert analysis is not None
    judges = {g.judge for g in analysis.groups}
    assert judges == {"mockllm/model", "mockllm/judge-b"}
    assert any("Mixed judges" in f and "mockllm/judge-b" in f for f in analysis.flags)
    labels = {g.label for g in analysis.groups}
    assert "mockllm/clin-b (judge=mockllm/judge-b)" in labels
    assert "mockllm/clin-b (judge=mockllm/model)" in labels
    health = {h.run: h for h in analysis.health}
    bad = health[Path(runs["b_judge"]).name]
    # the grader's failure leaves that sample unscored (kept, named), not errored
    assert bad.errored == 0 and bad.unscored == {"demo_bad_news/scenario1": "grader_failed"}
    assert any("1 of 3 samples unscored: demo_bad_news/scenario1" in f for f in bad.flags)
    assert not health[Path(runs["a"]).name].flags
    # the unscored scenario is left out of the shared comparison
    assert analysis.shared_ids == ["demo_anaphylaxis/scenario1", "demo_peds_asthma/scenario1"]
    md = (tmp_path / "out" / "report.md").read_text()
    assert "Mixed judges" in md and "unhealthy" in md
    rows = read_csv(tmp_path / "out" / "leaderboard.csv")
    assert {r["judge"] for r in rows} == judges
    flagged = {r["group"]: r["health_flagged"] for r in rows}
    assert flagged["mockllm/clin-b (judge=mockllm/judge-b)"] == "True"
    assert flagged["mockllm/clin-a (judge=mockllm/model)"] == "False"


def test_scenario_sets_differ_shared_subset_and_degraded_run(
    runs: dict[str, str], tmp_path: Path
) -> None:
    result = report(tmp_path, runs["a"], runs["c_one"])
    analysis = result.analysis
    assert analysis is not None
    assert any("Different scenario sets" in f for f in analysis.flags)
    assert analysis.shared_ids == ["demo_anaphylaxis/scenario1"]
    a = next(g for g in analysis.groups if g.clinician == "mockllm/clin-a")
    anaphylaxis = next(s for s in a.samples if s.id == "demo_anaphylaxis/scenario1")
    assert a.shared["macro"] == anaphylaxis.values["overall"]
    assert a.shared["macro"] != a.metrics["macro"]
    md = (tmp_path / "out" / "report.md").read_text()
    assert "1 scenario was scored by all 2 groups" in md
    assert "from the per-sample score values" in md

    c_health = next(h for h in analysis.health if h.group == "mockllm/clin-c")
    assert c_health.roles["patient"].degraded == c_health.roles["patient"].total > 0
    assert any(f.startswith("patient replies degraded") for f in c_health.flags)
    health = {r["run"]: r for r in read_csv(tmp_path / "out" / "health.csv")}
    row = health[Path(runs["c_one"]).name]
    assert row["flagged"] == "True" and float(row["patient_degraded_share"]) == 1.0
    assert int(row["end_should_end"]) == 1
    assert float(row["tokens_per_scenario_clinician"]) > 0
    assert float(row["tokens_per_scenario_grader"]) > 0
    per = read_csv(tmp_path / "out" / "per_scenario.csv")
    assert len(per) == 4 and all(r["end"] == "should_end" and r["turns"] == "2" for r in per)


def test_strategies_are_separate_rows(runs: dict[str, str], tmp_path: Path) -> None:
    result = report(tmp_path, runs["a"], runs["a_single"])
    assert result.analysis is not None
    labels = sorted(g.label for g in result.analysis.groups)
    assert labels == ["mockllm/clin-a (strategy=off)", "mockllm/clin-a (strategy=single)"]
    for g in result.analysis.groups:
        run = runs["a"] if g.strategy == "off" else runs["a_single"]
        assert g.metrics == pytest.approx(log_metrics(run), nan_ok=True)


def test_same_group_in_two_logs_is_pooled_with_the_scorer_formulas(
    runs: dict[str, str], tmp_path: Path
) -> None:
    copy = tmp_path / "copy" / Path(runs["a"]).name.replace(".eval", "-copy.eval")
    copy.parent.mkdir()
    shutil.copy(runs["a"], copy)
    result = report(tmp_path, runs["a"], str(copy))
    assert result.analysis is not None
    (group,) = result.analysis.groups
    assert group.source == "pooled" and len(group.runs) == 2
    assert group.metrics == pytest.approx(log_metrics(runs["a"]), nan_ok=True)
    assert any("pooled" in n for n in result.analysis.notes)
    assert any("more than one log" in n for n in result.analysis.notes)


def test_bad_inputs_are_named_and_the_rest_reported(
    runs: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    corrupt = tmp_path / "junk" / "x.eval"
    corrupt.parent.mkdir()
    corrupt.write_bytes(bytes(range(256)) * 4)
    out = tmp_path / "out"
    code = main(
        [runs["a"], str(empty), runs["other"], str(corrupt.parent), "--out", str(out),
         "--format", "md,html"]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0
    errors = [line for line in captured.err.splitlines() if "error:" in line]
    assert len(errors) == 3
    assert any(str(empty) in e and "no Inspect logs" in e for e in errors)
    assert any(runs["other"] in e and "not a MedSP log" in e for e in errors)
    assert any(str(corrupt) in e and "not a readable Inspect log" in e for e in errors)
    assert "wrote" in captured.out
    md = (out / "report.md").read_text()
    assert "mockllm/clin-a" in md and "x.eval" in md and "not a MedSP log" in md
    page = (out / "report.html").read_text()
    assert "<table>" in page and '<img src="competencies.png"' in page
    for name in ("leaderboard", "competencies", "missed_items", "health", "per_scenario"):
        assert (out / f"{name}.csv").is_file()


def test_nothing_reportable_exits_non_zero(
    runs: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main([str(empty), runs["other"], "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1
    assert "nothing could be reported" in err
    assert not (tmp_path / "out" / "report.md").exists()


def test_missing_matplotlib_names_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "matplotlib" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    code = main([str(tmp_path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "pip install 'inspect-medsp[report]'" in err[0]


def test_the_report_loads_without_matplotlib_until_a_chart_is_drawn() -> None:
    """Every view holds its figure, but matplotlib (the ``report`` extra) is imported only
    when a chart is drawn: the report's face and ``medsp-report`` load without it."""
    code = (
        "import sys, inspect_medsp.report, inspect_medsp.full_report, inspect_medsp.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert found.stdout.strip() == "[]"


def test_grader_script_reads_multi_line_items() -> None:
    prompt = "PC (Patient Care):\n[1] Asks about this:\nwhen it began\n\n<encounter_record>\n"
    assert checklist(prompt) == [("PC", "Asks about this:\nwhen it began")]


def test_runs_are_named_by_model_strategy_and_judge_not_log_files(
    runs: dict[str, str], tmp_path: Path
) -> None:
    copy = tmp_path / "copy" / Path(runs["a"]).name.replace(".eval", "-copy.eval")
    copy.parent.mkdir()
    shutil.copy(runs["a"], copy)
    report(tmp_path, runs["a"], str(copy), runs["a_single"], runs["b_judge"])
    md = (tmp_path / "out" / "report.md").read_text()

    health = md.split("## Health of the runs")[1].split("\n## ")[0]
    files = [Path(runs[r]).name for r in ("a", "a_single", "b_judge")] + [copy.name]
    assert not [f for f in files if f in health]
    a = "mockllm/clin-a, strategy off, judge mockllm/model"
    for name in (
        f"{a} (run 1 of 2)",
        f"{a} (run 2 of 2)",
        "mockllm/clin-a, strategy single, judge mockllm/model",
        "mockllm/clin-b, strategy off, judge mockllm/judge-b",
    ):
        assert f"| {name} |" in health, name
    # the one sample its grader could not score is named by its run, not its file
    b_judge = "mockllm/clin-b, strategy off, judge mockllm/judge-b"
    assert f"- {b_judge}: demo_bad_news/scenario1 (epoch 1): grader_failed" in health
    # the log files are still listed, after the run's name, for finding them
    read = md.split("Runs read:")[1]
    assert f"- {a} (run 1 of 2): inspect_medsp/medsp_demo, created" in read
    assert all(f"log `{f}`" in read for f in files)
    rows = read_csv(tmp_path / "out" / "health.csv")
    assert sorted(r["label"] for r in rows) == sorted(
        [f"{a} (run 1 of 2)", f"{a} (run 2 of 2)", "mockllm/clin-a, strategy single, judge "
         "mockllm/model", "mockllm/clin-b, strategy off, judge mockllm/judge-b"]
    )  # fmt: skip


def test_a_run_with_nothing_scored_is_reported_and_left_out_of_the_comparison(
    runs: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main([runs["a"], runs["b"], runs["none"], "--out", str(out)])
    captured = capsys.readouterr()

    assert code == 0
    assert "error:" not in captured.err  # the run is reported, not dropped as "not a MedSP log"
    md = (out / "report.md").read_text()
    none = "mockllm/clin-c (judge=mockllm/judge-n)"
    board = md.split("## Leaderboard")[1].split("\n## ")[0]
    assert f"| {none} |" in board and "⚠ unhealthy run" in board
    health = md.split("## Health of the runs")[1]
    for case in ("demo_anaphylaxis", "demo_bad_news", "demo_peds_asthma"):
        assert f"{case}/scenario1 (epoch 1): grader_failed" in health
    # the comparison keeps the three scenarios the other runs scored, and names the one left out
    comparison = md.split("## Comparison on shared scenarios")[1].split("\n## ")[0]
    assert f"Left out, as nothing of theirs was scored (see the health of the runs): {none}." in (
        comparison
    )
    assert "All 2 groups scored the same 3 scenarios" in comparison
    assert f"| {none} |" not in comparison
    assert "status not success" not in md
    warned = captured.err.splitlines()
    assert any(f"Nothing was scored in 1 group ({none})" in line for line in warned)
    rows = {r["group"]: r for r in read_csv(out / "leaderboard.csv")}
    assert rows[none]["scenarios_scored"] == "0" and rows[none]["shared_scenarios"] == "0"
    assert rows["mockllm/clin-a (judge=mockllm/model)"]["shared_scenarios"] == "3"


def test_a_run_covering_fewer_than_the_published_scenarios_is_marked_not_comparable(
    runs: dict[str, str], tmp_path: Path
) -> None:
    result = report(tmp_path, runs["a"], runs["c_one"])
    assert result.analysis is not None

    md = (tmp_path / "out" / "report.md").read_text()
    board = md.split("## Leaderboard")[1].split("\n## ")[0]
    assert "| 1 of 3 ⚠ not comparable |" in board
    assert "| 3 of 3 |" in board
    assert (
        "mockllm/clin-c scored 1 of 3 published scenarios: not comparable with the published "
        "numbers, which cover every one."
    ) in result.analysis.flags
    rows = {r["clinician"]: r for r in read_csv(tmp_path / "out" / "leaderboard.csv")}
    c_row = rows["mockllm/clin-c"]
    assert (c_row["published_scenarios"], c_row["comparable"]) == ("3", "False")
    assert rows["mockllm/clin-a"]["comparable"] == "True"
