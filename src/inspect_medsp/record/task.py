"""The task metadata of a MedSP log: how the run was set up.

The stored names (``medsp_judge``, ``medsp_protocol`` ...) are the fields' aliases, so logs keep
the names users already meet; a log without ``medsp_schema_version`` was written before the
record seam and reads as :data:`LEGACY_SCHEMA`. A log whose task metadata has no
``medsp_judge`` is not a MedSP run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from inspect_ai.model import GenerateConfig
from pydantic import AliasGenerator, BaseModel, ConfigDict, Field

from inspect_medsp.data import LoadReport
from inspect_medsp.record.shards import MergedParts, ShardRecord

TASK_SCHEMA = 2
"""Version of the task metadata this package writes. 2: written through
:class:`TaskMetadata`; version 1 keys plus ``medsp_schema_version``."""
LEGACY_SCHEMA = 1
"""The version of task metadata with no ``medsp_schema_version``."""


STORED_NAMES: dict[str, str] = {
    "schema_version": "medsp_schema_version",
    "load": "medsp_load",
    "protocol": "medsp_protocol",
    "judge": "medsp_judge",
    "max_turns": "medsp_max_turns",
    "strategy": "medsp_strategy",
    "specialties": "medsp_specialties",
    "shard": "medsp_shard",
    "merged": "medsp_merged",
}
"""The name each field is stored under (a field not listed is stored under its own name)."""


def _stored_name(field: str) -> str:
    return STORED_NAMES.get(field, field)


class TaskMetadata(BaseModel):
    """A MedSP task's metadata (``log.eval.metadata``)."""

    model_config = ConfigDict(
        alias_generator=AliasGenerator(
            validation_alias=_stored_name, serialization_alias=_stored_name
        ),
        validate_by_name=True,
        validate_by_alias=True,
        extra="allow",
    )

    SCHEMA_VERSION: ClassVar[int] = TASK_SCHEMA

    schema_version: int = LEGACY_SCHEMA
    """Version of this metadata (absent before version 2)."""
    load: LoadReport | None = None
    """What the task loaded and what it left out, by reason."""
    protocol: str = "turns"
    """``turns`` (the paper's JSON turns) or ``tools`` (an agent with tools)."""
    judge: str
    """The model for roles not bound with ``--model-role`` (``-T judge``)."""
    max_turns: int | None = None
    """The turn limit of an encounter."""
    strategy: dict[str, str | int | float] = Field(default_factory=dict)
    """The clinician strategy and its settings (``strategy``, ``n``, ``experts`` ...)."""
    data_revision: str | None = None
    """Hub revision of the scenario data (None for a local tree)."""
    rubric_revision: str | None = None
    """Commit of the reference archive the rubrics came from (None for a local copy)."""
    rubric_manifest: str | None = None
    """SHA-256 of the package's manifest of the published rubric files, against which the
    rubrics were checked (None for the bundled demo, which has none of them)."""
    specialties: dict[str, str | None] | None = None
    """The specialties file whose labels the samples carry, if one was given."""
    shard: ShardRecord | None = None
    """The part of the selection this run holds (``-T shard=K/N``), None for a whole run."""
    merged: MergedParts | None = None
    """The parts this log merges (``medsp-report merge``), None for a log as it was run."""

    @classmethod
    def read(cls, metadata: Mapping[str, Any] | None) -> TaskMetadata | None:
        """The metadata of a MedSP log; None for another task's log."""
        if not metadata or STORED_NAMES["judge"] not in metadata:
            return None
        return cls.model_validate(dict(metadata))

    @property
    def strategy_name(self) -> str:
        """The clinician strategy (``off`` when none is recorded)."""
        return str(self.strategy.get("strategy", "off"))

    def stored(self) -> dict[str, Any]:
        """The metadata as the log stores it, under its stored names."""
        return self.model_dump(mode="json", by_alias=True)


Strategy = Literal["off", "single", "bon", "medagents"]


class StrategySettings(BaseModel):
    """How the clinician spends compute per turn (recorded in the log's task metadata)."""

    model_config = ConfigDict(frozen=True)

    strategy: Strategy = "off"
    n: int = Field(default=5, ge=1)
    experts: int = Field(default=5, ge=1)
    consensus_rounds: int = Field(default=1, ge=0)
    sample_temperature: float = Field(default=0.8, ge=0)
    fixed_temperature: float = Field(default=0.0, ge=0)

    def clinician_config(self) -> GenerateConfig:
        """Task-level generation settings for the model under test."""
        if self.strategy == "single":
            return GenerateConfig(temperature=self.fixed_temperature)
        return GenerateConfig()

    def role_config(self) -> GenerateConfig:
        """Generation settings for the patient and environment."""
        if self.strategy == "off":
            return GenerateConfig()
        return GenerateConfig(temperature=self.fixed_temperature)

    def grader_config(self) -> GenerateConfig:
        """Generation settings for the evaluator."""
        return self.role_config()
