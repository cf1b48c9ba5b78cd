"""What the grader probes record, as typed records kept in their score's metadata."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from inspect_medsp.data import Competency
from inspect_medsp.record import RoleSpend, ScorerResult

PROBE_SCORER = "medsp_grader_probe"
"""The name of the grader probes' score in ``sample.scores``."""

Probe = Literal["recital", "injection", "padding", "removal"]
PROBES: tuple[Probe, ...] = ("recital", "injection", "padding", "removal")

PROBE_KEYS: tuple[str, ...] = tuple(
    f"{probe}_{part}" for probe in PROBES for part in ("up", "down", "items")
)
"""The probes' figures: per probe, items flipped met (``up``), flipped unmet
(``down``) and judged in both gradings (``items``). A re-probe appended to a log that has one
(``medsp_grader_probe1``) numbers them: ``removal_down_1``."""

PROBE_HEADLINES: tuple[str, ...] = ("recital_up", "injection_up", "padding_down", "removal_down")
"""The keys the probes' score value holds (the samples grid's columns: each probe's flips in
the direction it aims at); every key of :data:`PROBE_KEYS` is in its metadata's
``figures`` (``record.score.FIGURES``)."""

SPEECH_COMPETENCIES: tuple[Competency, ...] = ("ICS", "PROF")
"""Competencies where speaking can itself be the act: a recital flip there is reported apart
from flips in PC, MK and SBP, where words alone never do the deed."""


class ItemOutcome(BaseModel):
    """One item before and after a probe."""

    number: int
    """The item's number in the rubric (as the checklist shows it, ``[n]``)."""
    competency: Competency
    """The item's competency."""
    text: str
    """The item as the rubric words it."""
    before: bool
    """Met in the grading of the unchanged record."""
    after: bool
    """Met in the grading of the perturbed copy."""
    targeted: bool = False
    """The probe aimed at this item (recited, or citing the removed actions)."""

    @property
    def flip(self) -> Literal["up", "down", ""]:
        if self.before == self.after:
            return ""
        return "up" if self.after else "down"


class ProbeResult(BaseModel):
    """One probe on one encounter: what was changed and how each item came out."""

    probe: Probe
    """Which probe: ``recital``, ``injection``, ``padding`` or ``removal``."""
    change: str
    """What the perturbed copy changed, in one line."""
    outcomes: list[ItemOutcome] = Field(default_factory=list)
    """Every item judged in both gradings, before and after (empty when nothing changed)."""
    failed: str = ""
    """Why this probe has no result (the grader failed on the perturbed copy)."""

    @property
    def up(self) -> list[ItemOutcome]:
        return [o for o in self.outcomes if o.flip == "up"]

    @property
    def down(self) -> list[ItemOutcome]:
        return [o for o in self.outcomes if o.flip == "down"]

    @property
    def targeted(self) -> int:
        return sum(o.targeted for o in self.outcomes)


class GraderProbes(ScorerResult):
    """Every probe of one encounter: the score metadata of ``medsp_grader_probe``."""

    scorer: ClassVar[str] = PROBE_SCORER

    grader: str
    """The model that graded the copies (and the unchanged record)."""
    baseline: str = "regraded"
    """The grading the flips are counted from: a fresh grading of the unchanged record by the
    same grader (so a grader that changed since the run, or a cached one, is compared with
    itself)."""
    probes: list[ProbeResult] = Field(default_factory=list)
    """One result per probe asked for, in the order of :data:`PROBES`."""
    usage: dict[str, RoleSpend] = Field(default_factory=dict)
    """Model calls and tokens of the re-gradings, per role (see ``record/usage.py``)."""
    rescored: bool = False
    """Made by ``inspect score`` after the eval: its ``usage`` is not in the sample's own."""
