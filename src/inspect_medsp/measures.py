"""Every measurement over the record, listed once.

The viewer configuration (``measure.viewer``), the end-of-run hooks, ``analysis.MedspColumns``,
the report's sections, ``medsp-report``'s subcommands, and the tasks' and ``medsp-estimate``'s
``-T`` switches read this list; a new measurement is one more entry here (see "Add a measurement" in
docs/architecture.md).
"""

from __future__ import annotations

from inspect_ai.viewer import ViewerConfig

from inspect_medsp.audit import SIMULATION_AUDIT
from inspect_medsp.contamination import CONTAMINATION
from inspect_medsp.measure import Capability, Switch, medsp_viewer
from inspect_medsp.probes import GRADER_PROBES
from inspect_medsp.scoring import RUBRIC
from inspect_medsp.workup import WORKUP_CAPABILITY

CAPABILITIES: tuple[Capability, ...] = (
    RUBRIC,
    SIMULATION_AUDIT,
    GRADER_PROBES,
    WORKUP_CAPABILITY,
    CONTAMINATION,
)
"""Every capability, the rubric first; the viewer and the report show them in this order."""


def capabilities() -> tuple[Capability, ...]:
    """The registered capabilities as they stand now (read when a task, a report or the
    columns are made, so a registration made after import counts)."""
    return CAPABILITIES


def switches() -> tuple[Switch, ...]:
    """The ``-T`` switches the registered capabilities declare, in registry order: every
    MedSP task and ``medsp-estimate`` take them (``params.TaskParameters.check``)."""
    return tuple(c.switch for c in capabilities() if c.switch is not None)


def viewer() -> ViewerConfig:
    """The viewer configuration of a MedSP task: every registered capability's columns."""
    return medsp_viewer(capabilities())
