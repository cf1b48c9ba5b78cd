"""Read logs, analyse them and write the report folder: the build loop over the sections it
is given (it names none itself)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from inspect_medsp.report.collect import collect
from inspect_medsp.report.findings import Analysis, analyse
from inspect_medsp.report.page import render_html
from inspect_medsp.report.problem import Problem
from inspect_medsp.report.section import Section, digests, render_markdown, report_files

FORMATS = ("md", "html")
INSTALL_HINT = "matplotlib is needed for the charts: pip install 'inspect-medsp[report]'"


class ReportResult(BaseModel):
    """What a report run read, skipped and wrote."""

    analysis: Analysis | None = None
    problems: list[Problem] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)

    @property
    def reported(self) -> bool:
        return self.analysis is not None


def write_report(
    inputs: Iterable[str | Path],
    out: str | Path,
    sections: Sequence[Section],
    formats: Sequence[str] = ("md",),
) -> ReportResult:
    """Write the report of ``sections`` for every MedSP log under ``inputs`` into ``out``:
    each section's files, then ``report.md`` (and ``report.html``).

    Inputs that are not MedSP logs (or not logs at all) are listed in ``problems`` and in the
    report; nothing is written when no input could be read.

    Raises:
        ValueError: An unknown format.
        ImportError: matplotlib is not installed (the ``report`` extra).
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"unknown format {', '.join(unknown)}: use md and/or html")
    try:
        import inspect_medsp.report.charts  # noqa: F401  (the charts' style needs matplotlib)
    except ImportError as err:
        raise ImportError(INSTALL_HINT) from err

    runs, problems = collect(inputs, digests(sections))
    result = ReportResult(problems=problems)
    if not runs:
        return result
    analysis = analyse(runs, problems)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    files = report_files(analysis, sections)
    written: list[Path] = []
    for file in files:
        path = folder / file.name
        file.write(path)
        written.append(path)
    markdown = render_markdown(analysis, sections, files=files)
    md_path = folder / "report.md"
    md_path.write_text(markdown, encoding="utf-8")
    written.append(md_path)
    if "html" in formats:
        html_path = folder / "report.html"
        html_path.write_text(render_html(markdown), encoding="utf-8")
        written.append(html_path)
    result.analysis = analysis
    result.files = [str(p) for p in written]
    return result
