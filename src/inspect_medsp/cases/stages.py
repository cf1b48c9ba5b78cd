"""The stages of a case, as ``check`` verifies them in the environment's packet.

Each stage is a level-2 heading ``## <n> <label>``: ``n`` counts from 0 with no gap, the
label is lower-case words joined by ``_``, different for every stage, and stage 0 is
``initial_assessment``. A stages table (``| index | label | ... |``), when the packet has
one, names the same stages in the same order. Any other heading starting with a number or
with "stage" is taken for a stage written another way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspect_medsp.cases.layout import strip_comments
from inspect_medsp.cases.read import CaseFiles
from inspect_medsp.cases.yamlfile import Fault

FIRST_STAGE = "initial_assessment"
"""The label of stage 0, as the environment's instructions name it."""

STAGE = re.compile(r"^##\s+(\d+)\s+([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\s*$")
LOOKS_LIKE = re.compile(r"^##\s+(?:\d|stage\b|state\b)", re.IGNORECASE)
TABLE_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*([^|]*?)\s*\|")
FIX = (
    "write each stage as a heading '## <n> <label>', n counting from 0 and the label in "
    "lower-case words joined by '_', e.g. '## 1 treatment_and_response'"
)


@dataclass(frozen=True)
class Stage:
    """One stage heading: its number, label, file and line."""

    number: int
    label: str
    file: str
    line: int


def stage_faults(case: CaseFiles) -> list[tuple[str, Fault]]:
    """Every fault of the stages in the case's environment packet, with its file."""
    stages: list[Stage] = []
    table: list[tuple[int, str, str, int]] = []
    faults: list[tuple[str, Fault]] = []
    for packet_file in case.packets.get("environment", []):
        where = packet_file.path.as_posix()
        text = strip_comments(packet_file.raw)
        in_table = False
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("|") and "label" in stripped.lower():
                in_table = True  # the stages table's header
                continue
            in_table = in_table and stripped.startswith("|")
            if (match := STAGE.match(stripped)) is not None:
                stages.append(Stage(int(match.group(1)), match.group(2), where, number))
            elif LOOKS_LIKE.match(stripped):
                faults.append((where, Fault(number, f'"{stripped}" is not a stage heading', FIX)))
            elif in_table and (row := TABLE_ROW.match(stripped)) is not None:
                table.append((int(row.group(1)), row.group(2), where, number))
    if not stages:
        if not faults and case.packets.get("environment"):
            faults.append(
                (
                    (case.folder / "environment").as_posix(),
                    Fault(0, "no stage: no '## <n> <label>' heading in the environment", FIX),
                )
            )
        return faults
    faults += _order(stages)
    faults += _table(table, stages)
    return faults


def _order(stages: list[Stage]) -> list[tuple[str, Fault]]:
    faults: list[tuple[str, Fault]] = []
    seen: dict[str, Stage] = {}
    for expected, stage in enumerate(stages):
        if stage.number != expected:
            faults.append(
                (
                    stage.file,
                    Fault(
                        stage.line,
                        f"stage {stage.number} ({stage.label}) should be stage {expected}",
                        "number the stages 0, 1, 2 ... in the order they happen",
                    ),
                )
            )
        if stage.label in seen:
            first = seen[stage.label]
            faults.append(
                (
                    stage.file,
                    Fault(
                        stage.line,
                        f"label '{stage.label}' is also stage {first.number}'s",
                        "give each stage its own label",
                    ),
                )
            )
        seen.setdefault(stage.label, stage)
    if stages[0].label != FIRST_STAGE:
        faults.append(
            (
                stages[0].file,
                Fault(
                    stages[0].line,
                    f"the first stage is '{stages[0].label}'",
                    f"label stage 0 {FIRST_STAGE}, as the environment's instructions name it",
                ),
            )
        )
    return faults


def _table(
    rows: list[tuple[int, str, str, int]], stages: list[Stage]
) -> list[tuple[str, Fault]]:
    if not rows:
        return []
    headings = [(s.number, s.label) for s in stages]
    listed = [(n, label) for n, label, _, _ in rows]
    if listed == headings:
        return []
    _, _, where, line = rows[0]
    shown = ", ".join(f"{n} {label}" for n, label in headings)
    return [
        (
            where,
            Fault(
                line,
                "the stages table does not list the stage headings in order "
                f"(the headings: {shown})",
                "make the table's index and label columns match the '## <n> <label>' headings",
            ),
        )
    ]
