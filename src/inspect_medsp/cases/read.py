"""Read one case folder in the case format, collecting every problem of its form.

Nothing here raises for a faulty case: each fault becomes a :class:`Problem` with its file and
fix, so ``medsp-cases check`` can list them all and the loader can refuse a case by naming them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from inspect_medsp.cases.layout import (
    CASE_FILE,
    FIELDS,
    MORE_SCENARIOS,
    PACKET_ROLES,
    PACKET_SUFFIXES,
    PACKETS,
    RUBRIC_FILE,
    SCENARIO,
    CaseFacts,
    strip_comments,
)
from inspect_medsp.cases.problems import Problem, ProblemKind, shown
from inspect_medsp.cases.yamlfile import (
    NULL_TAG,
    Fault,
    compose,
    duplicate_keys,
    item_of,
)
from inspect_medsp.data import COMPETENCIES, COMPETENCY_NAMES, Competency, strip_deleted

COMPETENCY_LIST = ", ".join(f"{c} ({COMPETENCY_NAMES[c]})" for c in COMPETENCIES)

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


@dataclass(frozen=True)
class PacketFile:
    """One text file of a packet folder."""

    path: Path
    name: str
    """Its path inside the packet folder, e.g. ``01_door_note.md``."""
    raw: str
    """The file as written (comments included)."""

    @property
    def text(self) -> str:
        """What a role reads: comments and struck-through text removed."""
        return strip_deleted(strip_comments(self.raw)).strip()


@dataclass
class CaseFiles:
    """A case folder as read: what could be read, and the problems of its form."""

    folder: Path
    facts: CaseFacts | None = None
    packets: dict[str, list[PacketFile]] = field(default_factory=dict)
    rubric: dict[Competency, list[str]] | None = None
    problems: list[Problem] = field(default_factory=list)
    texts: dict[Path, str] = field(default_factory=dict)
    scenario: str = SCENARIO
    """Which scenario of the case these packets and rubric make."""
    more: list[CaseFiles] = field(default_factory=list)
    """The case's further scenarios (``scenario2/`` ...), each read the same way; their
    problems and texts are the case's too."""

    @property
    def scenarios(self) -> list[CaseFiles]:
        """Every scenario of the case, the first one first."""
        return [self, *self.more]
    """Every text file of the case that could be read, as written (for the content checks)."""

    def sections(self, packet: str) -> list[tuple[str, str]]:
        """The (name, text) of a packet's non-empty files, in reading order."""
        return [(f.name, f.text) for f in self.packets.get(packet, []) if f.text]

    @property
    def usable(self) -> bool:
        """Whether the case can be run: no problem of its form."""
        return not any(p.stops_a_run for p in self.problems)

    def add(self, path: Path, kind: Any, message: str, fix: str) -> None:
        self.problems.append(Problem(file=shown(path), kind=kind, message=message, fix=fix))


def is_case(folder: Path) -> bool:
    """Whether ``folder`` is meant as a case (has ``case.yaml`` or a packet folder)."""
    return (folder / CASE_FILE).exists() or any((folder / p).is_dir() for p in PACKETS)


def read_text(case: CaseFiles, path: Path) -> str | None:
    """A file's text if it is UTF-8 (its line endings as ``\n``), else None with a
    ``not_utf8`` problem."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        case.add(
            path,
            "not_utf8",
            f"not UTF-8 text (byte 0x{data[err.start]:02x} on line {line})",
            "save the file as UTF-8 (in most editors: Save As, encoding UTF-8)",
        )
        return None
    # Windows (\r\n) and old Mac (\r) line endings are read as \n: no role reads a \r
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    case.texts[path] = text
    return text


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
    _read_rubric(case)
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
    _read_rubric(scenario)
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
        _fault(case, path, fault)
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
        case.add(path, what, problem.format(kind=_kind(data)), fix)
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


def _read_rubric(case: CaseFiles) -> None:
    path = case.folder / RUBRIC_FILE
    if not path.is_file():
        case.add(
            path,
            "no_items",
            "missing: the case has no rubric",
            f"add {RUBRIC_FILE} with items under {', '.join(COMPETENCIES)}",
        )
        return
    text = read_text(case, path)
    if text is None:
        return
    node, faults = compose(text)
    if node is not None:
        faults += duplicate_keys(node)
    for fault in faults:
        _fault(case, path, fault)
    if faults and node is None:
        return
    if node is not None and not isinstance(node, MappingNode):
        kind = _kind(yaml.safe_load(text))
        case.add(
            path,
            "rubric",
            f"is not items under competency names (it reads as {kind})",
            f"write each competency on its own line ({', '.join(COMPETENCIES)}) followed by "
            "its items, one per line starting with '- '",
        )
        return
    lines = text.splitlines()
    rubric: dict[Competency, list[str]] = {c: [] for c in COMPETENCIES}
    first: dict[tuple[str, str], int] = {}
    for key_node, items in node.value if node is not None else []:
        key = str(key_node.value)
        if key not in COMPETENCIES:
            upper = key.strip().upper()
            hint = f" (did you mean {upper}?)" if upper in COMPETENCIES else ""
            case.add(
                path,
                "unknown_competency",
                f"'{key}' is not a competency{hint}",
                f"put its items under one of {COMPETENCY_LIST}",
            )
            continue
        if isinstance(items, ScalarNode) and items.tag == NULL_TAG:
            continue
        if not isinstance(items, SequenceNode):
            _fault(
                case,
                path,
                Fault(
                    items.start_mark.line + 1,
                    f"'{key}' must be a list of items, each a line of text starting with '- '",
                    f"write the items under {key}: one per line as '- <what the clinician "
                    "does>'",
                ),
            )
            continue
        for child in items.value:
            item = item_of(child, lines)
            if isinstance(item, Fault):
                _fault(case, path, item)
                continue
            same = (key, " ".join(item.text.split()).casefold())
            if same in first:
                _fault(
                    case,
                    path,
                    Fault(
                        item.line,
                        f"{key} item repeats line {first[same]} word for word: the grader "
                        "gives one verdict per item, so the copy is never judged",
                        "delete one of the two",
                    ),
                )
                continue
            first[same] = item.line
            rubric[key].append(item.text)
    total = sum(len(v) for v in rubric.values())
    if total == 0 and not any(p.file.startswith(shown(path)) for p in case.problems):
        case.add(
            path,
            "no_items",
            "the rubric has no items",
            "write the observable actions that earn credit, one '- ' line each, under "
            f"{', '.join(COMPETENCIES)}",
        )
    case.rubric = rubric


def _fault(case: CaseFiles, path: Path, fault: Fault) -> None:
    """A fault of a YAML file as the case's problem, naming the file and line."""
    kind: ProblemKind = "facts" if path.name == CASE_FILE else "rubric"
    case.problems.append(
        Problem(file=f"{shown(path)}:{fault.line}", kind=kind, message=fault.message, fix=fault.fix)
    )


def _kind(value: object) -> str:
    """What a YAML document reads as, in words."""
    if isinstance(value, str):
        return "one line of text"
    if isinstance(value, list):
        return "a list without competency names"
    return "a single value"
