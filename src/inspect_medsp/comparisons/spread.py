"""A group's samples as the inputs of :mod:`~inspect_medsp.comparisons.variance_split` and
:mod:`~inspect_medsp.comparisons.planning`: each scenario's epochs and grader repeats, the variance
components, and the spread of a run or of a pair's per-scenario difference."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from inspect_medsp.comparisons.case_weights import (
    once,
    pair_spreads,
    repeat_completions,
    run_spreads,
    scenarios_of,
)
from inspect_medsp.comparisons.planning import Spread
from inspect_medsp.comparisons.variance_split import Components, decompose
from inspect_medsp.record import MedspSample
from inspect_medsp.stats import OVERALL

__all__ = [
    "Rerun",
    "VarianceRow",
    "components",
    "encounters",
    "pair_spread",
    "repeat_completions",
    "rerun_noise",
    "run_spread",
    "variance_rows",
    "vote_variance",
]


def majority_chance(met: int, judged: int) -> float:
    """The chance that a fresh set of ``judged`` votes, each met with probability
    ``met / judged``, has more than half met (the scorer's majority rule; a tie is not met)."""
    p = met / judged
    return sum(
        math.comb(judged, k) * p**k * (1 - p) ** (judged - k)
        for k in range(judged // 2 + 1, judged + 1)
    )


def vote_variance(sample: MedspSample) -> float | None:
    """The variance of the sample's *voted* completion (the majority of its grader repeats,
    what the score uses) over a re-grading: the sum over items of ``q (1 - q)``, ``q`` the
    chance that a fresh majority says met (from the share of the item's votes that said met),
    over the rubric's items squared. None when it was graded once."""
    total = sample.counts.get(OVERALL, (0, 0))[1]
    if not total or max((len(i.votes) for i in sample.items), default=0) < 2:
        return None
    variance = 0.0
    for item in sample.items:
        judged = [v for v in item.votes if v is not None]
        if len(judged) < 2:
            continue
        q = majority_chance(sum(judged), len(judged))
        variance += q * (1 - q)
    return variance / total**2


class Rerun(NamedTuple):
    """What re-running the same scenarios would do to a group's macro, from the scores it
    used (each scenario's epochs averaged, each epoch the majority of its grader repeats)."""

    encounter: float
    """Encounter-to-encounter variance of one epoch's voted completion (NaN: one epoch, so
    not measured)."""
    grading: float
    """Variance of one epoch's voted completion over re-gradings (NaN: graded once)."""
    epochs: float
    """The harmonic mean of the scenarios' scored epochs (a scenario's noise shrinks with
    one over its own epochs, so that is the mean that counts)."""
    scenarios: int

    @property
    def macro_sd(self) -> float:
        """SD of the macro over re-runs from the noise measured (encounter noise left out when
        it was not measured: then a lower bound)."""
        parts = [v for v in (self.encounter, self.grading) if not math.isnan(v)]
        if not parts or not self.scenarios:
            return math.nan
        return math.sqrt(sum(parts) / self.epochs / self.scenarios)


def rerun_noise(samples: Sequence[MedspSample]) -> Rerun:
    """:class:`Rerun` of a group: the grading part from the votes (:func:`vote_variance`),
    the encounter part from the spread of each scenario's voted values across its epochs, less
    the grading part."""
    by_id: dict[str, list[MedspSample]] = defaultdict(list)
    for s in samples:
        if s.scored and OVERALL in s.values:
            by_id[s.id].append(s)
    if not by_id:
        return Rerun(math.nan, math.nan, 0.0, 0)
    votes = [v for group in by_id.values() for s in group if (v := vote_variance(s)) is not None]
    grading = float(np.mean(votes)) if votes else math.nan
    spread = [
        float(np.var([s.values[OVERALL] for s in group], ddof=1))
        for group in by_id.values()
        if len(group) > 1
    ]
    encounter = math.nan
    if spread:
        encounter = max(0.0, float(np.mean(spread)) - (0.0 if math.isnan(grading) else grading))
    epochs = 1.0 / float(np.mean([1.0 / len(group) for group in by_id.values()]))
    return Rerun(encounter, grading, epochs, len(by_id))


def encounters(samples: Sequence[MedspSample]) -> dict[str, list[list[float]]]:
    """Each scored scenario's epochs, each epoch its completion per grader repeat."""
    found: dict[str, list[list[float]]] = defaultdict(list)
    for s in sorted(samples, key=lambda s: (s.id, s.epoch)):
        if s.scored and OVERALL in s.values:
            found[s.id].append(repeat_completions(s))
    return dict(found)


def components(samples: Sequence[MedspSample]) -> Components:
    """Scenario, epoch and grader variance of a group's per-scenario completion."""
    return decompose(list(encounters(samples).values()))


def per_epoch(parts: Components) -> float:
    """Noise of one epoch (encounter plus its grading, averaged over the run's repeats)."""
    epoch = 0.0 if math.isnan(parts.epoch) else parts.epoch
    grader = 0.0 if math.isnan(parts.grader) else parts.grader / parts.repeats
    return epoch + grader


def run_spread(samples: Sequence[MedspSample]) -> Spread | None:
    """The spread of a run's scenario values (None with fewer than two scenarios)."""
    scenarios = scenarios_of(samples, {})
    return run_spreads(scenarios, once(int(scenarios.case.max(initial=-1)) + 1))[0]


def pair_spread(a: Sequence[MedspSample], b: Sequence[MedspSample]) -> Spread | None:
    """The spread of the per-scenario difference ``b - a`` on the scenarios both scored."""
    cases: dict[str, int] = {}
    first, second = scenarios_of(a, cases), scenarios_of(b, cases)
    return pair_spreads(first, second, once(len(cases)))[0]


class VarianceRow(NamedTuple):
    """One group's variance split, as variance.csv and the report show it."""

    group: str
    parts: Components
    noise_sd_macro: float
    """SD of the group's macro from the noise measured (same scenarios re-run), from the
    scores it used (majority votes of grader repeats); a lower bound when encounter noise was
    not measured (one epoch)."""
    encounter_measured: bool = True
    """Whether the run had two or more epochs (else encounter noise is not measured and the
    scenario share includes it)."""

    @property
    def scenario_share(self) -> float:
        """The scenario share, not given (NaN) when encounter noise was not measured: it
        would include that noise."""
        return self.parts.share(self.parts.scenario) if self.encounter_measured else math.nan

    @property
    def split(self) -> bool:
        """Whether the run had epochs or repeats to split the spread with."""
        return not (math.isnan(self.parts.epoch) and math.isnan(self.parts.grader))


def variance_rows(groups: Sequence[tuple[str, Sequence[MedspSample]]]) -> list[VarianceRow]:
    """The variance split of every group with two or more scored scenarios."""
    rows: list[VarianceRow] = []
    for label, samples in groups:
        parts = components(samples)
        if parts.scenarios < 2:
            continue
        rerun = rerun_noise(samples)
        rows.append(
            VarianceRow(
                group=label,
                parts=parts,
                noise_sd_macro=rerun.macro_sd,
                encounter_measured=not math.isnan(rerun.encounter),
            )
        )
    return rows
