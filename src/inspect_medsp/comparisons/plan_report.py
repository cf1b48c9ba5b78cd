"""``medsp-report plan``: from one or more runs (typically ``medsp100``), what the full
benchmark would show and what a comparison would take, with its cost.

The numbers come from :mod:`~inspect_medsp.comparisons.planning` (the formulas) fed with the
spread the runs show (:mod:`~inspect_medsp.comparisons.spread`); the cost per scenario and epoch
is ``medsp-estimate``'s token model at the turns each encounter really took
(:func:`~inspect_medsp.estimate.bill.run_bill`), priced with ``--model-cost-config``.

The ranges in brackets come from :mod:`~inspect_medsp.comparisons.plan_ranges`.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelCost
from pydantic import BaseModel

from inspect_medsp.comparisons.plan_ranges import (
    EPOCH_CHOICES,
    RESAMPLES,
    Range,
    half_width_range,
    pair_ranges,
)
from inspect_medsp.comparisons.planning import (
    FULL_CASES,
    FULL_SCENARIOS,
    Spread,
    epochs_needed,
    half_width,
    mdd,
    scenarios_needed,
)
from inspect_medsp.comparisons.spread import components, pair_spread, run_spread
from inspect_medsp.estimate import cost, run_bill
from inspect_medsp.record import CLINICIAN, read_log
from inspect_medsp.report import Analysis
from inspect_medsp.scoring import case_of
from inspect_medsp.stats import OVERALL, Comparison

__all__ = ["Plan", "half_width_range", "make_plan", "pair_ranges", "render_plan"]
CURATED = (
    "Q100 (medsp100) is a curated, quality-controlled subset, not a random draw of the 1,548 "
    "scenarios: its mean is not a forecast of the full-set mean. The plan carries over only "
    "the spread (between scenarios, between cases, between epochs and gradings)."
)


class RunPlan(BaseModel):
    """What one group's run says about a full-set run of the same clinician."""

    group: str
    scenarios: int
    cases: int
    multi_cases: int
    """Cases with two or more scenarios: the only ones that inform the intra-case correlation."""
    epochs: float
    repeats: float
    macro: float | None
    ci_low: float | None
    ci_high: float | None
    rho: float
    full_half_width: float | None
    """Half-width of the 95% interval to expect on the full set at the run's epochs."""
    full_half_width_range: Range | None = None
    """10th-90th percentile of that half-width over a case bootstrap of the run (the spread,
    the correlation and the noise all re-estimated)."""
    epochs_help: bool
    """Whether the run shows encounter or grader noise that more epochs would average away."""
    cost_per_scenario: float | None
    """Dollars per scenario and epoch (None: no prices, or a model without a price)."""
    missing_prices: list[str]


class PairPlan(BaseModel):
    """What a comparison of two groups takes."""

    group_a: str
    group_b: str
    shared: int
    difference: float | None
    mdd_here: float | None
    mdd_full: dict[int, float]
    """Epochs -> mdd on the full set."""
    mdd_full_range: dict[int, Range] = {}
    """Epochs -> 10th-90th percentile of that mdd over a case bootstrap of the pair."""
    needed: dict[int, int]
    """Epochs -> scenarios needed to detect the target."""
    needed_range: dict[int, Range] = {}
    """Epochs -> 10th-90th percentile of the scenarios needed over the case bootstrap."""
    full_epochs: int | None
    """Fewest epochs with which the full set detects the target (None: not reachable)."""
    rho: float
    epochs_help: bool
    cost: dict[int, float | None]
    """Epochs -> dollars to run both clinicians on the scenarios needed (capped at the full
    set); None without prices."""


class Plan(BaseModel):
    detect: float
    runs: list[RunPlan]
    pairs: list[PairPlan]
    tasks: list[str]


def _dollars(path: str, prices: dict[str, ModelCost] | None) -> tuple[float | None, list[str]]:
    """Estimated dollars per scenario and epoch of the run at ``path``, and unpriced models."""
    if prices is None:
        return None, []
    run = read_log(path, events=True)
    bill = run_bill(run, path)
    samples = len(run.samples)
    if bill is None or not samples:
        return None, []
    header = read_eval_log(path, header_only=True)
    roles = {
        role: (m[0] if isinstance(m, list) else m).model
        for role, m in (header.eval.model_roles or {}).items()
        if m
    }
    total = 0.0
    missing: list[str] = []
    for role, part in bill.roles.items():
        model = run.model if role == CLINICIAN else roles.get(role, run.task_metadata.judge)
        if not part.at_observed_turns.input_tokens and not part.at_observed_turns.output_tokens:
            continue
        price = prices.get(model)
        if price is None:
            missing.append(model or role)
            continue
        total += cost(part.at_observed_turns, price)
    return (None if missing else total / samples), sorted(set(missing))


