"""``medsp-cases upgrade DIR``: rewrite what a set says in an earlier form of the case
format into the current one, changing nothing else, shown as a diff before anything is
written.

Today that is the stage headings (:func:`~inspect_medsp.cases.stages.legacy_headings`):
``## State 1 of 3 - initial_assessment (09:05, arrival)`` becomes ``## 0 initial_assessment
(09:05, arrival)``, and a stages table counted from 1 is counted from 0 with it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from inspect_medsp.cases.check import case_folders
from inspect_medsp.cases.read import is_case, read_case
from inspect_medsp.cases.stages import Rewrite, legacy_headings


@dataclass(frozen=True)
class FileUpgrade:
    """One file's text as it is and as ``upgrade`` writes it."""

    path: Path
    old: str
    new: str

    def diff(self) -> str:
        """The change as a unified diff."""
        return "".join(
            difflib.unified_diff(
                self.old.splitlines(keepends=True),
                self.new.splitlines(keepends=True),
                fromfile=f"{self.path.as_posix()} (now)",
                tofile=f"{self.path.as_posix()} (upgraded)",
            )
        )


def _apply(text: str, rewrites: list[Rewrite]) -> str:
    """``text`` with each rewrite's line replaced (matched by its text, keeping the line's
    ending and indentation), every other byte as it was."""
    lines = text.splitlines(keepends=True)
    for rewrite in rewrites:
        for at, line in enumerate(lines):
            body = line.rstrip("\r\n")
            if body.strip() == rewrite.old.strip():
                indent = body[: len(body) - len(body.lstrip())]
                lines[at] = indent + rewrite.new.strip() + line[len(body) :]
                break
    return "".join(lines)


def planned_upgrades(folder: Path) -> list[FileUpgrade]:
    """What ``upgrade`` would change in the set (or the one case) at ``folder``."""
    by_file: dict[Path, list[Rewrite]] = {}
    for sub in case_folders(folder) if folder.is_dir() else []:
        if not is_case(sub):
            continue
        for scenario in read_case(sub).scenarios:
            for rewrite in legacy_headings(scenario):
                by_file.setdefault(Path(rewrite.file), []).append(rewrite)
    upgrades: list[FileUpgrade] = []
    for path, rewrites in sorted(by_file.items()):
        old = path.read_bytes().decode("utf-8")
        new = _apply(old, rewrites)
        if new != old:
            upgrades.append(FileUpgrade(path, old, new))
    return upgrades


def write_upgrades(upgrades: list[FileUpgrade]) -> None:
    """Write each upgraded file (bytes as read, line endings kept)."""
    for upgrade in upgrades:
        upgrade.path.write_bytes(upgrade.new.encode("utf-8"))
