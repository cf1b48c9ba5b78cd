"""``medsp-report agreement`` and ``medsp-report validation-sheet``: can the grader be trusted?"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from collections.abc import Sequence

from inspect_medsp.report.build import INSTALL_HINT
from inspect_medsp.report.raters import AgreementError

SUBCOMMANDS = ("agreement", "validation-sheet")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="medsp-report", description="Check the MedSP grader.")
    sub = p.add_subparsers(dest="command", required=True)
    agree = sub.add_parser(
        "agreement",
        help="agreement between graders, grading repeats and clinicians",
        description=(
            "Compare the per-item verdicts of logs that graded the same encounters (a run and "
            "its re-grades made with inspect score ... --model-role grader=...), the repeats of "
            "a log graded with -S samples=k, and filled validation sheets."
        ),
    )
    agree.add_argument("logs", nargs="+", metavar="LOG", help="Inspect logs of the same encounters")
    agree.add_argument("--out", required=True, metavar="DIR", help="folder to write to")
    agree.add_argument(
        "--human",
        nargs="+",
        default=[],
        metavar="SHEET",
        help="filled sheets from medsp-report validation-sheet (drawn from the first LOG)",
    )
    sheet = sub.add_parser(
        "validation-sheet",
        help="draw encounters for two clinicians to rate",
        description=(
            "Draw a stratified sample of a log's scored encounters (by competency mix and "
            "score) and write a page and a rating sheet for each."
        ),
    )
    sheet.add_argument("log", metavar="LOG", help="an Inspect log of a MedSP run")
    sheet.add_argument("--n", type=int, default=30, help="encounters to draw (default 30)")
    sheet.add_argument("--out", required=True, metavar="DIR", help="folder to write to")
    sheet.add_argument("--seed", type=int, default=30, help="seed of the draw (default 30)")
    return p


def run(argv: Sequence[str]) -> int:
    """Run a subcommand; bad input is one line on stderr and exit 2."""
    args = parser().parse_args(argv)
    try:
        if args.command == "validation-sheet":
            return _validation_sheet(args)
        return _agreement(args)
    except AgreementError as err:
        print(f"medsp-report {args.command}: error: {err}", file=sys.stderr)
        return 2


def _validation_sheet(args: argparse.Namespace) -> int:
    from inspect_medsp.report.raters import read_graded
    from inspect_medsp.report.validation import write_validation

    log = read_graded(args.log)
    drawn = write_validation(log, args.n, args.out, args.seed)
    if len(drawn) < args.n:
        print(
            f"medsp-report validation-sheet: only {len(drawn)} scored encounters to draw from "
            f"(asked for {args.n})",
            file=sys.stderr,
        )
    print(f"wrote {len(drawn)} pages and sheets and validation.md in {args.out}")
    return 0


def _agreement(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("matplotlib") is None:
        print(f"medsp-report agreement: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from inspect_medsp.report.agreement_render import write_agreement

    report = write_agreement(args.logs, args.out, args.human)
    for warning in report.warnings:
        print(f"medsp-report agreement: warning: {warning}", file=sys.stderr)
    overall = [r for r in report.rows if r.competency == "overall"]
    for row in overall:
        kappa = "n/a (every verdict the same)" if math.isnan(row.kappa) else f"{row.kappa:.3f}"
        print(
            f"{row.comparison}: agreement {row.agreement:.3f}, {row.kappa_kind} kappa {kappa} "
            f"over {row.items} items"
        )
    print(f"wrote {len(report.files)} files in {args.out}")
    return 0
