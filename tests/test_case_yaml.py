"""A rubric file cannot lie: every reading of ``rubric.yaml`` that would lose, cut or change
what the author wrote is one line naming the file, the line and the fix, and stops a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_medsp import medsp_custom
from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.read import read_case
from inspect_medsp.cases.write import new_case
from inspect_medsp.errors import MedSPDataError

QUOTE = 'quote the whole item, - "..."'

TRAPS = {
    "a second PC: key": (
        "PC:\n  - Gives aspirin\n  - Obtains an ECG\nMK:\n  - Names the rhythm\n"
        "PC:\n  - Calls the cardiologist\n",
        6,
        "'PC:' appears again (first on line 1)",
        "put everything under one 'PC:'",
    ),
    "an item cut at #": (
        "PC:\n  - Requests a 12-lead ECG #within 10 minutes\n",
        2,
        'YAML reads "#within 10 minutes" as a comment and keeps only "Requests a 12-lead ECG"',
        QUOTE,
    ),
    "an item read as a pair": (
        "PC:\n  - Gives aspirin\n  - Thrombolysis dose: 0.9 mg/kg\n",
        3,
        'item "Thrombolysis dose: 0.9 mg/kg" reads as a name and a value',
        QUOTE,
    ),
    "an item read as a number": (
        "PC:\n  - Gives aspirin\n  - 12\n",
        3,
        "item '12' reads as a number",
        "write what the clinician does",
    ),
    "an item read as a boolean": (
        "ICS:\n  - yes\n",
        2,
        "item 'yes' reads as a yes/no value",
        "write what the clinician does",
    ),
    "an item written twice": (
        "PC:\n  - Gives aspirin\n  - Obtains an ECG\n  - Gives  aspirin\n",
        4,
        "PC item repeats line 2 word for word",
        "delete one of the two",
    ),
    "an item empty after stripping": (
        'PC:\n  - Gives aspirin\n  - "   "\n',
        3,
        "item is empty",
        "write the item after '- '",
    ),
    "an item starting with **": (
        "PROF:\n  - Introduces themself\n  - **Never** leaves the patient alone\n",
        3,
        "YAML cannot read \"**Never** leaves the patient alone\": '*' starts a YAML alias",
        QUOTE,
    ),
}


@pytest.fixture
def case(tmp_path: Path) -> Path:
    folder = tmp_path / "set" / "mycase"
    new_case(folder)
    return folder


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_each_yaml_trap_is_one_line_naming_file_line_and_fix(case: Path, trap: str) -> None:
    text, line, message, fix = TRAPS[trap]
    (case / "rubric.yaml").write_text(text, encoding="utf-8")
    found = check_set(case.parent).problems
    assert len(found) == 1, [p.line() for p in found]
    problem = found[0]
    assert problem.file.endswith(f"mycase/rubric.yaml:{line}")
    said = problem.line()
    assert "\n" not in said and message in said and fix in said.split("; fix: ", 1)[1], said
    assert "alias" not in said or "'*' starts a YAML alias" in said  # no other YAML jargon
    # a case whose rubric does not say what its author wrote does not run
    with pytest.raises(MedSPDataError, match=r"rubric\.yaml:\d+: "):
        medsp_custom(cases=str(case.parent))


def test_quoted_and_block_items_keep_every_character(case: Path) -> None:
    (case / "rubric.yaml").write_text(
        "PC:\n"
        '  - "Thrombolysis dose: 0.9 mg/kg"\n'
        "  - |-\n"
        "    Requests a 12-lead ECG #within 10 minutes\n"
        "    and reads it before the patient leaves\n"
        "  - '**Never** leaves the patient alone'  # a note of the author's\n"
        "  - >-\n"
        "    Explains the plan\n"
        "    in plain words\n",
        encoding="utf-8",
    )
    read = read_case(case)
    assert [p.line() for p in read.problems] == []
    assert read.rubric is not None and read.rubric["PC"] == [
        "Thrombolysis dose: 0.9 mg/kg",
        "Requests a 12-lead ECG #within 10 minutes\nand reads it before the patient leaves",
        "**Never** leaves the patient alone",
        "Explains the plan in plain words",
    ]


def test_a_duplicate_field_of_case_yaml_is_named_too(case: Path) -> None:
    facts = case / "case.yaml"
    facts.write_text(facts.read_text(encoding="utf-8") + "status: reviewed\n", encoding="utf-8")
    [problem] = check_set(case.parent).problems
    assert problem.file.startswith(f"{case.as_posix()}/case.yaml:")
    assert "'status:' appears again" in problem.line()


@pytest.mark.parametrize("name", ["case.yaml", "rubric.yaml"])
def test_a_tab_in_yaml_says_replace_it_with_spaces(tmp_path: Path, name: str) -> None:
    case = tmp_path / "set" / "mycase"
    new_case(case)
    path = case / name
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(
        n for n, line in enumerate(lines) if line.startswith("  ") and line.strip()[:1] != "#"
    )
    lines[at] = "\t" + lines[at].lstrip()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    said = [p.line() for p in check_set(case.parent).problems if p.stops_a_run]
    assert said == [
        f"{path.as_posix()}:{at + 1}: a tab (column 1): YAML does not read tabs as "
        "indentation; fix: replace the tab with spaces (two spaces a level, as the template "
        "does)"
    ]
