"""``medsp-report probes LOG [LOG ...] --out DIR``: the grader probes of re-scored logs."""

from __future__ import annotations

import argparse
import importlib.util
import sys

from inspect_medsp.commandline import Command
from inspect_medsp.record import NotMedSP
from inspect_medsp.report import INSTALL_HINT, find_logs


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("logs", nargs="+", metavar="LOG", help="Inspect logs or folders")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write to")


def run(args: argparse.Namespace) -> int:
    """Write the probe report; exit 1 when no log holds a probe score, 2 on bad input."""
    if importlib.util.find_spec("matplotlib") is None:
        print(f"medsp-report: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from inspect_medsp.probes.flips import write_probes

    paths, problems = find_logs(args.logs)
    for problem in problems:
        print(f"medsp-report: error: {problem.line()}", file=sys.stderr)
    try:
        report, files = write_probes(paths, args.out)
    except NotMedSP as err:
        print(f"medsp-report: error: {err}", file=sys.stderr)
        return 2
    except Exception as err:
        print(
            f"medsp-report: error: cannot read the logs ({type(err).__name__}: {err})",
            file=sys.stderr,
        )
        return 2
    if not report.encounters:
        print(
            "medsp-report: no medsp_grader_probe scores in these logs: score them first with "
            "inspect score LOG --scorer inspect_medsp/medsp_grader_probe --action append "
            "--overwrite",
            file=sys.stderr,
        )
        return 1
    probed = sum(e.probes is not None for e in report.encounters)
    print(f"wrote {files[0]} ({probed} encounters probed, {len(files)} files in {args.out})")
    return 0


PROBES = Command(
    name="probes",
    help="flips of the grader under each probe, from logs scored with medsp_grader_probe",
    description=(
        "Flips of the grader under each probe (recital, injection, padding, removal), per "
        "competency, from logs scored with inspect score --scorer "
        "inspect_medsp/medsp_grader_probe: a table (probes.md), a chart (probes.png) and "
        "CSV files (probes.csv, probes_worst_items.csv)."
    ),
    arguments=arguments,
    run=run,
)
