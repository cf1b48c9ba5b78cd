"""How many scenarios each MedSP task has as published: the denominator of "N of M".

A run is comparable with the published numbers (the paper's, and other runs of the same task)
only when it scored every one of them. A data tree that lost scenarios (an unreadable rubric,
a missing role folder), a ``scenarios`` selection, or samples that errored or could not be
scored all make a run cover less, and the run then says so.

The counts are those of the pinned inputs, not of whatever copy a run reads (a damaged copy
must not lower its own bar): ``MedSP1000`` is every scenario of the pinned rubric archive
(:data:`inspect_medsp.data.sources.UPSTREAM_COMMIT`) whose rubric is readable and has items
(1,638 files, 4 unreadable, 86 without items); ``MedSP-Q100`` is the archive's
``subset.json``; ``MedSP-demo`` the bundled demo. The tests recompute each from those files.
"""

from __future__ import annotations

PUBLISHED_SCENARIOS: dict[str, int] = {
    "MedSP1000": 1548,
    "MedSP-Q100": 100,
    "MedSP-demo": 3,
}
"""Scoreable scenarios of each task (by its dataset name) in the pinned inputs."""

PUBLISHED_KEY = "medsp_published_scenarios"
"""Sample metadata key holding the published size of the sample's task, so the run's metrics
(which see samples, not the task) and a re-score can say "N of M"."""


def published_scenarios(name: str) -> int | None:
    """The published size of the task whose dataset is ``name`` (None for any other)."""
    return PUBLISHED_SCENARIOS.get(name)
