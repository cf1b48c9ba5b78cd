"""What a report section is: the core's build loop knows sections only through this.

A section says whether it has something to show (:attr:`Section.shows`), writes its text
with the captions of its figures (:attr:`Section.text`) and names the files it writes, each
with how it draws it (:attr:`Section.files`). ``report.md`` is the sections' text in the
order they are given; the last of the core's sections, the Files list (:data:`FILES`), names
every file in the order of :data:`~inspect_medsp.report.files.LISTED` and each file's
:attr:`~inspect_medsp.report.files.ReportFile.rank`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.record import ParsedLog
from inspect_medsp.report.analysis import Analysis
from inspect_medsp.report.files import LISTED, WRITTEN, ReportFile
from inspect_medsp.report.problem import Problem
from inspect_medsp.report.text import esc


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


def _reads_nothing(path: str) -> bool:
    return False


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
    drops (``report.runs.Digest``; found in ``MedspRun.digests`` under its name)."""
    reads: Callable[[str], bool] = _reads_nothing
    """Whether it reads the log at this path, one that is not a MedSP run (a log of a task
    of its own): the report lists it as read by this section (``Analysis.read_by``), not
    among the inputs it could not report."""


def digests(sections: Sequence[Section]) -> dict[str, Callable[[ParsedLog], object]]:
    """What the sections make of each log as it is read, by section name."""
    return {s.name: s.digest for s in sections if s.digest is not None}


def read_by(problems: Sequence[Problem], sections: Sequence[Section]) -> dict[str, str]:
    """The inputs of ``problems`` a section reads (path: the first such section's name)."""
    found: dict[str, str] = {}
    for problem in problems:
        reader = next((s.name for s in sections if s.reads(problem.path)), None)
        if reader is not None:
            found[problem.path] = reader
    return found


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


def files_and_runs(page: Page) -> list[str]:
    """The Files list (every section's files) and the runs read."""
    analysis = page.analysis
    out = ["## Files", "", *listed(page.files, page.charts)]
    out += ["", "Runs read:", ""]
    labels = {h.path: h.label for h in analysis.health}
    out += [
        f"- {esc(labels.get(r.path) or r.label)}: {esc(r.task)}, created {r.created}, "
        f"log `{r.name}`"
        for r in analysis.runs
    ]
    out += [
        f"- log `{esc(Path(path).name)}`: read by the {esc(section)} section"
        for path, section in analysis.read_by.items()
    ]
    return out


FILES = Section(name="files", text=files_and_runs)
