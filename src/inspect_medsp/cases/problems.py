"""A problem ``medsp-cases check`` finds: one line naming the file, what is wrong and the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

ProblemKind = Literal[
    "no_cases",
    "not_a_case",
    "facts",
    "missing_packet",
    "empty_packet",
    "not_utf8",
    "rubric",
    "no_items",
    "unknown_competency",
    "duplicate_id",
    "leak",
    "identifier",
    "stray_file",
    "stages",
]

CONTENT: frozenset[ProblemKind] = frozenset({"leak", "identifier", "stray_file"})
"""Problems a run still loads a case with (the author decides): what a case says, and a
file no role reads; every other problem stops the load. (A set with identifiers is refused
for a remote model unless acknowledged: :mod:`inspect_medsp.cases.privacy`.)"""


class Problem(BaseModel):
    """One problem in one file."""

    model_config = ConfigDict(frozen=True)

    file: str
    kind: ProblemKind
    message: str
    fix: str

    @property
    def stops_a_run(self) -> bool:
        """Whether the case cannot be loaded for a run with this problem."""
        return self.kind not in CONTENT

    def line(self) -> str:
        """``<file>: <what is wrong>; fix: <what to do>``."""
        return f"{self.file}: {self.message}; fix: {self.fix}"


def shown(path: Path) -> str:
    """A path as the author gave it (relative stays relative), with forward slashes."""
    return path.as_posix()
