"""A case set is part of a run's identity: ``medsp-report`` never pools runs of different
sets, names the set on every row, and says where the cases are the user's own.

Three scripted runs of the same model (``medsp/scripted``): the bundled demo's scenarios
loaded as ``MedSP1000`` (a published set, only three of its scenarios), the same three
cases written in the case format as the user's set ``democases``, and a second user set
``othercases`` whose ids overlap the first but whose anaphylaxis rubric has two more items.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_medsp import medsp_custom
from inspect_medsp.cases.write import write_demo
from inspect_medsp.cli import main
from inspect_medsp.params import TaskParameters
from inspect_medsp.tasks import medsp_task
from tests.conftest import DEMO

SCRIPTED = "medsp/scripted"


def _eval(task: object, log_dir: Path) -> EvalLog:
    [log] = eval(task, model=SCRIPTED, display="none", log_dir=str(log_dir))  # type: ignore[arg-type]
    assert log.status == "success", log.error
    return log


def _add_items(case: Path, items: list[str]) -> None:
    """Put ``items`` (which no scripted clinician meets) first under the rubric's PC."""
    rubric = case / "rubric.yaml"
    text = rubric.read_text(encoding="utf-8")
    assert "\nPC:\n" in f"\n{text}"
    added = "".join(f"  - {item}\n" for item in items)
    rubric.write_text(f"\n{text}".replace("\nPC:\n", f"\nPC:\n{added}", 1)[1:], encoding="utf-8")


def _macro(log: EvalLog) -> float:
    assert log.results is not None
    return float(log.results.scores[0].metrics["macro"].value)


@pytest.fixture(scope="module")
def three_sets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, float]]:
    """The logs folder of the three runs, and each run's own macro by set."""
    root = tmp_path_factory.mktemp("sets")
    logs = root / "logs"
    write_demo(root / "democases")
    _add_items(root / "democases" / "demo_bad_news", ["Offers a cup of tea"])
    write_demo(root / "othercases")
    shutil.rmtree(root / "othercases" / "demo_bad_news")
    _add_items(
        root / "othercases" / "demo_anaphylaxis",
        ["Checks the ward's fire exits", "Orders a skull X-ray"],
    )
    facts = root / "othercases" / "demo_peds_asthma" / "case.yaml"
    facts.write_text(facts.read_text().replace("status: reviewed", "status: draft"))
    published = medsp_task(
        "MedSP1000",
        DEMO / "scenarios",
        DEMO / "upstream",
        TaskParameters(judge=SCRIPTED),
    )
    macros = {
        "MedSP1000": _macro(_eval(published, logs / "published")),
        "democases": _macro(
            _eval(medsp_custom(cases=str(root / "democases"), judge=SCRIPTED), logs / "a")
        ),
        "othercases": _macro(
            _eval(medsp_custom(cases=str(root / "othercases"), judge=SCRIPTED), logs / "b")
        ),
    }
    return logs, macros


