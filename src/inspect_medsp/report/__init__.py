"""The report's core: gather MedSP runs from Inspect logs, group them, and write the sections
it is given (``report.md``, charts, CSV files). It names no feature: the sections of
``medsp-report`` (the core's and each slice's) are listed in ``inspect_medsp.full_report``,
whose ``write_report(inputs, out)`` writes them all. The charts need the ``report`` extra
(matplotlib).
"""

from typing import TYPE_CHECKING

from inspect_medsp.report.build import INSTALL_HINT, ReportResult, write_report
from inspect_medsp.report.collect import collect, find_logs, read_run
from inspect_medsp.report.command import report_command
from inspect_medsp.report.core_sections import (
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
    chart,
    csv_file,
)
from inspect_medsp.report.findings import Analysis, analyse
from inspect_medsp.report.problem import Problem
from inspect_medsp.report.section import Page, ReportFile, Section, render_markdown
from inspect_medsp.report.shards import ShardSetRefused
from inspect_medsp.report.tables import Cell, Table, finite, write_csv
from inspect_medsp.report.text import esc, points, short, table, with_ci

if TYPE_CHECKING:
    from inspect_medsp.report.charts import HATCHES, MAX_INCHES, PALETTE, save, styles, wrap

__all__ = [
    "CASE_METADATA",
    "FILES",
    "GAPS",
    "HATCHES",
    "HEAD",
    "HEALTH",
    "INPUT_LENGTH",
    "INSTALL_HINT",
    "LEADERBOARD",
    "MAX_INCHES",
    "PALETTE",
    "PROFILE",
    "SHARED_SCENARIOS",
    "SPECIALTIES",
    "STRATEGY",
    "Analysis",
    "Cell",
    "Page",
    "Problem",
    "ReportFile",
    "ReportResult",
    "Section",
    "ShardSetRefused",
    "Table",
    "analyse",
    "chart",
    "collect",
    "csv_file",
    "esc",
    "find_logs",
    "finite",
    "points",
    "read_run",
    "render_markdown",
    "report_command",
    "save",
    "short",
    "styles",
    "table",
    "with_ci",
    "wrap",
    "write_csv",
    "write_report",
]


def __getattr__(name: str) -> object:
    """Names of modules that import matplotlib (an extra's):
    imported on first use, so that importing this part does not import them."""
    if name in {"HATCHES", "MAX_INCHES", "PALETTE", "save", "styles", "wrap"}:
        from inspect_medsp.report import charts

        return getattr(charts, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
