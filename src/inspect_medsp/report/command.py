"""``medsp-report [report] LOG_OR_DIR [...] --out DIR [--format md,html]``: the main report as a
subcommand of the one command line (:mod:`inspect_medsp.cli`)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence

from inspect_medsp.commandline import Command
from inspect_medsp.report.build import FORMATS, INSTALL_HINT
from inspect_medsp.report.section import Section


def arguments(p: argparse.ArgumentParser) -> None:
    """The main report's arguments."""
    p.add_argument("inputs", nargs="+", metavar="LOG_OR_DIR", help="Inspect log files or folders")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write the report to")
    p.add_argument(
        "--format",
        default="md",
        metavar="md,html",
        help="comma-separated output formats (report.md is always written); default: md",
    )


def run(args: argparse.Namespace, sections: Sequence[Section]) -> int:
    """Write the report of ``sections``; exit 0 when at least one log was reported."""
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        print(f"medsp-report: unknown format {', '.join(unknown)} (use md, html)", file=sys.stderr)
        return 2
    if importlib.util.find_spec("matplotlib") is None:
        print(f"medsp-report: {INSTALL_HINT}", file=sys.stderr)
        return 2

    from inspect_medsp.report.build import write_report
    from inspect_medsp.report.shards import ShardSetRefused

    try:
        result = write_report(args.inputs, args.out, sections, formats)
    except ShardSetRefused as err:
        print(f"medsp-report: error: {err}", file=sys.stderr)
        return 1
    for problem in result.problems:
        print(f"medsp-report: error: {problem.line()}", file=sys.stderr)
    if result.analysis is None:
        print("medsp-report: nothing could be reported", file=sys.stderr)
        return 1
    analysis = result.analysis
    for flag in analysis.flags:
        print(f"medsp-report: warning: {' '.join(flag.split())}", file=sys.stderr)
    report = next(f for f in result.files if f.endswith("report.md"))
    print(
        f"wrote {report} ({len(analysis.runs)} logs, {len(analysis.groups)} groups, "
        f"{len(result.files)} files in {args.out})"
    )
    return 0


def report_command(sections: Sequence[Section]) -> Command:
    """``medsp-report report``, writing ``sections``."""
    return Command(
        name="report",
        help="the competency-gap report (the default: medsp-report LOG_OR_DIR ... --out DIR)",
        description=(
            "Compare MedSP runs from Inspect logs: leaderboard, competency profile, gaps and "
            "run health, as Markdown (optionally HTML), PNG charts and CSV files."
        ),
        arguments=arguments,
        run=lambda args: run(args, sections),
    )
