"""Read scenario folders in the Hub layout into typed :class:`Scenario` records.

Layout: ``<root>/<case_id>/<scenarioN>/<role>/*`` with the four role folders of
:data:`ROLES`. Case metadata comes from ``phase1_scenarios_meta.json`` in the case folder
(what the reference pipeline writes: title, department, urgency, patient facts per scenario)
and from optional ``metadata.json`` files in the case folder and beside the role folders
(which win, in that order).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.data.models import ROLES, Packets, Scenario
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.templates import render

TEXT_SUFFIXES = frozenset(
    {".md", ".markdown", ".txt", ".json", ".yaml", ".yml", ".csv", ".html", ".xml"}
)
"""File endings that count as a packet's text."""

METADATA_FILE = "metadata.json"
CASE_META_FILE = "phase1_scenarios_meta.json"
CASE_META_FIELDS: tuple[str, ...] = (
    "scenario_title",
    "department",
    "urgency_level",
    "patient_gender",
    "patient_age",
    "patient_race",
    "patient_nationality",
    "injury_body_part",
)
"""Fields of ``phase1_scenarios_meta.json`` carried into sample metadata (non-empty only)."""
SCENARIO_DIR = re.compile(r"^scenario\d+$")
_STRIKE = re.compile(r"~~.*?~~", re.DOTALL)
_MARKUP = re.compile(r"[#*_`~\\[\]<>|]+")
_NUMBERED = re.compile(r"^\d+[_\-. ]*")
_DOI_NUMBER = re.compile(
    r"^(?:mededportal_(?P<a>\d+)|mep_2374-8265\.(?P<b>\d+)(?:-.*)?|mep-\d+-(?P<c>\d+)(?:-.*)?)$"
)


class PacketError(MedSPDataError):
    """A role folder is missing or holds no text."""


def strip_deleted(text: str) -> str:
    """Remove markdown strike-through spans (``~~...~~``): authors' deleted material."""
    return _STRIKE.sub("", text)


def mededportal_doi(case_id: str) -> str | None:
    """The MedEdPORTAL article link for a case id, when the id carries the article number."""
    match = _DOI_NUMBER.match(case_id)
    if match is None:
        return None
    number = match.group("a") or match.group("b") or match.group("c")
    return f"https://www.mededportal.org/doi/10.15766/mep_2374-8265.{number}"


def _is_hidden(path: Path, base: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(base).parts)


def read_packet(folder: Path) -> str:
    """Join a role folder's text files, sorted by path, each under a heading with its name.

    Args:
        folder: The role folder, e.g. ``.../scenario1/sp_actor``.

    Returns:
        The packet text with strike-through removed.

    Raises:
        PacketError: The folder is missing or holds no text file.
    """
    return join_packet(_packet_files(folder))


def join_packet(sections: list[tuple[str, str]]) -> str:
    """A packet from its files' (relative name, text), each under a heading with its name."""
    return "\n\n".join(f"## {name}\n\n{body}" for name, body in sections)


def _packet_files(folder: Path) -> list[tuple[str, str]]:
    """The (relative name, text) of a role folder's non-empty text files, sorted by path."""
    if not folder.is_dir():
        raise PacketError(
            f"{folder}: role folder missing; every scenario needs "
            f"{', '.join(r + '/' for r in ROLES)} (re-download byrLLCC/MedSP1000 or fix data_dir)"
        )
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES and not _is_hidden(p, folder)
    )
    sections: list[tuple[str, str]] = []
    for path in files:
        body = strip_deleted(path.read_text(encoding="utf-8", errors="replace")).strip()
        if body:
            sections.append((path.relative_to(folder).as_posix(), body))
    if not sections:
        raise PacketError(
            f"{folder}: role folder has no text (expected files ending in "
            f"{', '.join(sorted(TEXT_SUFFIXES))}); restore it from byrLLCC/MedSP1000"
        )
    return sections


