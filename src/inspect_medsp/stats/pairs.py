"""Every pair of groups compared on the scenarios both scored: the paired differences of
:mod:`inspect_medsp.stats.paired`, overall and per competency.

Multiplicity is handled once, by Holm's method, in two families: the overall rows (the primary
comparison) are corrected over the pairs, and the competency rows over every competency and
pair together, so a star on any competency row keeps the 5% promise for the whole table.
``mdd`` is given at the level Holm's first step asks of its family (5% over its size), and
not at all when no difference is detectable with this design (see :attr:`Comparison.mdd_note`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from pydantic import BaseModel

from inspect_medsp.record import KEYS, MedspSample
from inspect_medsp.scoring import MIN_CASES, case_of
from inspect_medsp.stats.paired import ALPHA, Paired, Pairing, holm, paired_differences
from inspect_medsp.stats.power import NO_SPREAD as SPREAD_FLOOR

OVERALL = "overall"

NOT_DETECTABLE = "not detectable with this design"
NO_SPREAD = "cannot be estimated: the paired differences do not vary between cases"
TOO_FEW_CASES = f"fewer than {MIN_CASES} cases"
NO_POWER = (
    "not reached: at this row's level no true difference is found with 80% power by this "
    "design's test"
)


class Comparison(BaseModel):
    """One row of comparisons.csv: the paired difference ``b - a`` of two groups on one
    competency (or overall), with its p-value after Holm's correction in its family."""

    group_a: str
    group_b: str
    competency: str
    """``overall`` or a competency code."""
    paired: Paired
    """The paired difference, its interval, uncorrected p-value and ``mdd`` (at the family's
    level, 5% over its size; NaN when not given, and :attr:`mdd_note` says why)."""
    p_value: float
    """Two-sided (the larger of the permutation and t tests'); Holm-adjusted in its family when
    ``corrected``."""
    corrected: bool = False
    family: str = ""
    """The Holm family of the row, e.g. ``Holm over the pairs' overall rows (3)`` (empty: one
    comparison)."""
    family_size: int = 1
    reachable_p: float = math.nan
    """The smallest p-value this design can reach, after Holm (zero-difference cases count
    for nothing; ``paired.smallest_p`` is the uncorrected one)."""
    mdd_note: str = ""
    """Why ``mdd`` is not given: :data:`NOT_DETECTABLE`, :data:`NO_SPREAD`,
    :data:`TOO_FEW_CASES` or :data:`NO_POWER` (empty when it is)."""

    @property
    def detectable(self) -> bool:
        """The difference is told apart from 0 at two-sided 5% (after Holm, if corrected)."""
        return not math.isnan(self.p_value) and self.p_value < ALPHA


class ScenarioValues(BaseModel):
    """A group's per-scenario completion (epochs averaged) under each key, and the cases."""

    values: dict[str, dict[str, float]]
    cases: dict[str, str]


def scenario_values(samples: Sequence[MedspSample]) -> ScenarioValues:
    """Completion of every scored scenario, overall and per competency its rubric has: the
    counts averaged over its scored epochs, as the task's epoch reducer and the metrics do."""
    sums: dict[str, dict[str, list[float]]] = {key: {} for key in KEYS}
    cases: dict[str, str] = {}
    for s in samples:
        if not s.scored:
            continue
        if s.id not in cases:
            cases[s.id] = s.case_id or case_of(s.id)
        for key, (completed, total) in s.counts.items():
            found = sums.get(key)
            if found is None:
                continue
            pair = found.get(s.id)
            if pair is None:
                found[s.id] = [completed, total]
            else:
                pair[0] += completed
                pair[1] += total
    values = {
        key: {sid: c / t for sid, (c, t) in found.items() if t > 0} for key, found in sums.items()
    }
    return ScenarioValues(values=values, cases=cases)


def pairwise(groups: Sequence[tuple[str, Sequence[MedspSample]]]) -> list[Comparison]:
    """``b - a`` for every pair ``(a, b)`` with ``a`` before ``b`` in ``groups`` (leaderboard
    order), overall and per competency, on the scenarios both have a value for; overall rows
    first. P-values are Holm-adjusted in two families (see the module): the overall rows over
    the pairs, the competency rows over every competency and pair."""
    values = [(label, scenario_values(samples)) for label, samples in groups]
    jobs: list[tuple[str, str, str]] = []
    pairings: list[Pairing] = []
    for (label_a, a), (label_b, b) in itertools.combinations(values, 2):
        for key in KEYS:
            ids = sorted(a.values[key].keys() & b.values[key].keys())
            if ids:
                jobs.append((label_a, label_b, key))
                pairings.append(
                    Pairing(
                        [a.values[key][i] for i in ids],
                        [b.values[key][i] for i in ids],
                        [a.cases[i] for i in ids],
                    )
                )
    overall_size = sum(key == OVERALL for *_, key in jobs)
    sizes = {OVERALL: overall_size, "": len(jobs) - overall_size}
    alphas = [ALPHA / max(1, sizes[OVERALL if key == OVERALL else ""]) for *_, key in jobs]
    found = paired_differences(pairings, alphas=alphas)
    rows = [
        Comparison(group_a=label_a, group_b=label_b, competency=key, paired=r, p_value=r.p_value)
        for (label_a, label_b, key), r in zip(jobs, found, strict=True)
    ]
    correct([r for r in rows if r.competency == OVERALL], "the pairs' overall rows")
    correct([r for r in rows if r.competency != OVERALL], "every competency row of every pair")
    order = {key: i for i, key in enumerate(KEYS)}
    return sorted(rows, key=lambda r: order[r.competency])


def correct(family: Sequence[Comparison], name: str) -> None:
    """Holm-adjust the family's p-values (when it has more than one row; ``name`` says what it
    holds), and set each row's smallest reachable p-value and the reason its ``mdd`` (worked
    out at the family's level, 5% over its size, by :func:`pairwise`) is missing."""
    size = len(family)
    if size > 1:
        for row, adjusted in zip(family, holm([r.paired.p_value for r in family]), strict=True):
            row.p_value = adjusted
            row.corrected = True
            row.family = f"Holm over {name} ({size})"
            row.family_size = size
        reachable = holm([r.paired.smallest_p for r in family])
    else:
        reachable = [r.paired.smallest_p for r in family]
    for row, floor in zip(family, reachable, strict=True):
        paired = row.paired
        row.reachable_p = floor
        if math.isnan(floor) or floor >= ALPHA:
            row.mdd_note = NOT_DETECTABLE
        elif paired.cases < MIN_CASES:
            row.mdd_note = TOO_FEW_CASES
        elif math.isnan(paired.se) or paired.se <= SPREAD_FLOOR:
            row.mdd_note = NO_SPREAD
        elif math.isnan(paired.mdd):
            row.mdd_note = NO_POWER
        if row.mdd_note:
            row.paired = paired._replace(mdd=math.nan)


def not_detectable_from_leader(rows: Sequence[Comparison], leader: str) -> set[str]:
    """The groups whose overall difference from ``leader`` is not detectable."""
    return {
        r.group_b
        for r in rows
        if r.competency == OVERALL and r.group_a == leader and not r.detectable
    }
