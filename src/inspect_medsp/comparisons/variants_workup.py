"""The work-up's side of "Does care change with the patient?": each variant against the
baseline on the same scenarios, the paired difference in orders per encounter and in work-up
cost per encounter, read from the work-up's stored result (``medsp_workup``).

The statistics are the section's for completion: a scenario's value is its encounters'
mean (epochs averaged), clustered by case, with the interval, p-value and mdd, and Holm over
the variants (one family per measure). An encounter without a work-up result (a log from
before the work-up, ``-T workup=false``, or one the scorer could not score) is counted and
left out of the pairs, never read as 0 orders or 0 cost.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from inspect_medsp.data import BASELINE
from inspect_medsp.record import MedspSample
from inspect_medsp.stats import ALPHA, Comparison, Pairing, correct, paired_differences
from inspect_medsp.workup import Workup

ORDERS = "orders"
COST = "cost"
MEASURES = (ORDERS, COST)
"""The two work-up measures compared, each its own Holm family over the variants."""


class WorkupPairs(BaseModel):
    """One group's work-up differences and the encounters that had no work-up result."""

    rows: list[Comparison]
    """``variant - baseline`` per measure (``competency`` holds ``orders`` or ``cost``)."""
    without: dict[str, int]
    """Per variant (the baseline included), encounters with no work-up result."""
    encounters: dict[str, int]
    """Per variant, every encounter (the ``without`` count's denominator)."""
    currencies: list[str]
    """The currencies the costs are in (more than one: the costs do not compare)."""


def _values(samples: Sequence[MedspSample]) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Each worked-up scenario's mean orders and cost per encounter, and its case."""
    found: dict[str, list[Workup]] = {}
    cases: dict[str, str] = {}
    for s in samples:
        result = s.result(Workup)
        if result is not None:
            found.setdefault(s.id, []).append(result)
            cases[s.id] = s.case_id
    values = {
        ORDERS: {i: sum(w.order_count for w in ws) / len(ws) for i, ws in found.items()},
        COST: {i: sum(w.cost for w in ws) / len(ws) for i, ws in found.items()},
    }
    return values, cases


def workup_pairs(split: dict[str, list[MedspSample]]) -> WorkupPairs:
    """Every variant against the baseline in orders and cost per encounter (``split``: the
    samples of each variant under their scenario's id, as the section pairs them)."""
    base, cases = _values(split.get(BASELINE, []))
    jobs: list[tuple[str, str]] = []
    pairings: list[Pairing] = []
    for variant, samples in split.items():
        if variant == BASELINE:
            continue
        other, _ = _values(samples)
        for measure in MEASURES:
            ids = sorted(base[measure].keys() & other[measure].keys())
            if ids:
                jobs.append((variant, measure))
                pairings.append(
                    Pairing(
                        [base[measure][i] for i in ids],
                        [other[measure][i] for i in ids],
                        [cases[i] for i in ids],
                    )
                )
    sizes = {m: sum(measure == m for _, measure in jobs) for m in MEASURES}
    alphas = [ALPHA / max(1, sizes[measure]) for _, measure in jobs]
    found = paired_differences(pairings, alphas=alphas) if pairings else []
    rows = [
        Comparison(group_a=BASELINE, group_b=variant, competency=measure, paired=r,
                   p_value=r.p_value)
        for (variant, measure), r in zip(jobs, found, strict=True)
    ]  # fmt: skip
    for measure in MEASURES:
        correct([r for r in rows if r.competency == measure], f"the variants' {measure} rows")
    without = {v: sum(s.result(Workup) is None for s in samples) for v, samples in split.items()}
    currencies = sorted(
        {w.currency for samples in split.values() for s in samples
         if (w := s.result(Workup)) is not None}
    )  # fmt: skip
    return WorkupPairs(
        rows=rows,
        without=without,
        encounters={v: len(samples) for v, samples in split.items()},
        currencies=currencies,
    )
