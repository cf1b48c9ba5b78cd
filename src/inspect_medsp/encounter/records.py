"""The Trajectory: the one record an encounter writes and the scorer and report read."""

from __future__ import annotations

from typing import Literal

from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field

from inspect_medsp.encounter.replies import (
    ActionStatus,
    ClinicianReply,
    EnvironmentReply,
    PatientReply,
)

RoleName = Literal["clinician", "patient", "environment"]
ROLE_NAMES: tuple[RoleName, ...] = ("clinician", "patient", "environment")

INITIAL_LABEL = "initial_assessment"
INITIAL_STATUS = "not assessed"

EntryKind = Literal[
    "clinician_speech", "clinician_action", "patient", "environment_feedback", "system_event"
]
EndReason = Literal[
    "should_end", "turn_limit", "agent_stopped", "running", "limit", "error", "cancelled"
]
"""How the encounter ended: ``running`` while it is played; one of :data:`COMPLETE_ENDS` when
it ended as the protocol allows; ``limit`` (an Inspect message, token, time or working limit),
``error`` (an exception, such as a model error) or ``cancelled`` when it was cut short."""

COMPLETE_ENDS: tuple[EndReason, ...] = ("should_end", "turn_limit", "agent_stopped")
"""The ends of an encounter played as the protocol allows; any other end is cut short."""


class ReplyHealth(BaseModel):
    """How one role's replies fared: clean, repaired, retried, or degraded after retries."""

    clean: int = 0
    repaired: int = 0
    retried: int = 0
    degraded: int = 0

    @property
    def malformed(self) -> int:
        """Replies that were not clean JSON of the contract on the first try."""
        return self.repaired + self.retried


class TranscriptEntry(BaseModel):
    """One line of the encounter as it happened, in order."""

    turn: int
    kind: EntryKind
    speaker: str
    text: str


class ActionRecord(BaseModel):
    """One raw clinician action with the controller's reading of it."""

    turn: int
    raw: str
    interpreted_action: str = ""
    status: ActionStatus = "unsupported"
    rationale: str = ""


class TurnRecord(BaseModel):
    """Everything one turn produced."""

    index: int
    state_label: str
    progress_index: int
    patient_status: str = INITIAL_STATUS
    clinician: ClinicianReply
    patient: PatientReply
    environment: EnvironmentReply
    degraded: list[RoleName] = Field(default_factory=list)
    corrections: list[str] = Field(default_factory=list)


class Trajectory(StoreModel):
    """The recorded encounter (protocol section 4), kept in the sample store.

    Fields are replaced, never mutated in place, so the store always holds the current value.
    """

    protocol: str = "turns"
    max_turns: int = 12
    role_models: dict[str, str] = Field(default_factory=dict)
    turns: list[TurnRecord] = Field(default_factory=list)
    transcript: list[TranscriptEntry] = Field(default_factory=list)
    action_log: list[ActionRecord] = Field(default_factory=list)
    state_history: list[str] = Field(default_factory=lambda: [f"0:{INITIAL_LABEL}"])
    progress_index: int = 0
    state_label: str = INITIAL_LABEL
    patient_status: str = INITIAL_STATUS
    turn_count: int = 0
    end: EndReason = "running"
    end_reason: str = ""
    health: dict[str, ReplyHealth] = Field(
        default_factory=lambda: {str(r): ReplyHealth() for r in ROLE_NAMES}
    )
    strategy: dict[str, str | int | float] = Field(default_factory=dict)
    strategy_log: list[dict[str, object]] = Field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether the encounter ended as the protocol allows (see :data:`COMPLETE_ENDS`)."""
        return self.end in COMPLETE_ENDS