def _leaderboard(out: Path) -> list[dict[str, str]]:
    with (out / "leaderboard.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_runs_of_different_sets_are_separate_named_rows_with_nothing_replaced(
    three_sets: tuple[Path, dict[str, float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs, macros = three_sets
    assert len(set(macros.values())) == 3, macros  # the sets score apart: a mix would show
    out = tmp_path / "report"
    assert main([str(logs), "--out", str(out)]) == 0
    assert "3 logs, 3 groups" in capsys.readouterr().out
    rows = _leaderboard(out)
    by_set = {row["case_set"]: row for row in rows}
    assert sorted(by_set) == [
        "MedSP1000",
        "your cases: democases, 3 cases",
        "your cases: othercases, 2 cases",
    ]
    # sets apart: the published set first, then the user's own by name
    assert [row["case_set"] for row in rows] == [
        "MedSP1000",
        "your cases: democases, 3 cases",
        "your cases: othercases, 2 cases",
    ]
    # each set is ranked apart: every set's best group is 1, however the sets scored
    assert [row["rank"] for row in rows] == ["1", "1", "1"]
    leaderboard_text = (out / "report.md").read_text(encoding="utf-8")
    assert "Each case set is ranked apart" in leaderboard_text
    for name, row in by_set.items():
        assert row["logs"] == "1" and row["metrics_source"] == "log", row
        assert SCRIPTED in row["group"] and name in row["group"]
    # each row keeps its own log's number: no scenario of one set replaced another's
    assert float(by_set["MedSP1000"]["macro"]) == pytest.approx(macros["MedSP1000"])
    assert float(by_set["your cases: democases, 3 cases"]["macro"]) == pytest.approx(
        macros["democases"]
    )
    assert float(by_set["your cases: othercases, 2 cases"]["macro"]) == pytest.approx(
        macros["othercases"]
    )
    assert by_set["your cases: othercases, 2 cases"]["scenarios_scored"] == "2"
    # a custom set is never comparable with the published numbers, and says why
    assert by_set["your cases: democases, 3 cases"]["comparable"] == "False"
    assert "not the published benchmark" in by_set["your cases: democases, 3 cases"][
        "not_comparable_because"
    ]
    report = (out / "report.md").read_text(encoding="utf-8")
    title = report.splitlines()[0]
    assert title == (
        "# Competency-gap report: MedSP1000 and your cases: democases, 3 cases and your "
        "cases: othercases, 2 cases"
    )
    assert "pooled" not in report
    assert "Different case sets" in report
    # the drafts a set ran are named in the report, as the run warned
    assert (
        "your cases: othercases, 2 cases: 1 case is a draft, not yet reviewed by a clinician: "
        "demo_peds_asthma" in report
    )
    table = (out / "table.md").read_text(encoding="utf-8")
    assert table.startswith("# Results: MedSP1000 and your cases: democases")


def test_a_report_of_your_own_cases_says_so_in_its_title_and_table(
    three_sets: tuple[Path, dict[str, float]], tmp_path: Path
) -> None:
    logs, _ = three_sets
    out = tmp_path / "report"
    assert main([str(logs / "a"), "--out", str(out)]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.splitlines()[0] == "# Competency-gap report: your cases: democases, 3 cases"
    assert "These are your own cases (your cases: democases, 3 cases)" in report
    table = (out / "table.md").read_text(encoding="utf-8")
    assert table.splitlines()[0] == "# Results: your cases: democases, 3 cases"
    [row] = _leaderboard(out)
    assert row["case_set_kind"] == "custom" and len(row["case_set_revision"]) == 12


def test_a_set_edited_between_runs_is_another_set(tmp_path: Path) -> None:
    """Same folder name, different files: the digest keeps the two runs apart."""
    cases = tmp_path / "mine"
    write_demo(cases)
    first = _eval(medsp_custom(cases=str(cases), judge=SCRIPTED), tmp_path / "logs" / "1")
    shutil.rmtree(cases / "demo_peds_asthma")
    second = _eval(medsp_custom(cases=str(cases), judge=SCRIPTED), tmp_path / "logs" / "2")
    assert _macro(first) != _macro(second)
    out = tmp_path / "report"
    assert main([str(tmp_path / "logs"), "--out", str(out)]) == 0
    rows = _leaderboard(out)
    assert len(rows) == 2
    sets = {r["case_set"] for r in rows}
    assert sets == {"your cases: mine, 3 cases", "your cases: mine, 2 cases"}
    assert len({r["group"] for r in rows}) == 2


def test_two_sets_of_one_name_say_where_they_differ(tmp_path: Path) -> None:
    """Same folder name and number of cases, one rubric edited: each label names its digest
    and the first file in which it differs from the other, and each is ranked in its set."""
    cases = tmp_path / "mine"
    write_demo(cases)
    first = _eval(medsp_custom(cases=str(cases), judge=SCRIPTED), tmp_path / "logs" / "1")
    _add_items(cases / "demo_bad_news", ["Offers a cup of tea"])
    second = _eval(medsp_custom(cases=str(cases), judge=SCRIPTED), tmp_path / "logs" / "2")
    assert _macro(first) != _macro(second)
    out = tmp_path / "report"
    assert main([str(tmp_path / "logs"), "--out", str(out)]) == 0
    rows = _leaderboard(out)
    assert [r["rank"] for r in rows] == ["1", "1"]
    digests = {r["case_set_revision"] for r in rows}
    assert len(digests) == 2
    for row in rows:
        own = row["case_set_revision"]
        [other] = digests - {own}
        assert (
            f"your cases: mine, 3 cases [digest {own}; differs from {other} first at "
            "demo_bad_news/rubric.yaml]" in row["group"]
        ), row["group"]
