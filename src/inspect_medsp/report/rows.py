"""Scored samples as the metrics' rows: one per scenario, its epochs averaged."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from inspect_medsp.record import KEYS, MedspSample
from inspect_medsp.scoring import Row, case_of


def scenario_rows(samples: Sequence[MedspSample]) -> dict[str, list[Row]]:
    """One row per scored scenario and key: its counts averaged over its scored epochs (as
    the task's epoch reducer does), tagged with its case for the bootstrap."""
    epochs: dict[str, list[dict[str, tuple[int, int]]]] = defaultdict(list)
    cases: dict[str, str] = {}
    for s in samples:
        if s.scored:
            epochs[s.id].append(s.counts)  # worked out from the score each time: read once
            cases.setdefault(s.id, s.case_id)
    rows: dict[str, list[Row]] = {key: [] for key in KEYS}
    for sid, scored in sorted(epochs.items()):
        for key in KEYS:
            counts = [found[key] for found in scored if key in found]
            if counts:
                completed = sum(c for c, _ in counts) / len(counts)
                total = sum(t for _, t in counts) / len(counts)
                rows[key].append(Row(completed, total, cases[sid] or case_of(sid)))
    return rows
