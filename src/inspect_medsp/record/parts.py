"""The parts of a typed sample (``record.sample.MedspSample``): its metadata, its recorded
encounter as the report reads it, and its MedSP score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from inspect_medsp.data import (
    BASELINE,
    CASE_META_FIELDS,
    METADATA_KEY,
    PUBLISHED_KEY,
    SampleRecord,
)
from inspect_medsp.record.score import ScoreMetadata, ScoreValue
from inspect_medsp.record.trajectory import ROLE_NAMES, EndReason, ReplyHealth, Trajectory


class SampleMetadata(BaseModel):
    """A MedSP sample's metadata: its ids, its case's metadata and its whole record."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    case_id: str | None = None
    scenario: str | None = None
    rubric_items: int | None = None
    published_scenarios: int | None = Field(
        default=None, validation_alias=PUBLISHED_KEY, serialization_alias=PUBLISHED_KEY
    )
    """Scenarios of the sample's task as published (absent for a task of another name)."""
    specialty: str | None = None
    """The scenario's specialty (from the data or a specialties file), if labelled."""
    specialty_source: str | None = None
    """``data``, or the model that classified the scenario."""
    variant: str = BASELINE
    """The patient variant played (``-T variants=``; ``baseline``, the case as published,
    for a sample of a run made without variants)."""
    record: SampleRecord | None = Field(
        default=None, validation_alias=METADATA_KEY, serialization_alias=METADATA_KEY
    )
    """The scenario and its frozen rubric (``medsp``)."""

    @classmethod
    def read_summary(cls, metadata: Mapping[str, Any] | None) -> SampleMetadata:
        """The metadata as Inspect's sample summary keeps it (without the record, which it
        drops for its size)."""
        return cls.model_validate({k: v for k, v in (metadata or {}).items() if k != METADATA_KEY})

    def case_meta(self) -> dict[str, str]:
        """The case metadata the sample carries (department, urgency ...), non-empty only."""
        extra = self.model_extra or {}
        return {k: str(extra[k]) for k in CASE_META_FIELDS if extra.get(k)}


class TurnTiming(BaseModel):
    """What the per-sample properties read of a recorded turn (``TurnRecord``'s fields)."""

    model_config = ConfigDict(extra="ignore")

    refused: bool = False
    clinician_seconds: float | None = None


TurnRow = tuple[bool, float | None]
"""A recorded turn as the report reads it: refused, and the clinician's seconds."""


class RecordedEncounter(BaseModel):
    """What the per-sample properties read of the store's Trajectory, as plain data (its
    turns' words are not validated: the report counts turns and times them). Each turn is
    validated as a :class:`TurnTiming` and kept as a :data:`TurnRow` (a full-set sweep holds
    some 90,000 turns)."""

    turns: tuple[TurnRow, ...] = ()
    end: EndReason = "running"
    health: dict[str, ReplyHealth] = Field(
        default_factory=lambda: {str(r): ReplyHealth() for r in ROLE_NAMES}
    )

    @field_validator("turns", mode="before")
    @classmethod
    def _rows(cls, turns: Any) -> Any:
        if not isinstance(turns, list | tuple):
            return turns
        rows = []
        for turn in turns:
            t = turn if isinstance(turn, TurnTiming) else TurnTiming.model_validate(turn)
            rows.append((t.refused, t.clinician_seconds))
        return rows

    @classmethod
    def of(cls, store: Mapping[str, Any]) -> RecordedEncounter | None:
        """The encounter a store holds (None when it holds no Trajectory's turns)."""
        prefix = f"{Trajectory.__name__}:"
        if f"{prefix}turns" not in store:
            return None
        found = {n: store[f"{prefix}{n}"] for n in cls.model_fields if f"{prefix}{n}" in store}
        return cls.model_validate(found)


class MedspScore(BaseModel):
    """A sample's MedSP score: its value (None when unscored) and its metadata."""

    value: ScoreValue | None
    metadata: ScoreMetadata
    reason: str | None = None
    """Why it is unscored (Inspect's unscored reason, else the metadata's)."""

    @property
    def scored(self) -> bool:
        return self.value is not None
