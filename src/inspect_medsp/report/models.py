"""What the report makes of a MedSP log (read through ``inspect_medsp.record``)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from inspect_medsp.record.score import ItemVerdict
from inspect_medsp.record.trajectory import ROLE_NAMES, ReplyHealth

ROLES: tuple[str, ...] = ROLE_NAMES
"""The encounter roles whose replies are counted in the Trajectory's health."""


class SampleResult(BaseModel):
    """One sample (scenario and epoch) of a MedSP run."""

    id: str
    epoch: int = 1
    case_id: str = ""
    specialty: str | None = None
    specialty_source: str | None = None
    """``data`` or the model that classified the scenario (None when it has no specialty)."""
    case_meta: dict[str, str] = Field(default_factory=dict)
    """Case metadata the sample carries (department, urgency, patient facts), non-empty only."""
    error: str | None = None
    scored: bool = False
    unscored: str | None = None
    """Why the scorer could not score this sample (Inspect's unscored score), if so."""
    values: dict[str, float] = Field(default_factory=dict)
    """``overall`` and each competency the scenario's rubric has."""
    counts: dict[str, tuple[int, int]] = Field(default_factory=dict)
    """Completed and total items, overall and per competency."""
    items: list[ItemVerdict] = Field(default_factory=list)
    unjudged: int = 0
    grader: str | None = None
    end: str | None = None
    turns: int | None = None
    refused_turns: int = 0
    """Clinician turns its provider refused (content filter)."""
    health: dict[str, ReplyHealth] = Field(default_factory=dict)
    tokens: dict[str, int] = Field(default_factory=dict)
    """Total tokens by role; ``clinician`` is what the roles' usage leaves of the whole."""
    clinician_input_tokens: int | None = None
    """Input tokens the clinician model read over the encounter (cache reads included)."""
    turn_seconds: list[float] = Field(default_factory=list)
    """Seconds the clinician took for each recorded turn that has a time (a person's thinking
    time for ``medsp/human``, the model calls' time for a model)."""


class RunLog(BaseModel):
    """One Inspect log of a MedSP task."""

    path: str
    name: str
    task: str
    created: str
    status: str
    clinician: str
    strategy: str
    protocol: str
    judge: str
    data_revision: str | None = None
    rubric_revision: str | None = None
    metrics: dict[str, float] | None = None
    """The log's own metrics for the ``medsp_rubric`` score (None if it has none)."""
    published: int | None = None
    """Scenarios of the run's task as published (None for a task of another name)."""
    samples: list[SampleResult] = Field(default_factory=list)

    @property
    def label(self) -> str:
        """The run as a reader knows it: clinician model, strategy and judge (not the file)."""
        parts = [self.clinician, f"strategy {self.strategy}"]
        if self.protocol != "turns":
            parts.append(f"protocol {self.protocol}")
        parts.append(f"judge {self.judge}")
        return ", ".join(parts)

    @property
    def scenario_ids(self) -> set[str]:
        """Every scenario the run attempted."""
        return {s.id for s in self.samples}

    @property
    def scored_ids(self) -> set[str]:
        """The scenarios with a rubric score."""
        return {s.id for s in self.samples if s.scored}


class Problem(BaseModel):
    """An input that could not be reported."""

    path: str
    message: str

    def line(self) -> str:
        """One line for stderr and the report."""
        text = " ".join(self.message.split())
        if len(text) > 240:
            text = text[:237] + "..."
        return f"{self.path}: {text}"
