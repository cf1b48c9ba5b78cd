"""Old case sets keep loading: stage headings in the form cases used before the stage syntax
was checked (``## State 1 of 3 - initial_assessment (09:05, arrival)``, counted from 1) are
read as the stages they name, with a note, and ``medsp-cases upgrade DIR`` rewrites them,
showing the diff first and changing nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_medsp.cases import load_custom
from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.cli import main
from inspect_medsp.cases.write import new_case

OLD_HEADINGS = {
    "## 0 initial_assessment": "## State 1 of 3 - initial_assessment (09:05, arrival)",
    "## 1 treatment_and_response": "## State 2 of 3 - treatment_and_response (09:35)",
    "## 2 disposition": "## State 3 of 3 - disposition (10:30, ward call)",
    "| 0 | initial_assessment |": "| 1 | initial_assessment |",
    "| 1 | treatment_and_response |": "| 2 | treatment_and_response |",
    "| 2 | disposition |": "| 3 | disposition |",
}


def _last_months_set(root: Path) -> Path:
    """A two-case set as last month's format wrote stages: 'State n of m - label (note)'
    headings and a table, both counted from 1; the second case with Windows line endings."""
    cases = root / "old"
    for name in ("first", "second"):
        new_case(cases / name)
        stages = cases / name / "environment" / "01_stages.md"
        text = stages.read_text(encoding="utf-8")
        for new, old in OLD_HEADINGS.items():
            assert new in text
            text = text.replace(new, old)
        newline = "\r\n" if name == "second" else "\n"
        stages.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return cases


def test_a_set_in_last_months_format_checks_clean_and_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = _last_months_set(tmp_path)
    result = check_set(cases)
    assert result.problems == [], [p.line() for p in result.problems]
    assert main(["check", str(cases)]) == 0
    out = capsys.readouterr().out
    assert out.count("3 stage headings in an earlier form") == 2
    assert "01_stages.md:13: note:" in out  # the line an editor shows (after the comment)
    assert f"medsp-cases upgrade {cases.as_posix()}" in out
    records, _ = load_custom(cases)  # what a run of medsp_custom loads
    assert sorted(r.id for r in records) == ["first/scenario1", "second/scenario1"]


def test_upgrade_shows_the_diff_then_rewrites_only_the_stage_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = _last_months_set(tmp_path)
    before = {p: p.read_bytes() for p in cases.rglob("*") if p.is_file()}
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main(["upgrade", str(cases)]) == 0  # no terminal, no --yes: shown, not written
    shown = capsys.readouterr().out
    assert "-## State 1 of 3 - initial_assessment (09:05, arrival)" in shown
    assert "+## 0 initial_assessment (09:05, arrival)" in shown
    assert "-| 3 | disposition |" in shown and "+| 2 | disposition |" in shown
    assert "2 files would change; nothing written" in shown
    assert {p: p.read_bytes() for p in before} == before

    assert main(["upgrade", str(cases), "--yes"]) == 0
    assert "upgraded 2 files" in capsys.readouterr().out
    for path, old in before.items():
        new = path.read_bytes()
        if path.name != "01_stages.md":
            assert new == old, path
            continue
        changed = [
            (a, b) for a, b in zip(old.splitlines(), new.splitlines(), strict=True) if a != b
        ]
        assert len(changed) == 6  # three headings, three table rows; line endings kept
        assert new.count(b"\r\n") == old.count(b"\r\n")
    assert b"## 0 initial_assessment (09:05, arrival)" in (
        cases / "second" / "environment" / "01_stages.md"
    ).read_bytes()
    assert main(["check", str(cases)]) == 0
    out = capsys.readouterr().out
    assert "earlier form" not in out and "no problems" in out
    assert main(["upgrade", str(cases)]) == 0
    assert "nothing to change" in capsys.readouterr().out


def test_a_heading_no_form_names_is_still_refused(tmp_path: Path) -> None:
    case = tmp_path / "set" / "mycase"
    new_case(case)
    stages = case / "environment" / "01_stages.md"
    text = stages.read_text(encoding="utf-8")
    stages.write_text(text.replace("## 1 treatment_and_response", "## 1"), encoding="utf-8")
    said = [p.line() for p in check_set(case.parent).problems]
    assert any('"## 1" is not a stage heading' in line for line in said), said


def test_packets_with_windows_line_endings_reach_the_model_without_cr(tmp_path: Path) -> None:
    cases = _last_months_set(tmp_path)  # the second case's environment is \r\n throughout
    for path in (cases / "second").rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    assert check_set(cases).problems == []
    records, _ = load_custom(cases)
    [second] = [r for r in records if r.id.startswith("second/")]
    packets = second.scenario.packets
    for text in (
        packets.examinee,
        packets.sp_actor,
        packets.environment_controller,
        packets.evaluator,
    ):
        assert text and "\r" not in text
    assert "\n## State 1 of 3 - initial_assessment (09:05, arrival)\n" in (
        packets.environment_controller
    )
