"""Read one case folder in the case format, collecting every problem of its form.

Nothing here raises for a faulty case: each fault becomes a :class:`Problem` with its file and
fix, so ``medsp-cases check`` can list them all and the loader can refuse a case by naming them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from inspect_medsp.cases.casefiles import CaseFiles, PacketFile, read_text, yaml_fault, yaml_kind
from inspect_medsp.cases.layout import (
    CASE_FILE,
    FIELDS,
    MORE_SCENARIOS,
    PACKET_ROLES,
    PACKET_SUFFIXES,
    PACKETS,
    RUBRIC_FILE,
    CaseFacts,
)
from inspect_medsp.cases.problems import shown
from inspect_medsp.cases.rubricfile import read_rubric
from inspect_medsp.cases.yamlfile import (
    compose,
    duplicate_keys,
)

FIELD_FIX: dict[str, str] = {
    "id": "give a short id of letters, digits, '_', '-' or '.', e.g. id: chest_pain_01",
    "title": "give the case a title, e.g. title: Chest pain in a 58-year-old man",
    "specialty": "name the specialty, e.g. specialty: Emergency medicine",
    "patient": "give the patient's age and sex under patient:, e.g. age: 58 and sex: male",
    "setting": "say where the encounter happens, e.g. setting: Emergency department",
    "language": "name the language the case is written in, e.g. language: en",
    "status": "write status: draft until a clinician has reviewed the case, then "
    "status: reviewed",
    "source": "say where the case comes from in one line of text, or delete the line",
    "names": "list the names the case invents, e.g. names: [Margaret Hale, Daniel Osei]",
}
"""How to fix each field of ``case.yaml``."""


def is_case(folder: Path) -> bool:
    """Whether ``folder`` is meant as a case (has ``case.yaml`` or a packet folder)."""
    return (folder / CASE_FILE).exists() or any((folder / p).is_dir() for p in PACKETS)


def read_case(folder: Path) -> CaseFiles:
    """Read a case folder: facts, the four packets and the rubric, with every problem."""
    case = CaseFiles(folder=folder)
    _read_facts(case)
    known = {CASE_FILE, RUBRIC_FILE, *PACKETS}
    for path in sorted(folder.iterdir(), key=_scenario_order):
        if path.is_dir() and MORE_SCENARIOS.match(path.name):
            case.more.append(_read_scenario(case, path))
        elif path.name not in known and not path.name.startswith("."):
            case.add(
                path,
                "stray_file",
                "not read by any role: a case holds case.yaml, rubric.yaml and the packet "
                f"folders {', '.join(PACKETS)}",
                "move it into a packet folder as a .md file if a role should read it, or out "
                "of the case",
            )
    for packet in PACKETS:
        _read_packet(case, packet)
    read_rubric(case)
    return case


def _scenario_order(path: Path) -> tuple[int, str]:
    match = MORE_SCENARIOS.match(path.name)
    return (int(match.group(1)) if match else 0, path.name)


def _read_scenario(case: CaseFiles, folder: Path) -> CaseFiles:
    """A further scenario of ``case``: its packets and rubric, its problems and texts added
    to the case's."""
    scenario = CaseFiles(folder=folder, facts=case.facts, scenario=folder.name)
    for packet in PACKETS:
        _read_packet(scenario, packet)
    read_rubric(scenario)
    known = {RUBRIC_FILE, *PACKETS}
    for path in sorted(folder.iterdir()):
        if path.name not in known and not path.name.startswith("."):
            scenario.add(
                path,
                "stray_file",
                "not read by any role: a scenario folder holds rubric.yaml and the packet "
                f"folders {', '.join(PACKETS)}",
                "move it into a packet folder as a .md file if a role should read it, or out "
                "of the case",
            )
    case.problems.extend(scenario.problems)
    case.texts.update(scenario.texts)
    return scenario


