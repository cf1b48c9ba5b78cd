"""A case folder as read (:class:`CaseFiles`, its packets' files :class:`PacketFile`), and
what every reader of its files shares: a file's text, and a YAML file's fault as the case's
problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_medsp.cases.layout import CASE_FILE, SCENARIO, CaseFacts, strip_comments
from inspect_medsp.cases.problems import Problem, ProblemKind, shown
from inspect_medsp.cases.yamlfile import Fault
from inspect_medsp.data import Competency, strip_deleted


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


def yaml_fault(case: CaseFiles, path: Path, fault: Fault) -> None:
    """A fault of a YAML file as the case's problem, naming the file and line."""
    kind: ProblemKind = "facts" if path.name == CASE_FILE else "rubric"
    case.problems.append(
        Problem(file=f"{shown(path)}:{fault.line}", kind=kind, message=fault.message, fix=fault.fix)
    )


def yaml_kind(value: object) -> str:
    """What a YAML document reads as, in words."""
    if isinstance(value, str):
        return "one line of text"
    if isinstance(value, list):
        return "a list without competency names"
    return "a single value"
