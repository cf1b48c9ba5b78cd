"""What the report is made from: :class:`Analysis`, the groups with what each view works out
over them (the health of each run, the rubric items missed, completion by specialty, by input
length, by case metadata and by strategy). The views compute these rows
(:func:`inspect_medsp.report.build.analyse` calls them) and draw their text, tables and figures
from them."""

from __future__ import annotations

from pydantic import BaseModel, Field

from inspect_medsp.record import MedspRun, ReplyHealth
from inspect_medsp.report.groups import GroupSummary, MacroCell
from inspect_medsp.report.problem import Problem
from inspect_medsp.stats import Comparison


class RunHealth(BaseModel):
    """Whether one run's score can be read as the clinician model's."""

    run: str
    path: str
    group: str
    label: str = ""
    """The run by clinician model, strategy and judge (numbered when several runs share it)."""
    status: str
    samples: int
    scored: int
    errored: int
    unscored: dict[str, str] = Field(default_factory=dict)
    """Samples Inspect counts as unscored, with the reason."""
    items: int
    unjudged: int
    roles: dict[str, ReplyHealth]
    ends: dict[str, int]
    refused_turns: int = 0
    """Clinician turns its provider refused (content filter), graded as nothing done."""
    refused_encounters: int = 0
    """Samples with at least one refused clinician turn."""
    mean_turns: float | None
    tokens: dict[str, float]
    """Mean total tokens per sample, by role."""
    replaced: list[str] = Field(default_factory=list)
    """Samples not scored here that another run of the group scored (a re-run): no flag."""
    flags: list[str] = Field(default_factory=list)

    @property
    def context_exhausted(self) -> int:
        """Encounters that ended because the clinician's prompt no longer fit its window."""
        return self.ends.get("context_exhausted", 0)

    def provider_stops(self) -> str:
        """What the clinician model's provider did to the run, in words (empty: nothing)."""
        parts: list[str] = []
        if self.context_exhausted:
            parts.append(f"{self.context_exhausted} encounter(s) ended with its context full")
        if self.refused_turns:
            parts.append(
                f"{self.refused_turns} turn(s) refused in {self.refused_encounters} encounter(s)"
            )
        cut = self.roles.get("clinician", ReplyHealth()).truncated
        if cut:
            parts.append(f"{cut} reply attempt(s) cut off at the token limit")
        return "; ".join(parts)

    def degraded_share(self, role: str) -> float | None:
        health = self.roles.get(role)
        if health is None or health.total == 0:
            return None
        return health.degraded / health.total


class MissedItem(BaseModel):
    """A rubric item (by competency and normalised text) across a group's scenarios."""

    group: str
    competency: str
    text: str
    seen: int
    missed: int
    unjudged: int
    scenarios: list[str]


class SpecialtyScore(BaseModel):
    """One group's macro completion in one specialty (``mean`` is the macro)."""

    group: str
    specialty: str
    mean: float
    n: int
    scenarios: int
    cases: int
    ci_low: float
    ci_high: float
    small: bool
    """Fewer than :data:`SMALL_SPECIALTY` scored scenarios: read with care."""
    sources: str
    """Where the labels came from, e.g. ``data`` or ``mockllm/model``, joined by ``; ``."""


class TokenBin(BaseModel):
    """One group's macro in one bin of the clinician's input tokens (thousands)."""

    group: str
    bin: int
    low_k: float
    high_k: float
    mean_k: float
    """The group's mean input length in the bin, in thousands of tokens."""
    n: int
    macro: float
    ci_low: float
    ci_high: float


class Breakdown(MacroCell):
    """One group's macro in one category of one case-metadata field."""

    field: str
    category: str


class StrategyCell(BaseModel):
    """One competency's macro for one group, in a comparison of test-time strategies."""

    group: str
    clinician: str
    strategy: str
    competency: str
    macro: float | None


class Analysis(BaseModel):
    """Everything the tables, charts and text are made from."""

    runs: list[MedspRun]
    groups: list[GroupSummary]
    health: list[RunHealth]
    missed: list[MissedItem]
    specialties: list[SpecialtyScore]
    specialty_sources: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Scenarios by the source of their specialty label, per group."""
    token_bins: list[TokenBin] = Field(default_factory=list)
    breakdowns: list[Breakdown] = Field(default_factory=list)
    strategy: list[StrategyCell] = Field(default_factory=list)
    shared_ids: list[str]
    """The scenarios every group scored (none when the groups ran different case sets)."""
    shared_by_set: dict[str, list[str]] = Field(default_factory=dict)
    """The scenarios every group of a case set scored, by :attr:`CaseSet.key`."""
    comparisons: list[Comparison] = Field(default_factory=list)
    """Paired differences b - a of every pair of groups (leaderboard order), per competency."""
    left_out: list[str] = Field(default_factory=list)
    """Groups left out of the shared-scenario comparison because nothing of theirs was scored."""
    flags: list[str]
    notes: list[str]
    problems: list[Problem]
    read_by: dict[str, str] = Field(default_factory=dict)
    """The inputs that are not MedSP runs but a section reads (path: the section's name,
    ``Section.reads``); not among :attr:`problems`."""
