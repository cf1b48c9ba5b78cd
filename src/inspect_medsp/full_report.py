"""The report as it ships: every section, the core's and each slice's, in the order
``report.md`` shows them. This is the one place sections are registered; a new section is
one more entry here (see "Add a figure to the report" in docs/architecture.md), and a
registered capability's sections (``measures.capabilities()``) follow the core's."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from inspect_medsp import report as core
from inspect_medsp.comparisons import DIFFERENCES, SPREAD, VARIANTS
from inspect_medsp.estimate import BILL
from inspect_medsp.measure import ReportSection
from inspect_medsp.measures import capabilities
from inspect_medsp.report import (
    CASE_METADATA,
    FILES,
    GAPS,
    HEAD,
    HEALTH,
    INPUT_LENGTH,
    LEADERBOARD,
    PROFILE,
    SHARED_SCENARIOS,
    SPECIALTIES,
    STRATEGY,
    Analysis,
    Page,
    ReportResult,
    Section,
    esc,
)

CORE: tuple[Section, ...] = (
    HEAD,
    LEADERBOARD,
    SHARED_SCENARIOS,
    DIFFERENCES,
    VARIANTS,
    SPREAD,
    PROFILE,
    GAPS,
    SPECIALTIES,
    INPUT_LENGTH,
    STRATEGY,
    CASE_METADATA,
    HEALTH,
    FILES,
    BILL,
)
"""The sections of the core and the comparisons, in order."""


def registered_sections() -> tuple[Section, ...]:
    """Every section of ``medsp-report``, in order: the core's (the leaderboard with the
    capabilities' marks), then each registered capability's (as the registry lists them
    now)."""
    registered = capabilities()
    measured = [_section(c.name, s) for c in registered for s in c.sections]
    markers = [c.leaderboard_marks for c in registered if c.leaderboard_marks is not None]
    core = tuple(marked(s, markers) if s is LEADERBOARD else s for s in CORE)
    return (*core, *measured)


def _section(capability: str, section: ReportSection) -> Section:
    """A capability's section as the report builds it: a ``report.Section``, or the error
    naming the capability (never dropped in silence)."""
    if not isinstance(section, Section):
        raise TypeError(
            f"capability {capability}: its section {section.name!r} is a "
            f"{type(section).__name__}, not a report.Section"
        )
    return section


def marked(
    leaderboard: Section, markers: Sequence[Callable[[Analysis], Mapping[str, str]]]
) -> Section:
    """``leaderboard`` with each capability's mark after the clinician of the rows it
    marks."""
    if not markers:
        return leaderboard

    def text(page: Page) -> list[str]:
        marks: dict[str, list[str]] = {}
        for marker in markers:
            for label, mark in marker(page.analysis).items():
                marks.setdefault(esc(label), []).append(esc(mark))
        return [_marked_row(line, marks) for line in leaderboard.text(page)]

    return leaderboard.model_copy(update={"text": text})


def _marked_row(line: str, marks: Mapping[str, list[str]]) -> str:
    """A leaderboard row (``| rank | clinician | ...``) with its clinician's marks."""
    cells = line.split(" | ")
    if not line.startswith("| ") or len(cells) < 3 or cells[1] not in marks:
        return line
    cells[1] = " ".join([cells[1], *marks[cells[1]]])
    return " | ".join(cells)


SECTIONS: tuple[Section, ...] = registered_sections()
"""Every section of ``medsp-report``, in order."""


def write_report(
    inputs: Iterable[str | Path],
    out: str | Path,
    formats: Sequence[str] = ("md",),
    sections: Sequence[Section] | None = None,
) -> ReportResult:
    """The ``medsp-report`` report of every MedSP log under ``inputs``, written into ``out``
    (see :func:`inspect_medsp.report.write_report`); ``sections``: the registered
    ones (:func:`registered_sections`) unless given."""
    return core.write_report(inputs, out, sections or registered_sections(), formats)


def render_markdown(
    analysis: Analysis, charts: bool = True, sections: Sequence[Section] | None = None
) -> str:
    """``report.md`` of ``analysis`` (without writing any file)."""
    return core.render_markdown(analysis, sections or registered_sections(), charts)
