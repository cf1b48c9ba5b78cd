"""The grader probes as a capability: their columns (which way each flip is good), the
``medsp-report probes`` subcommand and how a re-probe is labelled."""

from __future__ import annotations

from inspect_medsp.measure import Capability, Column, Palette
from inspect_medsp.probes.probes_command import PROBES as PROBES_COMMAND
from inspect_medsp.probes.result import PROBE_HEADLINES, PROBE_KEYS, PROBE_SCORER, GraderProbes
from inspect_medsp.probes.scorer import medsp_grader_probe

_PARTS = {"up": "✗→✓", "down": "✓→✗", "items": "items re-graded"}

SENSITIVE: frozenset[str] = frozenset({"removal_down"})
"""Flips a sensitive grader makes: evidence removed from the record should cost the items
that cited it, so more removal flips ✓→✗ is better. Every other flip (a recital, an injection
or padding moving a verdict, a removal turning an item met) is a grader fooled."""


def probe_label(key: str) -> str:
    """The column label of a probe value key (``removal_down`` → ``Removal ✓→✗``)."""
    probe, _, part = key.rpartition("_")
    return f"{probe.capitalize()} {_PARTS[part]}"


def probe_unit(key: str) -> str:
    """What a flip count of a probe counts (``recital_up`` → ``items flipped ✗→✓``)."""
    return f"items flipped {_PARTS[key.rpartition('_')[2]]}"


def _column(key: str) -> Column:
    if key.endswith("_items"):
        return Column(key, probe_label(key))
    palette: Palette = "good-high" if key in SENSITIVE else "good-low"
    return Column(key, probe_label(key), palette=palette, low=0, unit=probe_unit(key))


GRADER_PROBES = Capability(
    name=PROBE_SCORER,
    scorer=medsp_grader_probe,
    columns=tuple(_column(key) for key in PROBE_KEYS),
    headlines=PROBE_HEADLINES,
    result=GraderProbes,
    rescore="Re-probe",
    commands=(PROBES_COMMAND,),
)
"""The grader probes: appended with ``inspect score --scorer
inspect_medsp/medsp_grader_probe``."""
