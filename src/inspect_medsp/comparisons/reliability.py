"""Reliability across epochs, as agent benchmarks report it (tau2-bench's pass^k): with ``k``
epochs of a scenario, the share of its rubric items met in all ``k`` encounters ("reliably
met") beside the share met in at least one, and the share met per encounter (the macro).

A model that sometimes asks about allergies and sometimes does not scores the same per
encounter as one that asks in half the scenarios every time; only the all-``k`` share tells
them apart. Each share is a macro: worked out per scenario, then averaged over scenarios, with
the case-clustered 95% interval of the metrics.

``k`` is the most epochs any scenario of the group has scored; a scenario scored in fewer, or
whose epochs do not record the same rubric items, is left out and counted.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from inspect_medsp.record import MedspSample
from inspect_medsp.scoring import case_of, clustered_ratio


class Reliability(NamedTuple):
    """One group's reliability across its ``epochs`` encounters of each scenario."""

    group: str
    epochs: int
    """``k``: the encounters of each scenario counted."""
    scenarios: int
    """Scenarios scored in all ``k`` epochs with the same rubric items."""
    left_out: int
    """Scored scenarios left out: fewer than ``k`` scored epochs, or items not recorded alike."""
    per_encounter: float
    """Macro of the share of items met in one encounter (the mean over the ``k``)."""
    reliably_met: float
    """Macro of the share of items met in all ``k`` encounters (pass^k)."""
    reliably_low: float
    """95% interval of :attr:`reliably_met` (NaN below the fewest cases an interval needs)."""
    reliably_high: float
    ever_met: float
    """Macro of the share of items met in at least one of the ``k`` encounters."""

    @property
    def unreliable(self) -> float:
        """The share of all items met sometimes but not every time (``ever_met -
        reliably_met``)."""
        return self.ever_met - self.reliably_met

    @property
    def unreliable_of_done(self) -> float:
        """Of the items met at least once, the share not met every time (``unreliable /
        ever_met``; NaN when no item was ever met)."""
        return self.unreliable / self.ever_met if self.ever_met > 0 else math.nan


def _item_sets(epochs: Sequence[MedspSample]) -> list[dict[int, bool]] | None:
    """Each epoch's verdicts by item number; None when an epoch has none or they differ."""
    found = [{item.number: item.met for item in s.items} for s in epochs]
    if not found[0] or any(f.keys() != found[0].keys() for f in found[1:]):
        return None
    return found


def reliability(label: str, samples: Sequence[MedspSample]) -> Reliability | None:
    """The group's :class:`Reliability`; None when no scenario was scored in two epochs."""
    by_id: dict[str, list[MedspSample]] = defaultdict(list)
    for s in samples:
        if s.scored:
            by_id[s.id].append(s)
    if not by_id:
        return None
    k = max(len(epochs) for epochs in by_id.values())
    if k < 2:
        return None
    every, ever, once, cases = [], [], [], []
    left_out = 0
    for sid, epochs in sorted(by_id.items()):
        verdicts = _item_sets(epochs) if len(epochs) == k else None
        if verdicts is None:
            left_out += 1
            continue
        numbers = list(verdicts[0])
        met = np.array([[v[n] for n in numbers] for v in verdicts], dtype=bool)
        every.append(float(met.all(axis=0).mean()))
        ever.append(float(met.any(axis=0).mean()))
        once.append(float(met.mean()))
        cases.append(epochs[0].case_id or case_of(sid))
    if not every:
        nan = math.nan
        return Reliability(label, k, 0, left_out, nan, nan, nan, nan, nan)
    ones = np.ones(len(every))
    reliably = clustered_ratio(every, ones, cases, limits=(0.0, 1.0))
    return Reliability(
        group=label,
        epochs=k,
        scenarios=len(every),
        left_out=left_out,
        per_encounter=float(np.mean(once)),
        reliably_met=reliably.estimate,
        reliably_low=reliably.low,
        reliably_high=reliably.high,
        ever_met=float(np.mean(ever)),
    )


def reliability_rows(groups: Sequence[tuple[str, Sequence[MedspSample]]]) -> list[Reliability]:
    """:func:`reliability` of every group that ran a scenario in two or more epochs."""
    rows = [reliability(label, samples) for label, samples in groups]
    return [r for r in rows if r is not None]
