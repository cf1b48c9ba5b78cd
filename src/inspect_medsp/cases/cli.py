"""``medsp-cases``: write, check, convert and draft cases of your own.

``new DIR/CASE`` writes the commented template; ``check DIR`` lists every problem, one line
each; ``demo DIR`` writes the bundled demo's cases in the case format; ``draft VIGNETTE --model
M --out DIR/CASE`` drafts a case from a de-identified vignette (refused, unless ``--identifiers
allow``, when it holds likely identifiers and the model connects off this machine); ``upgrade
DIR`` rewrites what a set says in an earlier form of the format (stage headings), showing the
diff first. Exit 0
when all went well, 1 when a case has problems or could not be written, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio

from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.problems import shown
from inspect_medsp.cases.show import ShownRole
from inspect_medsp.commandline import Command, Parser
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.variants import SUFFIXES as VARIANT_SUFFIXES
from inspect_medsp.variants import read_variant

PROG = "medsp-cases"


def _new_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("case", metavar="DIR/CASE", help="the case folder to create")


def _folder_arguments(help: str) -> Callable[[argparse.ArgumentParser], None]:
    def add(p: argparse.ArgumentParser) -> None:
        p.add_argument("folder", metavar="DIR", help=help)

    return add


def _show_arguments(p: argparse.ArgumentParser) -> None:
    from inspect_medsp.cases.show import ROLES

    p.add_argument("case", metavar="DIR/CASE", help="one case folder")
    p.add_argument("--role", required=True, choices=ROLES, help="whose reading to print")


def _draft_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("vignette", metavar="VIGNETTE", help="a text file ('-' reads stdin)")
    p.add_argument("--model", required=True, help="the model that drafts, provider/model")
    p.add_argument("--out", required=True, metavar="DIR/CASE", help="the case folder")
    p.add_argument(
        "--identifiers",
        choices=("refuse", "allow"),
        default="refuse",
        help="refuse (default) to send a vignette with likely identifiers to a model that "
        "connects off this machine; allow to send it as it is",
    )


NEW = Command(
    name="new",
    help="write a commented template case that passes check",
    description="Write a commented template case (status: draft) that passes check.",
    arguments=_new_arguments,
    run=lambda args: _new(Path(args.case)),
)


def _check_description() -> str:
    from inspect_medsp.cases.identify import CANNOT_SEE, LOOKS_FOR

    looks = "; ".join(f"{kind}: {what}" for kind, what in LOOKS_FOR.items())
    return (
        "List every problem of a folder of cases, one line each; exit 1 if any (given a "
        "patient variant file, .yaml as in docs/variants.md, check it). Likely "
        f"identifiers it looks for: {looks}. Names a case declares in case.yaml (names:) "
        f"are not flagged. It cannot see: {'; '.join(CANNOT_SEE)}."
    )


CHECK = Command(
    name="check",
    help="list every problem of a folder of cases (or of a patient variant file)",
    description=_check_description(),
    arguments=_folder_arguments("a folder of case folders, one case, or a variant file"),
    run=lambda args: _check(Path(args.folder)),
)
DEMO = Command(
    name="demo",
    help="write the bundled demo's three cases in the case format",
    description="Write the bundled demo's three cases in the case format.",
    arguments=_folder_arguments("the folder to write the cases into"),
    run=lambda args: _demo(Path(args.folder)),
)
SHOW = Command(
    name="show",
    help="print exactly what one role of a run reads of a case",
    description="Print the messages a role opens its conversation with in a run, as the run "
    "sends them: its instructions, then its materials (the grader's record of the encounter "
    "is written during the run and shown as a marker).",
    arguments=_show_arguments,
    run=lambda args: _show(Path(args.case), args.role),
)
DRAFT = Command(
    name="draft",
    help="draft a case from a de-identified vignette",
    description="Draft a case from a de-identified vignette with a model; a clinician must "
    "review it before it is used.",
    arguments=_draft_arguments,
    run=lambda args: _draft(args.vignette, args.model, Path(args.out), args.identifiers),
)


def _upgrade_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", help="a folder of case folders, or one case")
    p.add_argument("--yes", action="store_true", help="write the changes shown without asking")


UPGRADE = Command(
    name="upgrade",
    help="rewrite stage headings of an earlier case format (shows the diff first)",
    description="Rewrite what a set says in an earlier form of the case format into the "
    "current one (today: stage headings such as '## State 1 of 3 - initial_assessment (09:05)' "
    "become '## 0 initial_assessment (09:05)'), changing nothing else. The diff is printed "
    "first; the files are written when you answer y, or at once with --yes.",
    arguments=_upgrade_arguments,
    run=lambda args: _upgrade(Path(args.folder), args.yes),
)
COMMANDS: tuple[Command, ...] = (NEW, CHECK, DEMO, SHOW, DRAFT, UPGRADE)
"""Every subcommand of ``medsp-cases``."""


def parser() -> Parser:
    """The one parser of ``medsp-cases`` and its subcommands."""
    p = Parser(
        prog=PROG,
        description="Write, check and draft standardized-patient cases of your own, then run "
        "them with: inspect eval inspect_medsp/medsp_custom -T cases=DIR (docs/case-format.md)",
    )
    p.add_commands(COMMANDS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; see the module's docstring for the exit codes."""
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        code: int = args.run(args)
    except MedSPDataError as err:
        print(f"{PROG}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    return code


def _new(case: Path) -> int:
    from inspect_medsp.cases.write import new_case

    written = new_case(case)
    print(
        f"wrote {shown(case)} ({len(written)} files, status: draft); replace the example "
        f"with your case, then: {PROG} check {shown(case.parent)}"
    )
    return 0


def _check(folder: Path) -> int:
    if folder.is_file() and folder.suffix in VARIANT_SUFFIXES:
        return _check_variant(folder)
    result = check_set(folder)
    for problem in result.problems:
        print(problem.line())
    for note in result.notes:
        print(note)
    print(result.summary())
    return 1 if result.problems else 0


def _upgrade(folder: Path, yes: bool) -> int:
    from inspect_medsp.cases.upgrade import planned_upgrades, write_upgrades

    if not folder.is_dir():
        raise MedSPDataError(f"{shown(folder)}: not a folder; give the folder of your cases")
    upgrades = planned_upgrades(folder)
    if not upgrades:
        print(f"{shown(folder)}: nothing in an earlier form; nothing to change")
        return 0
    for upgrade in upgrades:
        print(upgrade.diff(), end="")
    n = len(upgrades)
    files = f"{n} file{'' if n == 1 else 's'}"
    if not yes:
        if not sys.stdin.isatty():
            print(f"{files} would change; nothing written (run again with --yes to write)")
            return 0
        answer = input(f"write these changes to {files}? [y/N] ").strip().lower()
        if answer not in {"y", "yes"}:
            print("nothing written")
            return 0
    write_upgrades(upgrades)
    print(f"upgraded {files}; then: {PROG} check {shown(folder)}")
    return 0


def _check_variant(path: Path) -> int:
    """Check a patient variant file as a run reads it: one line, exit 1 if it is not."""
    try:
        spec = read_variant(path)
    except MedSPParameterError as err:
        print(" ".join(str(err).split()))
        return 1
    rows = sum(len(r) for r in (spec.substitutions or {}).values())
    table = f", {rows} substitutions on {len(spec.substitutions or {})} case(s)" if rows else ""
    print(f"{shown(path)}: variant {spec.name} ({spec.kind}{table}), no problems")
    return 0


def _demo(folder: Path) -> int:
    from inspect_medsp.cases.write import write_demo

    written = write_demo(folder)
    print(
        f"wrote {len(written)} cases to {shown(folder)}: "
        + ", ".join(p.name for p in written)
        + f"; run them: inspect eval inspect_medsp/medsp_custom -T cases={shown(folder)}"
    )
    return 0


def _show(case: Path, role: ShownRole) -> int:
    from inspect_medsp.cases.show import role_messages, shown

    print(shown(role_messages(case, role)), end="")
    return 0


def _draft(vignette: str, model: str, out: Path, identifiers: str = "refuse") -> int:
    from inspect_medsp.cases.draft import draft_case, vignette_refusal
    from inspect_medsp.preflight import model_unavailable

    if (why := model_unavailable(model)) is not None:
        raise MedSPDataError(f"--model {model} cannot be used here: {why}")

    if vignette == "-":
        text, source = sys.stdin.read(), "a vignette on standard input"
    else:
        path = Path(vignette)
        if not path.is_file():
            raise MedSPDataError(f"{vignette}: no such file; give the vignette as a text file")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise MedSPDataError(f"{vignette}: not UTF-8 text; save it as UTF-8") from None
        source = f"the vignette {path.name}"
    if identifiers == "refuse" and (line := vignette_refusal(text, vignette, model)):
        raise MedSPDataError(line)
    drafted = anyio.run(draft_case, text, model, out, source)
    print(f"drafted {shown(drafted.folder)} with {model} (status: draft)")
    for problem in drafted.check.problems:
        print(problem.line())
    print(drafted.check.summary())
    print("A clinician must review before the case is used:")
    for n, point in enumerate(drafted.review, start=1):
        print(f"  {n}. {point}")
    return 1 if drafted.check.problems else 0


if __name__ == "__main__":
    sys.exit(main())
