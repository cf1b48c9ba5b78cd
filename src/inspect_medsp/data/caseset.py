"""Which set of cases a run ran: part of a run's identity, so runs of different sets are
never pooled or ranked as one.

A published set is named by its dataset (``MedSP1000``, ``MedSP-Q100``, ``MedSP-demo``) and
the revisions of its data and rubrics; a set of the user's own cases by its folder's name
and a digest of every file in it, so two folders that happen to share case ids (or a folder
edited between two runs) are told apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DIGEST_CHARS = 12
"""Hex characters of a custom set's digest kept in its key and label."""


class CaseSet(BaseModel):
    """The set of cases a run loaded (recorded in the log with the load report)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["published", "custom"]
    name: str
    """The dataset (published) or the folder's name (custom)."""
    revision: str | None = None
    """Data and rubric revisions (published) or the digest of the set's files (custom)."""
    cases: int | None = None
    """Cases in the whole set (custom; before ``-T scenarios`` picked some)."""
    drafts: list[str] = Field(default_factory=list)
    """Cases of a custom set not yet reviewed by a clinician (``status: draft``)."""
    files: dict[str, str] = Field(default_factory=dict)
    """Each file of a custom set (path in the folder) and the start of its SHA-256, so two
    sets of one name can say where they first differ (empty in logs written before)."""

    @property
    def custom(self) -> bool:
        return self.kind == "custom"

    @property
    def key(self) -> str:
        """What tells two sets apart: kind, name and revision."""
        return f"{self.kind}:{self.name}@{self.revision or '-'}"

    @property
    def label(self) -> str:
        """The set as a reader knows it: ``your cases: <name>, N cases`` for a custom set."""
        if not self.custom:
            return self.name
        n = f", {self.cases} case{'' if self.cases == 1 else 's'}" if self.cases else ""
        return f"your cases: {self.name}{n}"

    @property
    def not_comparable(self) -> str | None:
        """Why no row of this set compares with the published numbers (None: it may)."""
        if self.custom:
            return f"{self.label} are not the published benchmark"
        return None


def published_set(name: str, data_revision: str | None, rubric_revision: str | None) -> CaseSet:
    """A published set at its revisions (None: a local copy)."""
    revision = None
    if data_revision or rubric_revision:
        revision = f"data {data_revision or 'local'}, rubrics {rubric_revision or 'local'}"
    return CaseSet(kind="published", name=name, revision=revision)


def _files(folder: Path) -> list[tuple[str, bytes]]:
    """Every file of ``folder`` (hidden ones left out), in path order, with its SHA-256."""
    found: list[tuple[str, bytes]] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        found.append((relative.as_posix(), hashlib.sha256(path.read_bytes()).digest()))
    return found


def folder_digest(folder: Path) -> str:
    """SHA-256 over every file of ``folder`` (hidden ones left out), path and bytes, in path
    order: the same files give the same digest wherever the folder is."""
    digest = hashlib.sha256()
    for relative, file_digest in _files(folder):
        digest.update(relative.encode("utf-8") + b"\0")
        digest.update(file_digest)
    return digest.hexdigest()[:DIGEST_CHARS]


def first_difference(a: CaseSet, b: CaseSet) -> str | None:
    """The first file (in path order) that one of two custom sets holds and the other holds
    otherwise or not at all, or None when neither recorded its files."""
    if not a.files or not b.files:
        return None
    for path in sorted(set(a.files) | set(b.files)):
        if a.files.get(path) != b.files.get(path):
            return path
    return None


def custom_set(folder: Path, cases: int, drafts: list[str]) -> CaseSet:
    """The user's own set in ``folder``, with its digest."""
    return CaseSet(
        kind="custom",
        name=folder.name,
        revision=folder_digest(folder),
        cases=cases,
        drafts=sorted(drafts),
        files={path: digest.hex()[:DIGEST_CHARS] for path, digest in _files(folder)},
    )


def sets_named(sets: Sequence[CaseSet]) -> str | None:
    """The sets of a report in its title, when any is the user's own (``your cases: <name>, N
    cases``, after the published ones); None when every set is a published one."""
    unique = list({s.key: s for s in sets}.values())
    if not any(s.custom for s in unique):
        return None
    ordered = sorted(unique, key=lambda s: (s.custom, s.label))
    return " and ".join(dict.fromkeys(s.label for s in ordered))
