"""A run made in parts (``-T shard=K/N``), read as one run: the parts of one shard set, which
are missing or failed, and parts that cannot belong together.

A part's logs sit in ``<run>.shards/<K>/`` (Inspect's layout); its task metadata says which
part it is and the size of every part (``record.shards.ShardRecord``). A part logged more
than once (a failed attempt, then ``inspect eval-retry``) counts by its newest attempt, as
Inspect takes a shard's last attempt as its current one; the older attempts are named in a
note. A part log outside that layout belongs to the set of its selection and part count.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from inspect_medsp.errors import MedSPDataError
from inspect_medsp.record import MedspRun, ShardRecord, shard_folder


class ShardSetRefused(MedSPDataError):
    """Logs of one shard set that cannot be parts of one run (one line naming the
    difference)."""


class ShardSet(BaseModel):
    """The parts of one run found among the logs."""

    location: str
    """The ``<run>.shards`` folder (or ``selection <digest>`` for parts outside it)."""
    folder: bool = True
    """Whether the parts sit in Inspect's layout, ``<location>/<K>/``."""
    count: int
    sizes: list[int]
    """Scenarios of every part, in part order."""
    parts: dict[int, MedspRun] = Field(default_factory=dict)
    """The current (newest) attempt of each part found, by part number."""
    superseded: dict[int, list[str]] = Field(default_factory=dict)
    """Older attempts of a part, by part number (their paths)."""
    merged: list[str] = Field(default_factory=list)
    """Merged logs of these parts (``medsp-report merge``) also given, and not read: they
    hold the same samples as the parts, which are read instead (no sample counts twice)."""

    @property
    def name(self) -> str:
        return set_name(self.location)

    @property
    def missing(self) -> list[int]:
        return [k for k in range(1, self.count + 1) if k not in self.parts]

    @property
    def failed(self) -> list[int]:
        """Parts whose current attempt did not finish (status other than success)."""
        return [k for k, run in sorted(self.parts.items()) if run.status != "success"]

    @property
    def complete(self) -> bool:
        return not self.missing and not self.failed

    @property
    def parts_line(self) -> str:
        """``4 of 4 parts``."""
        return f"{len(self.parts)} of {self.count} parts"

    def problems(self) -> list[str]:
        """One line per missing or failed part: which, how many scenarios it held, the fix."""
        lines = []
        for k in self.missing:
            where = f" --log-dir {self.location}/{k}" if self.folder else ""
            lines.append(
                f"{self.location}: part {k}/{self.count} is missing ({_scenarios(self.size(k))} "
                f"not run): run it with -T shard={k}/{self.count}{where}"
            )
        for k in self.failed:
            run = self.parts[k]
            where = f" --log-dir {self.location}/{k}" if self.folder else ""
            lines.append(
                f"{self.location}: part {k}/{self.count} failed (status {run.status}, "
                f"{len(run.scored_ids)} of its {_scenarios(self.size(k))} scored): retry it "
                f"with inspect eval-retry {run.path}{where}"
            )
        return lines

    def size(self, k: int) -> int:
        return self.sizes[k - 1]


def set_name(location: str) -> str:
    """A shard set's folder by its last name (``run.shards``)."""
    return re.split(r"[/\\]", location.rstrip("/\\"))[-1]


def _scenarios(n: int) -> str:
    return f"{n} scenario{'' if n == 1 else 's'}"


def set_location(run: MedspRun) -> tuple[str, bool] | None:
    """The shard set a run is a part of, and whether it is a folder in Inspect's layout
    (None for a whole run)."""
    shard = run.task_metadata.shard
    if shard is None:
        return None
    found = shard_folder(run.path)
    if found is not None:
        return found[0], True
    return f"selection {shard.selection[:12]} in {shard.count} parts", False


