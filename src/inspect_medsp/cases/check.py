"""``medsp-cases check``: every problem of a folder of cases (or of one case), one line each."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspect_medsp.cases.casefiles import CaseFiles
from inspect_medsp.cases.content import identifiers, leaks
from inspect_medsp.cases.layout import CASE_FILE
from inspect_medsp.cases.problems import Problem, shown
from inspect_medsp.cases.read import is_case, read_case
from inspect_medsp.cases.stages import legacy_headings, stage_faults


@dataclass
class SetCheck:
    """The cases of a folder as read, and every problem found in them."""

    folder: Path
    cases: list[CaseFiles] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What is read but written in an earlier form of the format (not a problem)."""

    @property
    def drafts(self) -> list[CaseFiles]:
        """The cases whose facts say ``status: draft``."""
        return [c for c in self.cases if c.facts is not None and c.facts.status == "draft"]

    def summary(self) -> str:
        """One line: cases checked, drafts, problems."""
        n = len(self.cases)
        line = f"{shown(self.folder)}: {n} case{'' if n == 1 else 's'} checked"
        if self.drafts:
            line += f", {len(self.drafts)} draft{'' if len(self.drafts) == 1 else 's'}"
        count = len(self.problems)
        return line + (
            f", {count} problem{'' if count == 1 else 's'}" if count else ", no problems"
        )


def case_folders(folder: Path) -> list[Path]:
    """The case folders of ``folder``: itself when it is one case, else its sub-folders."""
    if (folder / CASE_FILE).exists():
        return [folder]
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def check_set(folder: Path, content: bool = True) -> SetCheck:
    """Read every case of ``folder`` and list its problems.

    Args:
        folder: A folder of case folders, or one case folder.
        content: Also look for leaks and identifiers (the loader of a run reads the form only).
    """
    result = SetCheck(folder=folder)
    if not folder.is_dir():
        if folder.exists():
            problem = "is a file, not a folder of cases"
            fix = (
                "give the folder that holds your case folders; to draft a case from a "
                f"vignette: medsp-cases draft {shown(folder)} --model <provider/model> --out "
                "<folder>/<case>"
            )
        else:
            problem = "does not exist"
            fix = (
                "give the folder that holds your case folders (medsp-cases new "
                f"{shown(folder)}/<case> starts one)"
            )
        result.problems.append(
            Problem(file=shown(folder), kind="no_cases", message=problem, fix=fix)
        )
        return result
    for sub in case_folders(folder):
        if not is_case(sub) and sub != folder:
            result.problems.append(
                Problem(
                    file=shown(sub),
                    kind="not_a_case",
                    message=f"holds no {CASE_FILE} and no packet folder: not a case",
                    fix=f"move it out of the set, or make it a case (medsp-cases new {shown(sub)})",
                )
            )
            continue
        case = read_case(sub)
        old = [
            r
            for scenario in case.scenarios
            for r in legacy_headings(scenario)
            if r.old.lstrip().startswith("#")
        ]
        if old:
            n = len(old)
            result.notes.append(
                f"{shown(Path(old[0].file))}:{old[0].line}: note: {n} stage heading"
                f"{'' if n == 1 else 's'} in an earlier form (\"{old[0].old}\"), read as "
                f"\"{old[0].new}\"...; to rewrite them: medsp-cases upgrade {shown(folder)}"
            )
        faults = [f for scenario in case.scenarios for f in stage_faults(scenario)]
        for where, fault in faults:
            at = f"{shown(Path(where))}:{fault.line}" if fault.line else shown(Path(where))
            case.problems.append(
                Problem(file=at, kind="stages", message=fault.message, fix=fault.fix)
            )
        if content:
            case.problems.extend(p for scenario in case.scenarios for p in leaks(scenario))
            case.problems.extend(identifiers(case))
        result.cases.append(case)
        result.problems.extend(case.problems)
    if not result.cases and not result.problems:
        result.problems.append(
            Problem(
                file=shown(folder),
                kind="no_cases",
                message="holds no case folder",
                fix=f"add one with medsp-cases new {shown(folder)}/<case>",
            )
        )
    result.problems.extend(duplicate_ids(result.cases))
    return result


def duplicate_ids(cases: list[CaseFiles]) -> list[Problem]:
    """A problem for each case whose id an earlier case of the set already has."""
    first: dict[str, CaseFiles] = {}
    problems: list[Problem] = []
    for case in cases:
        if case.facts is None:
            continue
        earlier = first.setdefault(case.facts.id, case)
        if earlier is not case:
            problem = Problem(
                file=shown(case.folder / CASE_FILE),
                kind="duplicate_id",
                message=f"id '{case.facts.id}' is also the id of "
                f"{shown(earlier.folder / CASE_FILE)}",
                fix="give each case its own id (the folder name is a good choice)",
            )
            case.problems.append(problem)
            problems.append(problem)
    return problems
