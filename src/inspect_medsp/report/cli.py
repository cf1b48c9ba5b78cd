"""``medsp-report LOG_OR_DIR [...] --out DIR [--format md,html]``; the subcommands
``agreement`` and ``validation-sheet`` are in :mod:`inspect_medsp.report.trust_cli`."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

from inspect_medsp.report.build import FORMATS, INSTALL_HINT


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="medsp-report",
        description=(
            "Compare MedSP runs from Inspect logs: leaderboard, competency profile, gaps and "
            "run health, as Markdown (optionally HTML), PNG charts and CSV files."
        ),
    )
    p.add_argument("inputs", nargs="+", metavar="LOG_OR_DIR", help="Inspect log files or folders")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write the report to")
    p.add_argument(
        "--format",
        default="md",
        metavar="md,html",
        help="comma-separated output formats (report.md is always written); default: md",
    )
    p.epilog = (
        "Check the grader: medsp-report agreement LOG [LOG ...] --out DIR [--human SHEET ...]; "
        "medsp-report validation-sheet LOG --n 30 --out DIR; grader probes: "
        "medsp-report probes LOG [LOG ...] --out DIR. Plan a run: medsp-report plan LOG "
        "[LOG ...] [--detect 0.03] [--model-cost-config FILE]"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; exit 0 when at least one log was reported."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given and given[0] in ("agreement", "validation-sheet") and not Path(given[0]).exists():
        from inspect_medsp.report.trust_cli import run

        return run(given)
    if given and given[0] == "probes" and not Path(given[0]).exists():
        from inspect_medsp.report.probes_cli import run as run_probes

        return run_probes(given[1:])
    if given and given[0] == "plan" and not Path(given[0]).exists():
        from inspect_medsp.report.plan_cli import run as plan

        return plan(given[1:])
    args = parser().parse_args(given)
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        print(f"medsp-report: unknown format {', '.join(unknown)} (use md, html)", file=sys.stderr)
        return 2
    if importlib.util.find_spec("matplotlib") is None:
        print(f"medsp-report: {INSTALL_HINT}", file=sys.stderr)
        return 2

    from inspect_medsp.report.build import write_report

    result = write_report(args.inputs, args.out, formats)
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


if __name__ == "__main__":
    sys.exit(main())