def make_plan(
    analysis: Analysis, detect: float, prices: dict[str, ModelCost] | None = None
) -> Plan:
    """The plan for every group of ``analysis`` and every pair of them."""
    paths = {r.name: r.path for r in analysis.runs}
    runs: list[RunPlan] = []
    costs: dict[str, float | None] = {}
    for g in analysis.groups:
        spread = run_spread(g.samples)
        parts = components(g.samples)
        ids = sorted(g.scored_ids)
        case_by_id: dict[str, str] = {}
        for s in g.samples:
            case_by_id.setdefault(s.id, s.case_id)
        cases = [case_by_id.get(i) or case_of(i) for i in ids]
        dollars: list[float] = []
        missing: list[str] = []
        for name in g.runs:
            value, unpriced = _dollars(paths[name], prices)
            missing += unpriced
            if value is not None:
                dollars.append(value)
        per = sum(dollars) / len(dollars) if dollars and not missing else None
        costs[g.label] = per
        runs.append(
            RunPlan(
                group=g.label,
                scenarios=len(ids),
                cases=len(set(cases)),
                multi_cases=sum(n > 1 for n in Counter(cases).values()),
                epochs=parts.epochs if parts.scenarios else 0,
                repeats=parts.repeats if parts.scenarios else 0,
                macro=g.metric("macro"),
                ci_low=g.metric("macro_ci_low"),
                ci_high=g.metric("macro_ci_high"),
                rho=spread.rho if spread else 0.0,
                full_half_width=(
                    half_width(spread, FULL_SCENARIOS, max(1, round(parts.epochs)))
                    if spread
                    else None
                ),
                full_half_width_range=half_width_range(g.samples, max(1, round(parts.epochs))),
                epochs_help=bool(spread and spread.per_epoch > 0),
                cost_per_scenario=per,
                missing_prices=sorted(set(missing)),
            )
        )
    pairs: list[PairPlan] = []
    for a, b in itertools.combinations(analysis.groups, 2):
        spread = pair_spread(a.samples, b.samples)
        if spread is None:
            continue
        row = next(
            (
                r
                for r in analysis.comparisons
                if (r.group_a, r.group_b, r.competency) == (a.label, b.label, OVERALL)
            ),
            None,
        )
        pair = _pair(a.label, b.label, spread, row, detect, costs)
        pair.mdd_full_range, pair.needed_range = pair_ranges(a.samples, b.samples, detect)
        pairs.append(pair)
    return Plan(
        detect=detect,
        runs=runs,
        pairs=pairs,
        tasks=sorted({r.task for r in analysis.runs}),
    )


def _pair(
    a: str,
    b: str,
    spread: Spread,
    row: Comparison | None,
    detect: float,
    costs: dict[str, float | None],
) -> PairPlan:
    difference = row.paired.difference if row else None
    mdd_here = row.paired.mdd if row else None
    shared = row.paired.scenarios if row else 0
    needed = {e: scenarios_needed(spread, detect, e) for e in EPOCH_CHOICES}
    per_a, per_b = costs.get(a), costs.get(b)
    both = None if per_a is None or per_b is None else per_a + per_b
    return PairPlan(
        group_a=a,
        group_b=b,
        shared=shared,
        difference=difference,
        mdd_here=None if mdd_here is None or math.isnan(mdd_here) else mdd_here,
        mdd_full={e: mdd(spread, FULL_SCENARIOS, e) for e in EPOCH_CHOICES},
        needed=needed,
        full_epochs=epochs_needed(spread, detect),
        rho=spread.rho,
        epochs_help=spread.per_epoch > 0,
        cost={
            e: None if both is None else both * min(n, FULL_SCENARIOS) * e
            for e, n in needed.items()
        },
    )


def _span(value: Range | None, scale: float = 100.0, digits: int = 1) -> str:
    if value is None:
        return ""
    return f" ({value[0] * scale:,.{digits}f} to {value[1] * scale:,.{digits}f})"


def _pts(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value * 100:.1f}"


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.0f}"


