"""Graded encounters read from MedSP logs, and the comparisons between their raters.

Which encounters a log graded is decided by what the grader read: the sample's Trajectory in
the sample store (the one record the scorer renders for the grader). Two logs graded the same
encounter when the same sample id and epoch hold the same Trajectory. A re-grade made with
``inspect score`` keeps the store, so it matches its run; a fresh run of the same scenarios is
refused even though its ids are the same. Content is used rather than the sample uuid so that
the same recorded encounter copied or cached into another log still counts as the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from inspect_medsp.data import RubricItem
from inspect_medsp.errors import PrerequisiteError
from inspect_medsp.record import MedspSample, NotMedSP, Trajectory, read_log
from inspect_medsp.report import find_logs

STORE_PREFIX = f"{Trajectory.__name__}:"
"""The store keys of the Trajectory. The fingerprint digests them as stored (not as the model
reads them), so a validation sheet written from a log keeps matching that log."""

MET, NOT_MET, UNJUDGED, UNSCORED = 1, 0, -1, -2
"""A rater's vote on an item: a verdict, or why there is none."""

Key = tuple[str, int]
"""An encounter: sample id and epoch."""


class AgreementError(PrerequisiteError):
    """Input the agreement and validation commands cannot use; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.args = (message,)


class NotGraded(AgreementError):
    """A readable Inspect log that is not a graded MedSP run."""

    def __str__(self) -> str:
        return str(self.message)


class Encounter(BaseModel):
    """One recorded encounter and the rubric it is graded on."""

    sample_id: str
    epoch: int
    case_id: str
    fingerprint: str
    items: list[RubricItem]
    store: dict[str, Any]

    @property
    def key(self) -> Key:
        return (self.sample_id, self.epoch)


class GradedLog(BaseModel):
    """A MedSP log's encounters and its grader's verdicts on them."""

    path: str
    name: str
    clinician: str
    grader: str
    encounters: dict[Key, Encounter]
    results: dict[Key, MedspSample]

    @property
    def label(self) -> str:
        return f"{self.name} ({self.grader})"

    def vote(self, key: Key, number: int) -> int:
        """This log's verdict on one item (the majority when it graded several times)."""
        result = self.results.get(key)
        if result is None or not result.scored:
            return UNSCORED
        item = next((i for i in result.items if i.number == number), None)
        if item is None or not item.judged:
            return UNJUDGED
        return MET if item.met else NOT_MET

    def repeat_votes(self, key: Key, number: int, repeats: int) -> tuple[int, ...]:
        """Each repeat's verdict on one item."""
        result = self.results.get(key)
        if result is None or not result.scored:
            return (UNSCORED,) * repeats
        item = next((i for i in result.items if i.number == number), None)
        votes = list(item.votes) if item is not None else []
        votes += [None] * (repeats - len(votes))
        return tuple(UNJUDGED if v is None else (MET if v else NOT_MET) for v in votes)

    @property
    def repeats(self) -> int:
        """How many times the grader graded each encounter (1 without repeats)."""
        return max((len(i.votes) for r in self.results.values() for i in r.items), default=1) or 1


