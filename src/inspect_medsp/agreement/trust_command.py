"""``medsp-report agreement`` and ``medsp-report validation-sheet``: can the grader be trusted?"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from collections.abc import Callable

from inspect_medsp.agreement.raters import AgreementError
from inspect_medsp.commandline import Command
from inspect_medsp.report import INSTALL_HINT


def agreement_arguments(agree: argparse.ArgumentParser) -> None:
    agree.add_argument("logs", nargs="+", metavar="LOG", help="Inspect logs of the same encounters")
    agree.add_argument("--out", required=True, metavar="DIR", help="folder to write to")
    agree.add_argument(
        "--human",
        nargs="+",
        default=[],
        metavar="SHEET",
        help="filled sheets from medsp-report validation-sheet (drawn from the first LOG)",
    )


def sheet_arguments(sheet: argparse.ArgumentParser) -> None:
    sheet.add_argument("log", metavar="LOG", help="an Inspect log of a MedSP run")
    sheet.add_argument("--n", type=int, default=30, help="encounters to draw (default 30)")
    sheet.add_argument("--out", required=True, metavar="DIR", help="folder to write to")
    sheet.add_argument("--seed", type=int, default=30, help="seed of the draw (default 30)")


Run = Callable[[argparse.Namespace], int]


def _one_line(command: str, run: Run) -> Run:
    """``run``, with a bad sheet or log as one line on stderr and exit 2."""

    def guarded(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except AgreementError as err:
            print(f"medsp-report {command}: error: {err}", file=sys.stderr)
            return 2

    return guarded


def _validation_sheet(args: argparse.Namespace) -> int:
    from inspect_medsp.agreement.raters import read_graded
    from inspect_medsp.agreement.validation_sheet import write_validation

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
    from inspect_medsp.agreement.agreement_page import write_agreement

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


AGREEMENT = Command(
    name="agreement",
    help="agreement between graders, grading repeats and clinicians",
    description=(
        "Compare the per-item verdicts of logs that graded the same encounters (a run and "
        "its re-grades made with inspect score ... --model-role grader=...), the repeats of "
        "a log graded with -S samples=k, and filled validation sheets."
    ),
    arguments=agreement_arguments,
    run=_one_line("agreement", _agreement),
)

VALIDATION_SHEET = Command(
    name="validation-sheet",
    help="draw encounters for two clinicians to rate",
    description=(
        "Draw a stratified sample of a log's scored encounters (by competency mix and "
        "score) and write a page and a rating sheet for each."
    ),
    arguments=sheet_arguments,
    run=_one_line("validation-sheet", _validation_sheet),
)
