"""The work-up per group, as the report shows it: cost per encounter with its case-clustered
interval, orders, the share not asked for by the rubric, the curve, unsupported orders, the
tokens per encounter, and the paired cost differences between groups."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from inspect_medsp.record import MedspSample, fold
from inspect_medsp.report import Analysis
from inspect_medsp.scoring import clustered_ratio
from inspect_medsp.stats import Paired, Pairing, holm, paired_differences
from inspect_medsp.workup.result import Workup
from inspect_medsp.workup.tally import DECIDED_FLOOR


class GroupWorkup(BaseModel):
    """One group's work-up over the encounters it has one for."""

    label: str
    encounters: int
    """Encounters (samples) with a work-up."""
    missing: int
    """Samples of the group without one (not worked up, or it could not be)."""
    currency: str
    cost: float
    """Mean cost per encounter."""
    cost_low: float | None = None
    cost_high: float | None = None
    """The case-clustered 95% interval (None below six cases)."""
    cases: int = 0
    orders: float = 0.0
    """Mean orders per encounter."""
    not_asked_for: int = 0
    """Decided orders linked to no met rubric item (over encounters whose share is given)."""
    judged_orders: int = 0
    """Decided orders of encounters whose share is given (the share's denominator)."""
    withheld: int = 0
    """Encounters whose share was withheld (too few orders decided)."""
    undecided: int = 0
    """Orders whose link could not be decided, over every encounter with verdicts."""
    linked_by: dict[str, int] = Field(default_factory=dict)
    """Linked orders per signal (``quote``, ``words``)."""
    items_met: int = 0
    items_placed: dict[str, int] = Field(default_factory=dict)
    """Met items placed in a turn, per signal (``quote``, ``order``, ``words``)."""
    curves_withheld: int = 0
    """Encounters whose curve was withheld (too few met items placed)."""
    uncategorised: int = 0
    """Orders the category table could not place."""
    orders_total: int = 0
    """Every order of the group's worked-up encounters."""
    unsupported: int = 0
    unpriced: int = 0
    completion: float | None = None
    """The group's macro completion (the leaderboard's)."""
    tokens: float | None = None
    """Mean tokens per encounter, every role."""
    curve: list[float] = Field(default_factory=list)
    """Mean share of items met by the end of each turn (an encounter that ended earlier
    holds its last value)."""

    @property
    def not_asked_share(self) -> float | None:
        """The share of decided orders not linked to a met item; None when withheld."""
        if self.share_withheld or not self.judged_orders:
            return None
        return self.not_asked_for / self.judged_orders

    @property
    def share_withheld(self) -> str:
        """Why the group's share is withheld (one line), or empty when it is given."""
        if self.withheld and not self.judged_orders:
            return (
                f"withheld: in every encounter with verdicts ({self.withheld}) fewer than "
                f"{DECIDED_FLOOR:.0%} of the orders could be linked or ruled out"
            )
        return ""

    @property
    def uncategorised_share(self) -> float:
        return self.uncategorised / self.orders_total if self.orders_total else 0.0


def worked_up(samples: Sequence[MedspSample]) -> list[tuple[MedspSample, Workup]]:
    """The samples with a work-up, each with it."""
    return [(s, w) for s in samples if (w := s.result(Workup)) is not None]


def _add(into: dict[str, int], counts: dict[str, int]) -> dict[str, int]:
    for key, n in counts.items():
        into[key] = into.get(key, 0) + n
    return into


def _curve(results: Sequence[Workup]) -> list[float]:
    curves = [w.curve for w in results if w.curve]
    if not curves:
        return []
    longest = max(len(c) for c in curves)
    padded = [c + [c[-1]] * (longest - len(c)) for c in curves]
    return [round(sum(c[t] for c in padded) / len(padded), 4) for t in range(longest)]