def fingerprint(store: dict[str, Any]) -> str:
    """A digest of the sample's Trajectory (what the grader read)."""
    record = {k: v for k, v in store.items() if k.startswith(STORE_PREFIX)}
    text = json.dumps(record, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def encounter_of(sample: MedspSample) -> Encounter:
    """The encounter a sample recorded."""
    record = sample.metadata.record
    if record is None:
        raise AgreementError(f"sample {sample.id} has no MedSP record in its metadata")
    return Encounter(
        sample_id=sample.id,
        epoch=sample.epoch,
        case_id=record.rubric.case_id,
        fingerprint=fingerprint(sample.store),
        items=record.rubric.items(),
        store=sample.store,
    )


def read_graded(path: str) -> GradedLog:
    """One MedSP log's encounters and verdicts.

    Raises:
        AgreementError: The file is not a readable MedSP log.
    """
    if not Path(path).is_file():
        raise AgreementError(f"{path}: no such log file")
    try:
        run = read_log(path)
    except NotMedSP as err:
        raise NotGraded(f"{path}: {err}") from err
    except Exception as err:
        raise AgreementError(f"{path}: not a readable Inspect log ({type(err).__name__})") from err
    encounters: dict[Key, Encounter] = {}
    results: dict[Key, MedspSample] = {}
    for sample in run.samples:
        encounter = encounter_of(sample)
        encounters[encounter.key] = encounter
        results[encounter.key] = sample
    return GradedLog(
        path=path,
        name=Path(path).name,
        clinician=run.model,
        grader=run.grader,
        encounters=encounters,
        results=results,
    )


def read_inputs(inputs: Sequence[str]) -> tuple[list[GradedLog], list[str]]:
    """The graded logs of ``inputs``, in order: a file is one log; a folder is every log
    under it, oldest first, found as ``medsp-report`` finds them. A log in a folder that is
    not a graded MedSP run (another task's, or not scored) is left out with a warning; a file
    named on the command line must be one.

    Returns:
        The logs, and one warning per log left out.

    Raises:
        AgreementError: An input does not exist, a folder holds no Inspect log or no graded
            MedSP log, or a log cannot be read.
    """
    logs: list[GradedLog] = []
    warnings: list[str] = []
    for item in inputs:
        if not Path(item).is_dir():
            logs.append(read_graded(item))
            continue
        paths, problems = find_logs([item])
        if problems:
            raise AgreementError(problems[0].line())
        found = len(logs)
        for path in paths:
            try:
                logs.append(read_graded(path))
            except NotGraded as err:
                warnings.append(f"{err}; left out")
        if len(logs) == found:
            raise AgreementError(
                f"{item}: none of its {len(paths)} Inspect logs is a graded MedSP run"
            )
    return logs, warnings


def shared_encounters(logs: Sequence[GradedLog]) -> tuple[list[Key], int]:
    """The encounters every log graded, and how many others some log has.

    Raises:
        AgreementError: Two logs hold different encounters under the same sample id and
            epoch, or share none.
    """
    first = logs[0]
    for other in logs[1:]:
        common = first.encounters.keys() & other.encounters.keys()
        if not common:
            raise AgreementError(
                f"{other.path} shares no encounter (sample id and epoch) with {first.path}: "
                "compare a run only with its re-grades (inspect score LOG --model-role grader=...)"
            )
        for key in sorted(common):
            if first.encounters[key].fingerprint != other.encounters[key].fingerprint:
                raise AgreementError(
                    f"{other.path} graded a different encounter than {first.path} "
                    f"({key[0]} epoch {key[1]}: the recorded Trajectory differs); compare a run "
                    "only with its re-grades (inspect score LOG --model-role grader=...)"
                )
    keys = set(first.encounters)
    for other in logs[1:]:
        keys &= set(other.encounters)
    everything = set().union(*(log.encounters for log in logs))
    return sorted(keys), len(everything - keys)


class ItemRow(NamedTuple):
    """One item of one encounter with every rater's vote."""

    sample_id: str
    epoch: int
    case_id: str
    number: int
    competency: str
    text: str
    votes: tuple[int, ...]


class Comparison(BaseModel):
    """A set of raters and their votes on the items they were all asked about."""

    name: str
    kind: str
    raters: list[str]
    rows: list[ItemRow]


def graders_comparison(
    logs: Sequence[GradedLog], keys: Sequence[Key], name: str = "graders"
) -> Comparison:
    """One rater per log (its majority verdict when it graded several times)."""
    rows = [
        ItemRow(
            *key,
            enc.case_id,
            i.number,
            i.competency,
            i.text,
            tuple(log.vote(key, i.number) for log in logs),
        )
        for key in keys
        for enc in [logs[0].encounters[key]]
        for i in enc.items
    ]
    return Comparison(name=name, kind="graders", raters=[log.label for log in logs], rows=rows)


def repeats_comparison(log: GradedLog) -> Comparison | None:
    """The repeats of a log graded with ``samples=k`` as k raters; None without repeats."""
    k = log.repeats
    if k < 2:
        return None
    rows = [
        ItemRow(
            *key, enc.case_id, i.number, i.competency, i.text, log.repeat_votes(key, i.number, k)
        )
        for key, enc in sorted(log.encounters.items())
        for i in enc.items
    ]
    return Comparison(
        name=f"repeats of {log.name}",
        kind="repeats",
        raters=[f"repeat {r + 1}" for r in range(k)],
        rows=rows,
    )
