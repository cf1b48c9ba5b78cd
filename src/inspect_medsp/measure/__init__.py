"""The seam every measurement over the record plugs into.

- :class:`Kit`: a scorer's skeleton (its checks when made, reading the sample, the unscored
  score, named gradings, metering, re-score numbers).
- :class:`Capability`, :class:`Column` and :class:`Switch`: what a measurement declares in
  its slice; the registry (``inspect_medsp.measures``) lists them.
- :func:`medsp_viewer`: ``inspect view``'s configuration made from the capabilities.
"""

from inspect_medsp.measure.capability import (
    Capability,
    Column,
    LeaderboardRow,
    Palette,
    ReportAnalysis,
    ReportSection,
    Switch,
)
from inspect_medsp.measure.grading import GRADING_TYPE, items_met
from inspect_medsp.measure.kit import Encounter, Kit
from inspect_medsp.measure.viewer import MAX_SCORE_COLUMNS, medsp_viewer

__all__ = [
    "GRADING_TYPE",
    "MAX_SCORE_COLUMNS",
    "Capability",
    "Column",
    "Encounter",
    "Kit",
    "LeaderboardRow",
    "Palette",
    "ReportAnalysis",
    "ReportSection",
    "Switch",
    "items_met",
    "medsp_viewer",
]