def group_rows(analysis: Analysis) -> list[GroupWorkup]:
    """One row per group that has a work-up for at least one encounter."""
    rows: list[GroupWorkup] = []
    for group in analysis.groups:
        found = worked_up(group.samples)
        if not found:
            continue
        results = [w for _, w in found]
        mean = clustered_ratio([w.cost for w in results], [1.0] * len(results),
                               [s.case_id for s, _ in found])  # fmt: skip
        judged = [w for w in results if w.not_asked_for is not None]
        verdicts = [w for w in results if w.necessity == "" or w.necessity.startswith("withheld")]
        linked_by: dict[str, int] = {}
        placed: dict[str, int] = {}
        for w in verdicts:
            _add(linked_by, w.linked_by)
            _add(placed, w.items_placed)
        tokens = [sum(s.tokens.values()) for s, _ in found if s.tokens]
        rows.append(
            GroupWorkup(
                label=group.label,
                encounters=len(found),
                missing=len(group.samples) - len(found),
                currency=results[0].currency,
                cost=mean.estimate,
                cost_low=None if math.isnan(mean.low) else mean.low,
                cost_high=None if math.isnan(mean.high) else mean.high,
                cases=mean.cases,
                orders=sum(len(w.orders) for w in results) / len(results),
                not_asked_for=sum(w.not_asked_for or 0 for w in judged),
                judged_orders=sum(len(w.orders) - w.orders_undecided for w in judged),
                withheld=sum(w.necessity.startswith("withheld") for w in results),
                undecided=sum(w.orders_undecided for w in verdicts),
                linked_by=linked_by,
                items_met=sum(w.items_met for w in verdicts),
                items_placed=placed,
                curves_withheld=sum(w.curve_note.startswith("withheld") for w in results),
                uncategorised=sum(len(w.uncategorised) for w in results),
                orders_total=sum(len(w.orders) for w in results),
                unsupported=sum(len(w.unsupported) for w in results),
                unpriced=sum(len(w.unpriced) for w in results),
                completion=group.metrics.get("macro"),
                tokens=sum(tokens) / len(tokens) if tokens else None,
                curve=_curve(results),
            )
        )
    return rows


def common_unsupported(analysis: Analysis, top: int = 5) -> list[tuple[str, int]]:
    """The most common orders the environment could not carry out, over every group (the
    first wording seen of each, counted by its folded words)."""
    counts: Counter[str] = Counter()
    words: dict[str, str] = {}
    for group in analysis.groups:
        for _, result in worked_up(group.samples):
            for order in result.unsupported:
                key = fold(order)
                words.setdefault(key, order)
                counts[key] += 1
    return [(words[k], n) for k, n in counts.most_common(top)]


class CostDifference(BaseModel):
    """The paired difference of cost per encounter ``b - a`` on the scenarios both groups
    worked up, with its Holm-adjusted p-value over the pairs."""

    group_a: str
    group_b: str
    paired: Paired
    p_holm: float


def _per_scenario(samples: Sequence[MedspSample]) -> dict[str, tuple[float, str]]:
    costs: dict[str, list[float]] = {}
    cases: dict[str, str] = {}
    for sample, result in worked_up(samples):
        costs.setdefault(sample.id, []).append(result.cost)
        cases[sample.id] = sample.case_id
    return {i: (sum(c) / len(c), cases[i]) for i, c in costs.items()}


def cost_differences(analysis: Analysis) -> list[CostDifference]:
    """Every pair of groups with shared worked-up scenarios, compared as completion is (the
    paired test's interval, p-value and mdd; Holm over the pairs)."""
    values = [(g.label, _per_scenario(g.samples)) for g in analysis.groups]
    values = [(label, v) for label, v in values if v]
    pairs: list[tuple[str, str, Pairing]] = []
    for (la, va), (lb, vb) in itertools.combinations(values, 2):
        shared = sorted(set(va) & set(vb))
        if shared:
            pairing = Pairing([va[i][0] for i in shared], [vb[i][0] for i in shared],
                              [va[i][1] for i in shared])  # fmt: skip
            pairs.append((la, lb, pairing))
    found = paired_differences([p for *_, p in pairs]) if pairs else []
    adjusted = holm([p.p_value for p in found]) if found else []
    return [
        CostDifference(group_a=la, group_b=lb, paired=paired, p_holm=p)
        for (la, lb, _), paired, p in zip(pairs, found, adjusted, strict=True)
    ]
