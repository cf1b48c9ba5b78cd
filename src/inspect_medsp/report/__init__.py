"""The report's core: gather MedSP runs from Inspect logs, group them, and write the sections
it is given (``report.md``, charts, CSV files). It names no feature: the sections of
``medsp-report`` (the core's and each slice's) are listed in ``inspect_medsp.full_report``,
whose ``write_report(inputs, out)`` writes them all. The charts need the ``report`` extra
(matplotlib), imported only when a chart is drawn.

This is the part's face: code outside ``report/`` imports from here. Inside, each view of the
core report is one module with its computation, text, CSV table and figure (``head``,
``leaderboard``, ``paper_table``, ``profile``, ``gaps``, ``specialties``, ``input_length``,
``strategy``, ``case_metadata``, ``health``; the Files list in ``section``), over what they
share: the groups (``groups``), what an analysis holds (``analysis``), the report's files and
CSV writer (``files``), the charts' style (``charts``) and the text helpers (``text``).
"""

from inspect_medsp.report.analysis import Analysis
from inspect_medsp.report.build import INSTALL_HINT, ReportResult, analyse, write_report
from inspect_medsp.report.case_metadata import CASE_METADATA, age_group, patient_sex
from inspect_medsp.report.charts import (
    HATCHES,
    MAX_INCHES,
    PALETTE,
    SHADES,
    save,
    shade,
    styles,
    wrap,
)
from inspect_medsp.report.command import report_command
from inspect_medsp.report.files import Cell, ReportFile, Table, chart, csv_file, finite, write_csv
from inspect_medsp.report.gaps import GAPS
from inspect_medsp.report.groups import GroupSummary, pooled_metrics
from inspect_medsp.report.head import HEAD
from inspect_medsp.report.health import HEALTH
from inspect_medsp.report.input_length import INPUT_LENGTH, bin_ranges, token_edges
from inspect_medsp.report.leaderboard import LEADERBOARD, SHARED_SCENARIOS, leaderboard_table
from inspect_medsp.report.merging import MERGE, merge
from inspect_medsp.report.paper_table import table_latex, table_markdown
from inspect_medsp.report.profile import PROFILE
from inspect_medsp.report.runs import collect, find_logs
from inspect_medsp.report.section import FILES, Page, Section, render_markdown, report_files
from inspect_medsp.report.shards import ShardSetRefused, shard_sets
from inspect_medsp.report.specialties import SPECIALTIES
from inspect_medsp.report.strategy import STRATEGY
from inspect_medsp.report.text import esc, points, short, table, with_ci

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
    "MERGE",
    "PALETTE",
    "PROFILE",
    "SHADES",
    "SHARED_SCENARIOS",
    "SPECIALTIES",
    "STRATEGY",
    "Analysis",
    "Cell",
    "GroupSummary",
    "Page",
    "ReportFile",
    "ReportResult",
    "Section",
    "ShardSetRefused",
    "Table",
    "age_group",
    "analyse",
    "bin_ranges",
    "chart",
    "collect",
    "csv_file",
    "esc",
    "find_logs",
    "finite",
    "leaderboard_table",
    "merge",
    "patient_sex",
    "points",
    "pooled_metrics",
    "render_markdown",
    "report_command",
    "report_files",
    "save",
    "shade",
    "shard_sets",
    "short",
    "styles",
    "table",
    "table_latex",
    "table_markdown",
    "token_edges",
    "with_ci",
    "wrap",
    "write_csv",
    "write_report",
]