def _run_lines(r: RunPlan) -> list[str]:
    """One group's line of the plan (and its missing prices)."""
    here = (
        f"macro {_pts(r.macro)} [{_pts(r.ci_low)}, {_pts(r.ci_high)}] over {r.scenarios} "
        f"scenarios from {r.cases} cases"
    )
    full = (
        f"expect +/- {_pts(r.full_half_width)} points{_span(r.full_half_width_range)} on "
        "the full set"
        if r.full_half_width is not None
        else "too few scenarios to say"
    )
    rho = (
        f"intra-case correlation {r.rho:.2f} from {r.multi_cases} cases with 2+ scenarios"
        if r.multi_cases
        else "no case with 2+ scenarios: intra-case correlation taken as 0 (a lower bound)"
    )
    cost = (
        f"; {_money(r.cost_per_scenario * FULL_SCENARIOS)} per full-set epoch"
        if r.cost_per_scenario is not None
        else ""
    )
    out = [f"- {r.group}: {here}; {full} ({rho}){cost}"]
    if r.missing_prices:
        out.append(f"  no price for {', '.join(r.missing_prices)} in --model-cost-config")
    return out


def _pair_lines(p: PairPlan, target: str) -> list[str]:
    """One comparison's lines of the plan."""
    out = [
        f"- {p.group_b} minus {p.group_a}: {_pts(p.difference)} points here over "
        f"{p.shared} shared scenarios (this comparison can detect {_pts(p.mdd_here)})"
    ]
    choices = EPOCH_CHOICES if p.epochs_help else EPOCH_CHOICES[:1]
    full = ", ".join(
        f"{_pts(p.mdd_full[e])}{_span(p.mdd_full_range.get(e))} at {e} epoch{'s' if e > 1 else ''}"
        for e in choices
    )
    out.append(f"  on the full set it could detect: {full}")
    for e in choices:
        n = p.needed[e]
        span = _span(p.needed_range.get(e), scale=1.0, digits=0)
        what = (
            f"{n:,} scenarios{span}"
            if n <= FULL_SCENARIOS
            else f"{n:,} scenarios{span}: more than the full set"
        )
        money = f", {_money(p.cost[e])} for both runs" if p.cost[e] is not None else ""
        out.append(f"  {e} epoch{'s' if e > 1 else ' '}: {what}{money}")
    if p.full_epochs is None:
        out.append(f"  the full set cannot detect {target} at any number of epochs up to 20")
    else:
        out.append(f"  the full set detects it with {p.full_epochs} epoch(s)")
    if not p.epochs_help:
        out.append(
            "  (these runs had one epoch and one grading each: the planner cannot tell "
            "encounter noise from scenario effects, so it assumes epochs do not help)"
        )
    return out


def render_plan(plan: Plan) -> str:
    """The plan as plain text for the terminal."""
    target = f"{plan.detect * 100:.1f} points"
    out = [
        f"PLAN from {len(plan.runs)} group{'s' if len(plan.runs) != 1 else ''} "
        f"({', '.join(plan.tasks)}); full set: {FULL_SCENARIOS:,} scenarios from "
        f"{FULL_CASES} cases (case-clustered); detect: {target}",
        "",
    ]
    out += [CURATED, ""]
    out.append("Each run on the full set, at the epochs it had:")
    for r in plan.runs:
        out += _run_lines(r)
    out.append("")
    if not plan.pairs:
        out.append("Give two or more runs over shared scenarios to plan a comparison.")
        return "\n".join(out) + "\n"
    out.append(
        f"Comparisons (each line: the first group's macro minus the second's), to detect "
        f"{target} with 80% power at two-sided 5%:"
    )
    for p in plan.pairs:
        out += _pair_lines(p, target)
    out += [
        "",
        "Method: scenario variance, intra-case correlation and epoch/grader noise as observed; "
        "the correlation at other epoch counts from the case part of the variance (which "
        "epochs do not average away); design effect 1 + (m - 1) * rho with m the size-weighted "
        "mean case size of the set planned (6.05 for the full set, less for a random subset "
        "of it); mdd and intervals with t quantiles on the planned cases - 1 degrees of "
        "freedom. In brackets: the 10th to 90th percentile of each number over a case "
        f"bootstrap of the runs ({RESAMPLES} resamples, seeded; a case drawn twice counts as "
        "two cases; the spread studentized on the log scale, so a spread resting on a few "
        "far-out cases reaches further up), with the intra-case correlation drawn from its "
        "one-way ANOVA pivot "
        "(resampling a few multi-scenario cases understates how uncertain it is), its degrees "
        "of freedom from how unevenly the cases carry the two mean squares (fewer when a few "
        "far-out cases carry them), as the "
        "spread and the correlation are themselves estimated from few cases. Costs: "
        "medsp-estimate's token "
        "model at the turns the encounters took, list prices, no prompt-cache discounts, "
        "grader repeats not included.",
    ]
    return "\n".join(out) + "\n"