def _title(name: str, body: str) -> str:
    """A file's title: its first markdown heading, else its name in words."""
    for line in body.splitlines():
        if line.startswith("#"):
            title = " ".join(_MARKUP.sub(" ", line).split())
            if title:
                return title
    stem = PurePosixPath(name).stem
    return " ".join(_MARKUP.sub(" ", _NUMBERED.sub("", stem)).split()) or stem


def examinee_packet(folder: Path) -> str:
    """The clinician's packet: a plain-text lead naming its parts, then :func:`read_packet`.

    The lead is one sentence without markdown, so the sample's input reads as text where
    Inspect's viewer previews it; the files follow unchanged.

    Raises:
        PacketError: The folder is missing or holds no text file.
    """
    return examinee_text(_packet_files(folder))


def examinee_text(sections: list[tuple[str, str]]) -> str:
    """The clinician's packet from its files' (relative name, text): the lead, then the files."""
    titles = [_title(name, body) for name, body in sections]
    lead = render(
        "examinee_lead",
        package="inspect_medsp.data",
        count="one file" if len(titles) == 1 else f"{len(titles)} files",
        titles="; ".join(titles),
    )
    return f"{lead}\n\n{join_packet(sections)}"


_FILE_HEADING = re.compile(
    rf"^## \S.*({'|'.join(re.escape(x) for x in sorted(TEXT_SUFFIXES))})$", re.IGNORECASE
)
"""The heading :func:`join_packet` puts above each file: its name, not its content."""
_HEADING = re.compile(r"^#+\s+")
_BULLET = re.compile(r"^[-*+]\s+")
"""An unordered list item's mark; a numbered item keeps its number."""
_EMPHASIS = re.compile(r"\*\*|__|`")
_RULE = re.compile(r"^\|?[\s:|-]*-[\s:|-]*$")
"""A table's rule under its header (``|---|---|``), or a horizontal rule (``---``)."""


def preview(packet: str) -> str:
    """The clinician's packet as one paragraph of plain text, for the sample's input.

    Inspect's samples list shows the first few lines of an input with its blocks run
    together; without the lead, the file names, the markdown marks and the line breaks, the
    door note reads as sentences there. A table's rows become ``cell cell;`` (its header row,
    which only names the columns, is left out). The clinician is sent the packet itself.
    """
    lines = packet.splitlines()
    # the lead (:func:`examinee_text`) comes before the first file's heading
    first = next((i for i, line in enumerate(lines) if _FILE_HEADING.match(line)), 0)
    lines = lines[first:]
    parts: list[str] = []
    for i, line in enumerate(lines):
        line = line.strip()
        if not line or _FILE_HEADING.match(line) or _RULE.match(line):
            continue
        if line.startswith("|"):
            # a table row as its cells; the header row (above the rule) names columns only
            if i + 1 < len(lines) and _RULE.match(lines[i + 1].strip()):
                continue
            line = " ".join(c.strip() for c in line.strip("|").split("|") if c.strip()) + ";"
        heading = bool(_HEADING.match(line))
        line = _EMPHASIS.sub("", _BULLET.sub("• ", _HEADING.sub("", line))).strip()
        if heading and line and line[-1] not in ".:;?!":
            line += "."
        if line:
            parts.append(line)
    return " ".join(parts)


def read_metadata(scenario_dir: Path) -> dict[str, str]:
    """Collect string metadata from ``metadata.json`` in the case folder, then the scenario folder.

    Raises:
        MedSPDataError: A metadata file is not a JSON object.
    """
    merged: dict[str, str] = {}
    for path in (scenario_dir.parent / METADATA_FILE, scenario_dir / METADATA_FILE):
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise MedSPDataError(f"{path}: not valid JSON ({err.msg}); fix or delete it") from err
        if not isinstance(data, dict):
            raise MedSPDataError(f"{path}: expected a JSON object of metadata; fix or delete it")
        merged.update({str(k): str(v) for k, v in data.items() if v is not None})
    return merged


