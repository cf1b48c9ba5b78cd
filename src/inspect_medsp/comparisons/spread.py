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
from inspect_medsp.comparisons.vote_bounds import Bounds, Vote, bounds_for
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


def vote_variance(samples: Sequence[MedspSample]) -> Bounds | None:
    """Bounds on the variance of one sample's *voted* completion (the majority of its grader
    repeats, what the score uses) over a re-grading, averaged over the samples graded more
    than once: the mean of ``sum over items of q (1 - q) / items**2``, ``q`` the chance that
    a fresh majority says met. One set of votes per item pins this only to a range (see
    :mod:`~inspect_medsp.comparisons.vote_bounds`). None when no sample was graded twice."""
    graded = [
        s
        for s in samples
        if s.counts.get(OVERALL, (0, 0))[1] and max((len(i.votes) for i in s.items), default=0) >= 2
    ]
    if not graded:
        return None
    votes = []
    for s in graded:
        weight = 1.0 / len(graded) / s.counts[OVERALL][1] ** 2
        for item in s.items:
            judged = [v for v in item.votes if v is not None]
            votes.append(Vote(len(judged), sum(judged), weight))
    return bounds_for(votes)


class Rerun(NamedTuple):
    """What re-running the same scenarios would do to a group's macro, from the scores it
    used (each scenario's epochs averaged, each epoch the majority of its grader repeats)."""

    encounter: float
    """Encounter-to-encounter variance of one epoch's voted completion (NaN: one epoch, so
    not measured), with the grading part at its upper bound taken out (so a lower bound)."""
    grading: Bounds
    """Variance of one epoch's voted completion over re-gradings, the least and the most the
    votes allow (NaN: graded once)."""
    epochs: float
    """The harmonic mean of the scenarios' scored epochs (a scenario's noise shrinks with
    one over its own epochs, so that is the mean that counts)."""
    scenarios: int
    spread: float = math.nan
    """The mean over scenarios of the variance of their epochs' voted values (encounter and
    grading noise together; NaN: one epoch)."""

    @property
    def macro_sd_range(self) -> Bounds:
        """SD of the macro over re-runs from the noise measured, the least and the most the
        votes allow (encounter noise left out when it was not measured: then it covers
        re-grading only). With two or more epochs the epochs' spread holds both kinds of
        noise, so the grading bounds matter only where they exceed it."""
        if not self.scenarios:
            return Bounds(math.nan, math.nan)
        if math.isnan(self.spread):
            low, high = self.grading
        elif math.isnan(self.grading.low):
            low = high = self.spread
        else:
            low, high = max(self.spread, self.grading.low), max(self.spread, self.grading.high)
        scale = self.epochs * self.scenarios
        return Bounds(math.sqrt(low / scale), math.sqrt(high / scale))

    @property
    def macro_sd(self) -> float:
        """The upper end of :attr:`macro_sd_range` (its two ends are equal unless the run
        had one epoch and grader repeats)."""
        return self.macro_sd_range.high


def rerun_noise(samples: Sequence[MedspSample]) -> Rerun:
    """:class:`Rerun` of a group: the grading part from the votes (:func:`vote_variance`),
    the encounter part from the spread of each scenario's voted values across its epochs, less
    the grading part."""
    by_id: dict[str, list[MedspSample]] = defaultdict(list)
    for s in samples:
        if s.scored and OVERALL in s.values:
            by_id[s.id].append(s)
    unknown = Bounds(math.nan, math.nan)
    if not by_id:
        return Rerun(math.nan, unknown, 0.0, 0)
    grading = vote_variance([s for group in by_id.values() for s in group]) or unknown
    spreads = [
        float(np.var([s.values[OVERALL] for s in group], ddof=1))
        for group in by_id.values()
        if len(group) > 1
    ]
    encounter = spread = math.nan
    if spreads:
        spread = float(np.mean(spreads))
        encounter = max(0.0, spread - (0.0 if math.isnan(grading.high) else grading.high))
    epochs = 1.0 / float(np.mean([1.0 / len(group) for group in by_id.values()]))
    return Rerun(encounter, grading, epochs, len(by_id), spread)


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
    scores it used (majority votes of grader repeats): the upper end of what the votes allow
    (see ``noise_sd_low``); encounter noise left out when it was not measured (one epoch)."""
    encounter_measured: bool = True
    """Whether the run had two or more epochs (else encounter noise is not measured and the
    scenario share includes it)."""
    noise_sd_low: float = math.nan
    """The lower end of ``noise_sd_macro``'s range: with one epoch and grader repeats one set
    of votes per item bounds the re-grading variance of their majority only to a range; else
    the same as ``noise_sd_macro``."""

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
                noise_sd_macro=rerun.macro_sd_range.high,
                encounter_measured=not math.isnan(rerun.encounter),
                noise_sd_low=rerun.macro_sd_range.low,
            )
        )
    return rows
