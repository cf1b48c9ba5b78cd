"""The scripts the scripted provider plays: one JSON file per demo scenario under ``scripts/``.

A script lists, turn by turn, what the clinician does, what the patient side says and what the
environment reports (including the stage after the turn), and for the grader the evidence
phrases that make each rubric item met, keyed ``"[n]"`` under its competency.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.data import Competency
from inspect_medsp.record import ActionStatus

SCRIPTS_PACKAGE = "inspect_medsp.scripted"


class ClinicianTurn(BaseModel):
    """The clinician's reply in one turn."""

    model_config = ConfigDict(extra="forbid")

    speak: str
    actions: list[str] = Field(default_factory=list)
    eos: bool = False


class PatientTurn(BaseModel):
    """The patient side's reply in one turn."""

    model_config = ConfigDict(extra="forbid")

    speak: list[str]
    actors_present: dict[str, str] = Field(default_factory=dict)


class EnvironmentTurn(BaseModel):
    """The environment's reply in one turn; ``stage`` and ``label`` are the state after it."""

    model_config = ConfigDict(extra="forbid")

    feedback: list[str] = Field(default_factory=list)
    events: list[str] = Field(default_factory=list)
    actors_present: dict[str, str] = Field(default_factory=dict)
    patient_status: str
    stage: int
    label: str
    statuses: list[ActionStatus] = Field(default_factory=list)
    """Status of each clinician action of the same turn, in order (default ``executed``)."""
    should_end: bool = False
    completion_reason: str = ""


class ScriptTurn(BaseModel):
    """Everything scripted for one turn."""

    model_config = ConfigDict(extra="forbid")

    clinician: ClinicianTurn
    patient: PatientTurn
    environment: EnvironmentTurn


class Slip(BaseModel):
    """A simulator error the scripted auditor knows to look for: when ``phrase`` is in a
    line of ``role`` in the record it is reviewing, it reports a finding of ``kind``."""

    model_config = ConfigDict(extra="forbid")

    phrase: str
    role: Literal["patient", "environment"]
    kind: str
    severity: Literal["minor", "invalidating"]
    contradicts: str = "not in the materials"
    why: str = ""


class ScenarioScript(BaseModel):
    """One demo scenario's script."""

    model_config = ConfigDict(extra="forbid")

    scenario: str
    summary: str
    turns: list[ScriptTurn]
    grader: dict[Competency, dict[str, list[str]]]
    """Evidence phrases per item: ``{"PC": {"[1]": ["phrase", ...]}}``. An item is met when
    any of its phrases occurs in the record the grader receives."""
    auditor: list[Slip] = Field(default_factory=list)
    """Simulator errors the scripted auditor reports when it finds them in a record (the
    scripted patient and environment never make them: tests plant them in a log)."""

    def evidence(self) -> dict[int, list[str]]:
        """Evidence phrases by item number."""
        return {
            int(key.strip("[] ")): phrases
            for section in self.grader.values()
            for key, phrases in section.items()
        }


@cache
def load_scripts() -> dict[str, ScenarioScript]:
    """Every shipped script, by scenario id."""
    folder = files(SCRIPTS_PACKAGE).joinpath("scripts")
    scripts = [
        ScenarioScript.model_validate_json(entry.read_text(encoding="utf-8"))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    ]
    return {s.scenario: s for s in scripts}
