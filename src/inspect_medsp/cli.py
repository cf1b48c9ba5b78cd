"""``medsp-report``: one parser for the report and every slice's subcommand.

``medsp-report LOG_OR_DIR ... --out DIR`` is ``medsp-report report LOG_OR_DIR ... --out DIR``.
A subcommand's name always means the subcommand (a folder of that name is reached as
``./agreement``); a first word that is neither a subcommand nor an existing file or folder is
one line naming the closest subcommand, exit 2, and nothing is written.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from inspect_medsp.agreement import AGREEMENT, VALIDATION_SHEET
from inspect_medsp.commandline import USAGE_ERROR, Command, Parser, closest, unwritable
from inspect_medsp.comparisons import PLAN
from inspect_medsp.full_report import SECTIONS
from inspect_medsp.measures import CAPABILITIES
from inspect_medsp.report import MERGE, report_command

PROG = "medsp-report"
REPORT = report_command(SECTIONS)
MEASURED: tuple[Command, ...] = tuple(c for capability in CAPABILITIES for c in capability.commands)
"""The subcommands the registered capabilities declare (``probes``)."""
COMMANDS: tuple[Command, ...] = (
    REPORT,
    MERGE,
    AGREEMENT,
    VALIDATION_SHEET,
    *MEASURED,
    PLAN,
)
"""Every subcommand, the default (``report``) first."""


def parser() -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "Compare MedSP runs from Inspect logs (medsp-report LOG_OR_DIR ... --out DIR), "
            "check the grader, read grader probes and plan a run."
        ),
        epilog=(
            "Check the grader: medsp-report agreement LOG [LOG ...] --out DIR [--human SHEET "
            "...]; medsp-report validation-sheet LOG --n 30 --out DIR; grader probes: "
            "medsp-report probes LOG [LOG ...] --out DIR. A run made in parts as one log: "
            "medsp-report merge RUN.shards. Plan a run: medsp-report plan LOG "
            "[LOG ...] [--detect 0.03] [--model-cost-config FILE]. A folder named like a "
            "subcommand is given as ./NAME."
        ),
    )
    p.add_commands(COMMANDS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``medsp-report``; the exit code of the subcommand, 2 on bad input."""
    given = list(sys.argv[1:] if argv is None else argv)
    names = [c.name for c in COMMANDS]
    if given and given[0] not in names and given[0] not in ("-h", "--help"):
        first = given[0]
        if not first.startswith("-") and not Path(first).exists() and "://" not in first:
            print(f"{PROG}: error: {_unknown(first, names)}", file=sys.stderr)
            return USAGE_ERROR
        given = [REPORT.name, *given]
    args = parser().parse_args(given)
    out = getattr(args, "out", None)
    if out is not None and (cannot := unwritable(str(out))) is not None:
        why = f"--out {out}: {cannot}; give a folder you can write to"
        print(f"{PROG}: error: {why}", file=sys.stderr)
        return USAGE_ERROR
    code: int = args.run(args)
    return code


def _unknown(word: str, names: Sequence[str]) -> str:
    """One line for a first word that is no subcommand and no file or folder."""
    guess = closest(word, names)
    if guess is not None:
        return f"no subcommand or file '{word}': did you mean '{guess}'?"
    return f"'{word}' is neither a subcommand ({', '.join(names)}) nor an existing file or folder"


if __name__ == "__main__":
    sys.exit(main())
