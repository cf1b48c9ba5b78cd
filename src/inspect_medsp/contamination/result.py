"""What the contamination scorer stores for a scenario: each probe's measure beside its
control's, and whether it is above the control."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field

from inspect_medsp.contamination.settings import ProbeKind
from inspect_medsp.record import ScorerResult

TASK_KEY = "medsp_contamination"
"""The task's name, and its metadata key that marks a log of the probe."""

CONTAMINATION_SCORER = "medsp_contamination_probe"
"""The scorer's name (its key in ``sample.scores``)."""


class ProbeOutcome(BaseModel):
    """One probe of a scenario, measured on the true case and on its control.

    ``measure`` is the longest run of words in common with the true text (continuation),
    the share of the checklist's items recalled (checklist) or the share of masked values
    guessed exactly (slot); ``overlap`` the share of the true text's n-grams the reply holds
    (continuation only)."""

    name: str
    """``continuation_patient``, ``continuation_environment``, ``continuation_marking``,
    ``checklist`` or ``slot``."""
    kind: ProbeKind
    """The probe: ``continuation``, ``checklist`` or ``slot``."""
    measure: float
    """The probe's measure on the true case."""
    control: float
    """The same measure of the control's reply (against the shuffled case, the same truth
    for the knowledge control, or the unpublished case)."""
    overlap: float | None = None
    """Share of the true text's word n-grams the reply holds (continuation only)."""
    control_overlap: float | None = None
    """The same share for the control (continuation only)."""
    content: float | None = None
    """Share of the passage's unshown content words the reply holds, in any order
    (continuation only): recall in the model's own words."""
    control_content: float | None = None
    """The same share for the control (continuation only)."""
    above: bool
    """Above the control by the thresholds' margins (see ``ProbeSettings``)."""
    below: bool = False
    """The control above the probe by the same margins: the control's own rate of beating
    the probe, the row test's null rate (see ``rowtest.py``)."""
    against: str = "shuffled"
    """The control: ``shuffled`` (the case's content words shuffled), ``knowledge`` (the
    same question with the case's identity removed) or ``unpublished`` (an unpublished
    case)."""
    shown: str
    """The measure and the control in words, for the viewer and the report."""


class Contamination(ScorerResult):
    """The probe's result for one scenario."""

    scorer: ClassVar[str] = CONTAMINATION_SCORER

    outcomes: list[ProbeOutcome] = Field(default_factory=list)
    """Each probe run on the scenario, in the order of ``probes.PROBE_NAMES``."""
    control: str = "shuffled"
    """The control: ``shuffled`` (the continuations' control is the case's content words
    shuffled within it, the checklist's and the slots' the knowledge control) or the id of
    the user's unpublished case asked the same way."""
    not_probed: dict[str, str] = Field(default_factory=dict)
    """Probes this scenario could not have, with why (counted as not probed, never as
    "not recalled")."""

    @property
    def recalled(self) -> list[str]:
        """The probes above the control."""
        return [o.name for o in self.outcomes if o.above]

    @property
    def share_above(self) -> float:
        """Share of the probes run that are above the control."""
        return len(self.recalled) / len(self.outcomes) if self.outcomes else 0.0
