"""The strategy log: one typed entry per clinician strategy step (``Trajectory.strategy_log``).

Optional fields are left out of the stored JSON when unset (the store drops ``None``), so an
entry is stored exactly as the dictionaries it replaces were.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from inspect_medsp.record.replies import ClinicianReply, ReplyOutcome

Vote = Literal["agree", "disagree", "abstain"]
"""A specialist's vote on a proposed turn (``abstain`` when its reply was unusable)."""


class CallSpend(BaseModel):
    """One model call a step made, and its tokens."""

    kind: str
    tokens: int
    index: int | None = None
    """The candidate's number (best-of-N)."""
    specialty: str | None = None
    """The specialist who was consulted (MedAgents)."""


class Spend(BaseModel):
    """What a step cost: its calls, their tokens, and each call."""

    calls: int = 0
    tokens: int = 0
    per_call: list[CallSpend] = Field(default_factory=list)


class Draft(BaseModel):
    """A clinician turn a strategy drafted, and how its reply was obtained."""

    reply: ClinicianReply
    outcome: ReplyOutcome
    retries: int


class Candidate(BaseModel):
    """One best-of-N candidate."""

    index: int
    reply: ClinicianReply
    outcome: ReplyOutcome
    retries: int
    tokens: int


class Selection(BaseModel):
    """The best-of-N selection call (only ``called`` when there was one candidate)."""

    called: bool
    raw: str | None = None
    fallback: bool | None = None
    problem: str | None = None
    tokens: int | None = None


class BestOfNTurn(Spend):
    """A best-of-N turn: the candidates, the selection, the one chosen."""

    strategy: Literal["bon"] = "bon"
    turn: int
    kind: Literal["turn"] = "turn"
    candidates: list[Candidate]
    chosen: int
    reason: str
    selection: Selection


class PanelReading(BaseModel):
    """How the clinician model's naming of the panel was read."""

    raw: str
    named: int
    trimmed: int
    padded: int
    fallback: bool
    problem: str


class PanelFormed(Spend, PanelReading):
    """The MedAgents panel, named once per case before its first turn."""

    strategy: Literal["medagents"] = "medagents"
    turn: int
    kind: Literal["specialties"] = "specialties"
    specialties: list[str]


class Advice(BaseModel):
    """One specialist's advice for the coming turn."""

    specialty: str
    advice: str
    tokens: int


class SpecialistVote(BaseModel):
    """One specialist's vote on a proposed turn."""

    specialty: str
    verdict: Vote
    advice: str
    problem: str
    raw: str
    tokens: int


class ConsensusRound(BaseModel):
    """One voting round, and the revision it caused if anyone disagreed."""

    round: int
    votes: list[SpecialistVote]
    dissent: list[str]
    revision: Draft | None = None


class MedAgentsTurn(Spend):
    """A MedAgents turn: advice, synthesis, consensus rounds and the turn returned."""

    strategy: Literal["medagents"] = "medagents"
    turn: int
    kind: Literal["turn"] = "turn"
    specialties: list[str]
    advice: list[Advice]
    synthesis: Draft
    rounds: list[ConsensusRound]
    final: ClinicianReply
    revised: bool


StrategyStep = BestOfNTurn | PanelFormed | MedAgentsTurn
"""One entry of the strategy log."""