SHARED: tuple[tuple[str, Callable[[MedspRun], str]], ...] = (
    ("the task", lambda r: r.task),
    ("the model", lambda r: r.model),
    ("the judge", lambda r: r.grader_role or r.task_metadata.judge),
    ("the epochs", lambda r: str(r.epochs)),
    ("the protocol", lambda r: r.protocol),
    ("the strategy", lambda r: str(sorted(r.task_metadata.strategy.items()))),
    ("the turn limit", lambda r: str(r.task_metadata.max_turns)),
    (
        "the data",
        lambda r: f"{r.task_metadata.data_revision} {r.task_metadata.rubric_revision}",
    ),
    ("the part count", lambda r: str(_shard(r).count)),
    ("the selection", lambda r: _shard(r).selection[:12]),
)
"""What the parts of one run must share, each with how it is read from a part's log."""


def _shard(run: MedspRun) -> ShardRecord:
    shard = run.task_metadata.shard
    assert shard is not None, "only parts are compared"
    return shard


def shard_sets(runs: Sequence[MedspRun]) -> tuple[list[MedspRun], list[ShardSet]]:
    """The runs to report (each part by its current attempt) and the shard sets they make.

    A merged log (``medsp-report merge``) read with its own parts is left out (named in the
    set's :attr:`ShardSet.merged`): the parts are read. Read alone, it is one whole run.

    Raises:
        ShardSetRefused: Logs of one set that differ in a setting the parts must share
            (:data:`SHARED`), or a part in the folder of another part number.
    """
    by_set: dict[tuple[str, bool], list[MedspRun]] = defaultdict(list)
    whole: list[MedspRun] = []
    for run in runs:
        place = set_location(run)
        if place is None:
            whole.append(run)
        else:
            by_set[place].append(run)
    sets: list[ShardSet] = []
    kept = list(whole)
    for (location, folder), members in by_set.items():
        _check(location, members)
        first = _shard(members[0])
        found = ShardSet(
            location=location, folder=folder, count=first.count, sizes=list(first.sizes)
        )
        attempts: dict[int, list[MedspRun]] = defaultdict(list)
        for run in members:
            attempts[_shard(run).index].append(run)
        for k, tries in sorted(attempts.items()):
            ordered = sorted(tries, key=lambda r: (r.created, r.path))
            found.parts[k] = ordered[-1]
            if len(ordered) > 1:
                found.superseded[k] = [r.path for r in ordered[:-1]]
        kept += found.parts.values()
        sets.append(found)
    for found in sets:
        selection = _shard(next(iter(found.parts.values()))).selection
        copies = [
            r
            for r in kept
            if r.task_metadata.merged is not None
            and r.task_metadata.merged.selection == selection
        ]
        found.merged = [r.path for r in copies]
        kept = [r for r in kept if all(r is not c for c in copies)]
    chosen = {id(r) for r in kept}
    return [r for r in runs if id(r) in chosen], sets


def _check(location: str, members: Sequence[MedspRun]) -> None:
    """Refuse a set whose logs cannot be parts of one run."""
    for run in members:
        folder = shard_folder(run.path)
        index = _shard(run).index
        if folder is not None and folder[1] != str(index):
            raise ShardSetRefused(
                f"{run.path}: the log is part {_shard(run).part} but sits in folder "
                f"{folder[1]}/ of {location}: move it to {location}/{index}/"
            )
    first = min(members, key=lambda r: (_shard(r).index, r.created))
    for run in members:
        differ = [
            f"{what} ({read(run)} vs {read(first)})"
            for what, read in SHARED
            if read(run) != read(first)
        ]
        if differ:
            listed = ", ".join(differ[:-1]) + (" and " if len(differ) > 1 else "") + differ[-1]
            raise ShardSetRefused(
                f"{location}: part {_shard(run).part} ({run.name}) differs from part "
                f"{_shard(first).part} ({first.name}) in {listed}: the parts of one run "
                "share these; write another run's parts to a <run>.shards folder of its own"
            )