def _yaml(case: CaseFiles, path: Path, what: str) -> tuple[bool, Any]:
    """Whether ``path`` reads as YAML, and its document (None for an empty file); a file that
    is not UTF-8 or not YAML is a problem."""
    text = read_text(case, path)
    if text is None:
        return False, None
    node, faults = compose(text)
    if node is not None:
        faults += duplicate_keys(node)
    for fault in faults:
        yaml_fault(case, path, fault)
    if faults:
        return False, None
    try:
        return True, yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = " ".join(str(getattr(err, "problem", None) or "not readable").split())
        case.add(
            path,
            "rubric" if what == "rubric" else "facts",
            f"not valid YAML{where} ({problem})",
            f"correct the {what} file's layout (indentation, a ':' after each name, '- ' "
            "before each item), or start again from medsp-cases new",
        )
        return False, None


def _mapping(
    case: CaseFiles,
    path: Path,
    what: str,
    missing: tuple[str, str, str],
    not_mapping: tuple[str, str],
) -> dict[Any, Any] | None:
    """The YAML mapping a case file holds (an empty file is an empty one), or None after
    adding the problem: the file is missing (``missing``: kind, problem, fix), not UTF-8 or
    YAML, or not a mapping (``not_mapping``: problem, fix; ``{kind}`` in the problem names
    what it reads as)."""
    if not path.is_file():
        case.add(path, *missing)
        return None
    readable, data = _yaml(case, path, what)
    if not readable:
        return None
    data = {} if data is None else data
    if not isinstance(data, dict):
        problem, fix = not_mapping
        case.add(path, what, problem.format(kind=yaml_kind(data)), fix)
        return None
    return data


def _read_facts(case: CaseFiles) -> None:
    path = case.folder / CASE_FILE
    data = _mapping(
        case,
        path,
        "facts",
        (
            "not_a_case",
            "missing: every case folder needs its facts file",
            f"add {CASE_FILE} (medsp-cases new writes one to copy from)",
        ),
        (
            "is not a list of fields (id: ..., title: ...)",
            f"write one field per line: {', '.join(FIELDS[:-1])}",
        ),
    )
    if data is None:
        return
    try:
        case.facts = CaseFacts.model_validate(data)
    except ValidationError as err:
        for error in err.errors():
            loc = [str(part) for part in error["loc"]]
            name = loc[0] if loc else "file"
            where = ".".join(loc)
            if error["type"] == "missing":
                message = f"field '{where}' is missing"
            elif error["type"] == "extra_forbidden":
                message = f"field '{where}' is not a field of a case"
            elif error["type"] == "string_pattern_mismatch" and name == "id":
                value = " ".join(repr(error.get("input")).split())[:60]
                message = f"field 'id' = {value}: not an id (no spaces or other signs)"
            else:
                value = " ".join(repr(error.get("input")).split())[:60]
                said = str(error["msg"])
                message = f"field '{where}' = {value}: {said[:1].lower()}{said[1:]}"
            fix = FIELD_FIX.get(
                name, f"delete it or correct its spelling (the fields: {', '.join(FIELDS)})"
            )
            case.add(path, "facts", message, fix)


def _read_packet(case: CaseFiles, packet: str) -> None:
    folder = case.folder / packet
    if not folder.is_dir():
        case.add(
            folder,
            "missing_packet",
            f"packet folder missing ({PACKET_ROLES[packet]})",
            f"create {packet}/ with at least one .md file",
        )
        return
    files: list[PacketFile] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.suffix.lower() not in PACKET_SUFFIXES:
            case.add(
                path,
                "stray_file",
                f"not read by any role: only {' and '.join(PACKET_SUFFIXES)} files are packet "
                "text",
                "save it as a .md file if a role should read it, or move it out of the case",
            )
            continue
        text = read_text(case, path)
        if text is not None:
            files.append(PacketFile(path=path, name=relative.as_posix(), raw=text))
    case.packets[packet] = files
    if not any(f.text for f in files) and not any(
        p.kind == "not_utf8" and p.file.startswith(shown(folder)) for p in case.problems
    ):
        case.add(
            folder,
            "empty_packet",
            f"packet is empty ({PACKET_ROLES[packet]}): no .md file with text outside comments",
            f"write {PACKET_ROLES[packet]} in a .md file in {packet}/",
        )


