"""What the simulator audit finds, as typed records kept in its score's metadata, and the
auditor's reply contract."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from inspect_medsp.record import RoleSpend, ScorerResult

AuditedRole = Literal["patient", "environment"]
Severity = Literal["minor", "invalidating"]
AuditVerdict = Literal["faithful", "minor", "invalidating"]

KINDS: dict[AuditedRole, dict[str, str]] = {
    "patient": {
        "volunteered": "information given without being asked",
        "not_in_script": "a fact the script does not have",
        "meta_talk": "talk about the simulation, the exam or the model",
        "broke_character": "stepped out of the character",
        "beyond_character": "medical knowledge the character would not have",
        "persona_not_played": "ignored the patient variant's instructions (how to speak, "
        "or who answers)",
    },
    "environment": {
        "result_not_in_materials": "a finding or result the materials do not contain",
        "hint": "a hint about what the clinician should do next",
        "unsupported_resulted": "a result for an action outside the materials "
        "(it should have been marked unsupported)",
        "unjustified_state_change": "a state change the materials do not justify",
    },
}
"""The finding kinds the auditor may report, per audited role, with what each means."""

AUDIT_SCORER = "medsp_simulation_audit"
"""The name of the simulator audit's score in ``sample.scores``."""

NOT_IN_MATERIALS = "not in the materials"

AUDIT_KEYS: tuple[str, ...] = (
    "invalidating",
    "flagged",
    "findings",
    "patient_findings",
    "environment_findings",
    "invalidating_findings",
    "corrections",
    "unsupported_actions",
    "degraded_replies",
)
"""The audit's figures: ``invalidating`` / ``flagged`` are 1 when the verdict is
``invalidating`` / not ``faithful``; the rest are counts for the encounter. A re-audit appended
to a log that has one (``medsp_simulation_audit1``) numbers them: ``findings_1``."""


AUDIT_HEADLINES: tuple[str, ...] = ("findings", "invalidating")
"""The keys the audit's score value holds (the samples grid's columns); every key of
:data:`AUDIT_KEYS` is in its metadata's ``figures`` (``record.score.FIGURES``)."""


class Finding(BaseModel):
    """One simulator error: where, what kind, the quoted words and the passage it breaks."""

    turn: int
    role: AuditedRole
    kind: str
    quote: str
    contradicts: str = NOT_IN_MATERIALS
    """The packet passage the words contradict, or ``not in the materials``."""
    severity: Severity
    why: str = ""


class RawFinding(BaseModel):
    """A finding as the auditor wrote it, before it is checked against the record."""

    model_config = ConfigDict(extra="ignore")

    turn: int | str | None = None
    role: str = ""
    kind: str = ""
    quote: str = ""
    contradicts: str = ""
    severity: str = ""
    why: str = ""

    @field_validator("role", "kind", "quote", "contradicts", "severity", "why", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return "" if value is None else value if isinstance(value, str) else str(value)


class AuditReply(BaseModel):
    """The auditor's reply: its findings and a short summary."""

    model_config = ConfigDict(extra="ignore")

    findings: list[RawFinding] = Field(default_factory=list)
    summary: str = ""

    @field_validator("findings", mode="before")
    @classmethod
    def _list(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, dict) else value

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, value: Any) -> Any:
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
        return "" if value is None else value


class Rejected(BaseModel):
    """A finding the auditor gave that could not be placed in the record, and why."""

    finding: RawFinding
    reason: str


class HarnessCounts(BaseModel):
    """What the harness knows about the simulators without any model."""

    corrections: int = 0
    """State-rule corrections: the controller moved the stage in a way the protocol forbids."""
    unsupported_actions: int = 0
    """Clinician actions the controller marked unsupported (or did not assess)."""
    degraded: dict[str, int] = Field(default_factory=dict)
    """Replies per role that were not the role's JSON after the retries."""


class SimulationAudit(ScorerResult):
    """One encounter's audit: the score metadata of ``medsp_simulation_audit``."""

    scorer: ClassVar[str] = AUDIT_SCORER

    verdict: AuditVerdict
    findings: list[Finding] = Field(default_factory=list)
    rejected: list[Rejected] = Field(default_factory=list)
    harness: HarnessCounts = Field(default_factory=HarnessCounts)
    summary: str = ""
    auditor: str = ""
    turns: int = 0
    retries: int = 0
    usage: dict[str, RoleSpend] = Field(default_factory=dict)
    """Model calls and tokens of the audit, per role (see ``record/usage.py``)."""
    rescored: bool = False
    """Made by ``inspect score`` after the eval: its ``usage`` is not in the sample's own."""

    def count(self, **match: str) -> int:
        """Findings whose fields equal every value given (e.g. ``role="patient"``)."""
        return sum(all(getattr(f, k) == v for k, v in match.items()) for f in self.findings)


def verdict_of(findings: list[Finding]) -> AuditVerdict:
    """``invalidating`` if any finding is, else ``minor`` if there is any, else ``faithful``."""
    if any(f.severity == "invalidating" for f in findings):
        return "invalidating"
    return "minor" if findings else "faithful"
