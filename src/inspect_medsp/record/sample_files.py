"""The samples of an ``.eval`` log as plain JSON, in one pass over its zip: what
:func:`inspect_medsp.record.read.read_log` types.

Inspect's sample reader opens the file again for every sample and streams each one's events
(the bulk of a log) through a JSON event parser to leave them out; a full-set log of 1,548
samples took it some 24 s of CPU. Here the zip is opened once and each sample's JSON is parsed
by pydantic's parser into the few fields the typed sample keeps (``_Sample``): messages,
events (unless asked for, and then only their kind and role), attachments and the output are
skipped inside the parser, and the scenario's frozen record in the metadata is dropped when not
asked for. The fields kept are the same values Inspect's reader would give.

A *lean* read (the report's) keeps less: of the store only the encounter's turn count,
refusals, times, end and reply health (``parts.RecordedEncounter``; the sample's ``store`` is
empty and it has no ``trajectory``), no scenario record, no score explanation, and no grader
evidence, reasoning or conflicts in the rubric score's metadata. A full-set log so read takes
a tenth of the memory.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog
from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp._inspect import zstd_zipfile
from inspect_medsp.data import METADATA_KEY
from inspect_medsp.record.score import SCORER

CLINICIAN = "clinician"
"""The name of the model without a role in per-role counts (``read.CLINICIAN``)."""

SAMPLES_DIR = "samples/"


class _Event(BaseModel):
    """What the per-role call counts read of an event."""

    model_config = ConfigDict(extra="ignore")

    event: str = ""
    role: str | None = None


class _Sample(BaseModel):
    """The fields of a logged sample that ``read_log`` types; parsed straight from the file's
    JSON, so every other field (messages, events, attachments: the bulk) is skipped by the
    parser without becoming Python objects."""

    model_config = ConfigDict(extra="ignore")

    id: str | int
    epoch: int = 1
    metadata: dict[str, Any] = Field(default_factory=dict)
    store: dict[str, Any] = Field(default_factory=dict)
    scores: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    model_usage: dict[str, Any] = Field(default_factory=dict)
    role_usage: dict[str, Any] = Field(default_factory=dict)


class _SampleWithEvents(_Sample):
    events: list[_Event] = Field(default_factory=list)


class _Turn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    refused: bool = False
    clinician_seconds: float | None = None


class _LeanStore(BaseModel):
    """The store's encounter as the report reads it: the turns' refusals and times, the end
    and the reply health (the turns' words are skipped by the parser)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    turns: list[_Turn] | None = Field(default=None, alias="Trajectory:turns")
    end: str | None = Field(default=None, alias="Trajectory:end")
    health: dict[str, Any] | None = Field(default=None, alias="Trajectory:health")


class _LeanScore(BaseModel):
    """A score without its explanation (the report does not show it)."""

    model_config = ConfigDict(extra="allow")

    value: Any = None
    answer: str | None = None
    explanation: str | None = Field(default=None, exclude=True)
    """Named so that the extras allowed do not keep it."""
    metadata: dict[str, Any] | None = None


class _LeanSample(_Sample):
    store: _LeanStore = Field(default_factory=_LeanStore)  # type: ignore[assignment]
    scores: dict[str, _LeanScore] | None = None


class _LeanSampleWithEvents(_LeanSample):
    events: list[_Event] = Field(default_factory=list)


def model_calls(events: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Model calls per role of a sample's events (``clinician`` for the model without one)."""
    calls: dict[str, int] = {}
    for event in events:
        if event.get("event") == "model":
            key = event.get("role") or CLINICIAN
            calls[key] = calls.get(key, 0) + 1
    return calls


LEAN_ITEM_DROPS = ("evidence",)
LEAN_METADATA_DROPS = ("reasoning", "conflicts")
"""What a lean read leaves out of the rubric score's metadata (``medsp_rubric`` and its
re-grades), no other scorer's: the grader's words."""


def _open(path: str) -> zipfile.ZipFile | None:
    """The log's zip (zstd as Inspect writes it), or None for a log that is not a local zip."""
    if not zstd_zipfile():  # adds zstd to zipfile, as Inspect reads it (_inspect.py)
        return None
    if not Path(path).is_file() or not zipfile.is_zipfile(path):
        return None
    return zipfile.ZipFile(path)


def _lean(sample: _LeanSample, records: bool) -> dict[str, Any]:
    data = sample.model_dump(exclude_none=True, exclude={"store"}, by_alias=False)
    data["store"] = {}
    data["lean"] = True
    events = data.pop("events", None)
    if events:  # their kinds and roles, counted here (as ``read.sample_of`` counts them)
        data["calls"] = model_calls(events)
    found = sample.store
    if found.turns is not None:
        encounter: dict[str, Any] = {"turns": [t.model_dump() for t in found.turns]}
        if found.end is not None:
            encounter["end"] = found.end
        if found.health is not None:
            encounter["health"] = found.health
        data["encounter"] = encounter
    if not records:
        data["metadata"].pop(METADATA_KEY, None)
    for name, score in (data.get("scores") or {}).items():
        metadata = score.get("metadata")
        # only the rubric's gradings (the run's and any re-grade) are made lean: another
        # scorer's result is read whole, as its own type
        if not name.startswith(SCORER) or not isinstance(metadata, dict):
            continue
        for key in LEAN_METADATA_DROPS:
            metadata.pop(key, None)
        for item in metadata.get("items") or []:
            if isinstance(item, dict):
                for key in LEAN_ITEM_DROPS:
                    item.pop(key, None)
    return data


def sample_dicts(
    path: str,
    header: EvalLog,
    *,
    events: bool = False,
    lean: bool = False,
    records: bool = False,
) -> list[dict[str, Any]] | None:
    """Every sample of the ``.eval`` log at ``path`` as JSON (the fields ``read_log`` types,
    and ``events`` as event kinds and roles when asked for: a lean read keeps only their
    count per role, as ``calls``), in the header's order of sample ids and epochs (any others
    after them); None when ``path`` is not a local zip (a ``.json`` log, a remote one): then
    read it with Inspect's reader. ``records``: a lean read keeps the scenario's record in
    the metadata (for a digest made in the worker that parses the log, then dropped)."""
    archive = _open(path)
    if archive is None:
        return None
    kind: type[_Sample]
    if lean:
        kind = _LeanSampleWithEvents if events else _LeanSample
    else:
        kind = _SampleWithEvents if events else _Sample
    found: list[dict[str, Any]] = []
    with archive:
        for info in archive.infolist():
            name = info.filename
            if not name.startswith(SAMPLES_DIR) or not name.endswith(".json"):
                continue
            sample = kind.model_validate_json(archive.read(info))
            if isinstance(sample, _LeanSample):
                found.append(_lean(sample, records))
            else:
                found.append(sample.model_dump(exclude_none=True))
    order = {str(sid): i for i, sid in enumerate(header.eval.dataset.sample_ids or [])}
    found.sort(key=lambda d: (order.get(str(d["id"]), len(order)), str(d["id"]), d["epoch"]))
    return found
