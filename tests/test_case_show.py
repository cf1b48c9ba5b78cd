"""``medsp-cases show CASE --role R`` prints what the run sends that role: for the demo's
first case, each role's opening messages equal the first call the log records for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log

from inspect_medsp import medsp_custom
from inspect_medsp.cases.cli import main
from inspect_medsp.cases.show import RECORD, ROLES
from inspect_medsp.cases.write import write_demo

FIRST = "demo_anaphylaxis"


@pytest.fixture(scope="module")
def sent(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    """The demo's cases, and the messages of the first call the log records for each role
    in the first case's encounter."""
    root = tmp_path_factory.mktemp("show")
    cases = root / "democases"
    write_demo(cases)
    [log] = eval(
        medsp_custom(cases=str(cases), judge="medsp/scripted"),
        model="medsp/scripted",
        display="none",
        log_dir=str(root / "logs"),
    )
    assert log.status == "success", log.error
    # the log as stored, with the texts its events point to put back
    stored = read_eval_log(log.location, resolve_attachments=True)
    sample = next(s for s in stored.samples or [] if str(s.id).startswith(FIRST))
    first: dict[str, list[str]] = {}
    for event in sample.events:
        if isinstance(event, ModelEvent) and event.role is not None:
            first.setdefault(event.role, [m.text for m in event.input])
    return cases / FIRST, first


def _printed(case: Path, role: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The messages ``show`` prints, split at their ``[kind]`` lines."""
    assert main(["show", str(case), "--role", role]) == 0
    out = capsys.readouterr().out
    parts = [p for p in out.split("[system]\n", 1)[1].split("\n\n[user]\n")]
    return [parts[0], parts[1].removesuffix("\n")]


@pytest.mark.parametrize("role", [r for r in ROLES if r != "grader"])
def test_show_prints_what_the_log_records_the_role_was_sent(
    sent: tuple[Path, dict[str, list[str]]], role: str, capsys: pytest.CaptureFixture[str]
) -> None:
    case, first = sent
    printed = _printed(case, role, capsys)
    # the patient and the environment then get the turn's message; what the case gave them
    # is the opening pair
    assert first[role][:2] == printed


def test_show_prints_the_graders_request_around_the_record(
    sent: tuple[Path, dict[str, list[str]]], capsys: pytest.CaptureFixture[str]
) -> None:
    case, first = sent
    system, request = _printed(case, "grader", capsys)
    assert first["grader"][0] == system
    before, after = request.split(RECORD)
    logged = first["grader"][1]
    assert logged.startswith(before) and logged.endswith(after)
    assert "Mr. Brennan's wish to leave" in before  # the checklist is the case's own


def test_show_of_a_broken_case_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_demo(tmp_path / "set")
    (tmp_path / "set" / FIRST / "rubric.yaml").write_text("PC:\n  - 12\n", encoding="utf-8")
    assert main(["show", str(tmp_path / "set" / FIRST), "--role", "patient"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "rubric.yaml:2: item '12' reads as a number" in err
