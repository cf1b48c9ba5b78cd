"""What a report section is: the core's build loop knows sections only through this.

A section says whether it has something to show (:attr:`Section.shows`), writes its text
with the captions of its figures (:attr:`Section.text`) and names the files it writes, each
with how it draws it (:attr:`Section.files`). ``report.md`` is the sections' text in the
order they are given; the "Files" list names every file in the order of :data:`LISTED` and
each file's :attr:`ReportFile.rank`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.record.read import ParsedLog
from inspect_medsp.report.findings import Analysis

FileKind = Literal["chart", "paper", "table", "own"]
"""A PNG chart, a document for a write-up, a CSV table, or a file its section names itself
(not in the Files list)."""

WRITTEN: tuple[FileKind, ...] = ("chart", "table", "paper", "own")
"""The order files are written in, by kind (then by rank)."""

LISTED: tuple[FileKind, ...] = ("chart", "paper", "table")
"""The order the Files list names them in, by kind (then by rank)."""


class ReportFile(BaseModel):
    """One file of the report folder and how to write it."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: FileKind
    write: Callable[[Path], object]
    """Writes the file at the path given (the folder joined with :attr:`name`)."""
    rank: int = 1000
    """Its place among the files of its kind (the core's are 10, 20, ...; a new file goes
    last unless it says otherwise)."""
    line: str | None = None
    """Its entry in the Files list (default ``- [name](name)``; empty: named with another)."""
    empty: bool = False
    """A table with its header only (the Files list says so)."""

    def listing(self) -> str | None:
        """The Files list's line for this file (None when another line names it)."""
        if self.line is not None:
            return self.line or None
        note = " (header only: nothing of this kind in these runs)" if self.empty else ""
        return f"- [{self.name}]({self.name}){note}"


class Page(BaseModel):
    """What a section writes its text from."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    analysis: Analysis
    charts: bool = True
    """Whether the charts are drawn (and may be shown)."""
    files: list[ReportFile] = Field(default_factory=list)
    """Every file of the report, of every section."""


def _always(analysis: Analysis) -> bool:
    return True


def _no_files(analysis: Analysis) -> list[ReportFile]:
    return []


class Section(BaseModel):
    """One part of the report."""

    model_config = ConfigDict(frozen=True)

    name: str
    text: Callable[[Page], list[str]]
    """Its Markdown lines (its heading, tables and the captions of its figures)."""
    shows: Callable[[Analysis], bool] = _always
    """Whether it has something to show (no text otherwise; its files are still named)."""
    files: Callable[[Analysis], list[ReportFile]] = _no_files
    """The files it writes for this analysis (only those it has data for)."""
    digest: Callable[[ParsedLog], object] | None = None
    """What it makes of each log while the log is parsed, from what the report's read then
    drops (``report.collect.Digest``; found in ``MedspRun.digests`` under its name)."""


def digests(sections: Sequence[Section]) -> dict[str, Callable[[ParsedLog], object]]:
    """What the sections make of each log as it is read, by section name."""
    return {s.name: s.digest for s in sections if s.digest is not None}


def report_files(analysis: Analysis, sections: Sequence[Section]) -> list[ReportFile]:
    """Every file of every section, in the order they are written."""
    found = [f for s in sections for f in s.files(analysis)]
    return sorted(found, key=lambda f: (WRITTEN.index(f.kind), f.rank))


def listed(files: Sequence[ReportFile], charts: bool = True) -> list[str]:
    """The Files list's lines (the charts only when drawn)."""
    shown = [f for f in files if f.kind in LISTED and (charts or f.kind != "chart")]
    ordered = sorted(shown, key=lambda f: (LISTED.index(f.kind), f.rank))
    return [line for f in ordered if (line := f.listing()) is not None]


def render_markdown(
    analysis: Analysis,
    sections: Sequence[Section],
    charts: bool = True,
    files: Sequence[ReportFile] | None = None,
) -> str:
    """The whole report: every section's text in order (``files``: the sections' files, when
    already gathered)."""
    found = report_files(analysis, sections) if files is None else list(files)
    page = Page(analysis=analysis, charts=charts, files=found)
    lines = [line for s in sections if s.shows(analysis) for line in s.text(page)]
    return "\n".join(lines) + "\n"
