"""The stages of a case, as ``check`` verifies them in the environment's packet.

Each stage is a level-2 heading ``## <n> <label>``: ``n`` counts from 0 with no gap, the
label is lower-case words joined by ``_``, different for every stage, and stage 0 is
``initial_assessment``; a note in brackets may follow (``## 0 initial_assessment (09:05,
arrival)``). A stages table (``| index | label | ... |``), when the packet has one, names the
same stages in the same order. Any other heading starting with a number or with "stage" is
taken for a stage written another way.

Cases written before this syntax was checked (up to commit 357ca76 any heading was taken)
often wrote ``## State 1 of 3 - initial_assessment (09:05, arrival)``, ``## Stage 2:
treatment_and_response`` or ``## 1. initial_assessment``, counting from 0 or from 1. Such a
heading is still read, as the stage it names (counted from 1 when the first one is 1), with
a note saying ``medsp-cases upgrade DIR`` rewrites it (:func:`legacy_headings`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspect_medsp.cases.casefiles import CaseFiles
from inspect_medsp.cases.layout import blank_comments
from inspect_medsp.cases.yamlfile import Fault

FIRST_STAGE = "initial_assessment"
"""The label of stage 0, as the environment's instructions name it."""

STAGE = re.compile(r"^##\s+(\d+)\s+([a-z][a-z0-9]*(?:_[a-z0-9]+)*)(\s+\([^()]*\))?\s*$")
LEGACY = re.compile(
    r"^##\s+(?:(?:state|stage|phase|step)\s+)?(\d+)(?:\s+of\s+\d+)?\s*[-:.)\u2013\u2014]?\s*"
    r"([A-Za-z][A-Za-z0-9 _'-]*?)\s*(\([^()]*\))?\s*$",
    re.IGNORECASE,
)
"""A stage heading as cases wrote it before the syntax was checked."""
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
    legacy: str = ""
    """The heading as written, when it is in an earlier form; empty in the current one."""
    note: str = ""
    """The bracketed note after the label, with its brackets."""


@dataclass(frozen=True)
class TableRow:
    """One row of a stages table: its index, label, file, line and text."""

    number: int
    label: str
    file: str
    line: int
    text: str


@dataclass(frozen=True)
class Rewrite:
    """One line of an environment packet in an earlier form, and the line it becomes."""

    file: str
    line: int
    old: str
    new: str


def _label(words: str) -> str | None:
    """The label an earlier heading's words make ("Treatment and response" ->
    ``treatment_and_response``), or None when they make none."""
    label = re.sub(r"[\s'-]+", "_", words.strip().lower()).strip("_")
    return label if re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*", label) else None


def _legacy_stage(stripped: str, where: str, number: int) -> Stage | None:
    match = LEGACY.match(stripped)
    if match is None or (label := _label(match.group(2))) is None:
        return None
    return Stage(int(match.group(1)), label, where, number, stripped, match.group(3) or "")


def _read(case: CaseFiles) -> tuple[list[Stage], list[TableRow], list[tuple[str, Fault]], bool]:
    """The stage headings, the stages table's rows, the headings that are neither, and
    whether earlier headings counted from 1 (then both are counted from 0 here)."""
    stages: list[Stage] = []
    table: list[TableRow] = []
    faults: list[tuple[str, Fault]] = []
    for packet_file in case.packets.get("environment", []):
        where = packet_file.path.as_posix()
        text = blank_comments(packet_file.raw)
        in_table = False
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("|") and "label" in stripped.lower():
                in_table = True  # the stages table's header
                continue
            in_table = in_table and stripped.startswith("|")
            if (match := STAGE.match(stripped)) is not None:
                note = (match.group(3) or "").strip()
                stages.append(Stage(int(match.group(1)), match.group(2), where, number, note=note))
            elif LOOKS_LIKE.match(stripped):
                if (stage := _legacy_stage(stripped, where, number)) is not None:
                    stages.append(stage)
                else:
                    faults.append(
                        (where, Fault(number, f'"{stripped}" is not a stage heading', FIX))
                    )
            elif in_table and (row := TABLE_ROW.match(stripped)) is not None:
                table.append(TableRow(int(row.group(1)), row.group(2), where, number, line))
    shifted = bool(stages) and stages[0].legacy != "" and stages[0].number == 1
    if shifted:  # counted from 1, as earlier cases often did: stages and table shift down
        stages = [
            Stage(s.number - 1, s.label, s.file, s.line, s.legacy or _written(s), s.note)
            for s in stages
        ]
        if table and table[0].number == 1:
            table = [TableRow(r.number - 1, r.label, r.file, r.line, r.text) for r in table]
    return stages, table, faults, shifted


def _written(stage: Stage) -> str:
    return f"## {stage.number} {stage.label}" + (f" {stage.note}" if stage.note else "")


def legacy_headings(case: CaseFiles) -> list[Rewrite]:
    """Every stage heading (and, when they counted from 1, every stages-table index) of the
    case in an earlier form, and what ``medsp-cases upgrade`` writes instead: ``## <n>
    <label>``, the bracketed note kept."""
    stages, table, _, shifted = _read(case)
    rewrites = [Rewrite(s.file, s.line, s.legacy, _written(s)) for s in stages if s.legacy]
    if rewrites and shifted:
        for row in table:
            new = re.sub(r"^(\s*\|\s*)\d+", rf"\g<1>{row.number}", row.text)
            rewrites.append(Rewrite(row.file, row.line, row.text, new))
    return sorted((r for r in rewrites if r.old != r.new), key=lambda r: (r.file, r.line))


def stage_faults(case: CaseFiles) -> list[tuple[str, Fault]]:
    """Every fault of the stages in the case's environment packet, with its file (a heading
    in an earlier form is read as the stage it names: :func:`legacy_headings`)."""
    stages, table, faults, _ = _read(case)
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


def _table(rows: list[TableRow], stages: list[Stage]) -> list[tuple[str, Fault]]:
    if not rows:
        return []
    headings = [(s.number, s.label) for s in stages]
    listed = [(r.number, r.label) for r in rows]
    if listed == headings:
        return []
    where, line = rows[0].file, rows[0].line
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