class CaseMeta(BaseModel):
    """What a case folder's ``phase1_scenarios_meta.json`` says, scenario by scenario."""

    model_config = ConfigDict(frozen=True)

    by_scenario: dict[str, dict[str, str]] = Field(default_factory=dict)
    problem: str | None = None
    """One line naming the file and its fault, when the file is present but unusable."""


def _scenario_key(raw: object) -> str | None:
    """``scenario3`` for ``"scenario3"``, ``"3"`` or ``3``; None for anything else."""
    text = str(raw).strip() if isinstance(raw, str | int) else ""
    if text.isdigit():
        return f"scenario{int(text)}"
    return text if SCENARIO_DIR.match(text) else None


def read_case_meta(case_dir: Path) -> CaseMeta:
    """Read ``<case_dir>/phase1_scenarios_meta.json`` (absent: empty; malformed: a problem).

    The file is ``{"scenarios": [{"scenario_id": "scenario1" or "1", "department": ...}]}``;
    values are free text and empty ones are left out. A malformed file never stops a load:
    its fault comes back in ``problem`` and the scenarios load without it.
    """
    path = case_dir / CASE_META_FILE
    if not path.is_file():
        return CaseMeta()
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as err:
        return CaseMeta(problem=f"{path}: not valid JSON ({err.msg}); case metadata ignored")
    entries = data.get("scenarios") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return CaseMeta(
            problem=f"{path}: expected {{\"scenarios\": [...]}}; case metadata ignored"
        )
    found: dict[str, dict[str, str]] = {}
    for entry in entries:
        key = _scenario_key(entry.get("scenario_id")) if isinstance(entry, dict) else None
        if key is None or not isinstance(entry, dict):
            return CaseMeta(
                problem=f"{path}: an entry has no usable scenario_id (scenario1 or 1); "
                "case metadata ignored"
            )
        found[key] = {
            name: " ".join(str(entry[name]).split())
            for name in CASE_META_FIELDS
            if entry.get(name) is not None and str(entry[name]).strip()
        }
    return CaseMeta(by_scenario=found)


def load_scenario(root: Path, scenario_id: str, case_meta: CaseMeta | None = None) -> Scenario:
    """Load one scenario ``<case_id>/<scenarioN>`` from a tree in the Hub layout.

    Args:
        root: Top of the tree.
        scenario_id: ``<case_id>/<scenarioN>``.
        case_meta: The case's ``phase1_scenarios_meta.json`` if already read (read when None).

    Raises:
        PacketError: A role folder is missing or empty.
    """
    case_id, scenario = scenario_id.split("/", 1)
    scenario_dir = root / case_id / scenario
    packets = Packets(
        **{
            role: examinee_packet(scenario_dir / role)
            if role == "examinee"
            else read_packet(scenario_dir / role)
            for role in ROLES
        }
    )
    if case_meta is None:
        case_meta = read_case_meta(root / case_id)
    metadata = {**case_meta.by_scenario.get(scenario, {}), **read_metadata(scenario_dir)}
    doi = mededportal_doi(case_id)
    if doi is not None:
        metadata.setdefault("source_url", doi)
    return Scenario(case_id=case_id, scenario=scenario, packets=packets, metadata=metadata)


def discover_scenario_ids(root: Path) -> list[str]:
    """Every ``<case_id>/<scenarioN>`` folder under ``root``, sorted.

    Raises:
        MedSPDataError: ``root`` holds no scenario folder at all.
    """
    ids = sorted(_walk(root))
    if not ids:
        raise MedSPDataError(
            f"{root}: no <case_id>/<scenarioN>/ folders found; data_dir must point at the "
            "top of the byrLLCC/MedSP1000 tree"
        )
    return ids


def _walk(root: Path) -> Iterator[str]:
    for case_dir in root.iterdir():
        if not case_dir.is_dir() or case_dir.name.startswith("."):
            continue
        for scenario_dir in case_dir.iterdir():
            if scenario_dir.is_dir() and SCENARIO_DIR.match(scenario_dir.name):
                yield f"{case_dir.name}/{scenario_dir.name}"
