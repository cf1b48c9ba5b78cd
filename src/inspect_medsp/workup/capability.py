"""The work-up as a capability: its headline columns (cost, orders, orders not asked for by
the rubric), report section, end-of-run line and its ``-T workup`` switch (on by default)."""

from __future__ import annotations

from inspect_ai.log import EvalLog
from inspect_ai.scorer import Scorer

from inspect_medsp.measure import Capability, Column, Switch
from inspect_medsp.record import numbered_names, reduced_samples
from inspect_medsp.workup.result import WORKUP_SCORER, Workup
from inspect_medsp.workup.scorer import medsp_workup
from inspect_medsp.workup.section import WORKUP


def workup_line(log: EvalLog) -> str | None:
    """How many of the run's orders the newest work-up's price table left unpriced, and how
    many the category table could not place, when any were."""
    names = [r.scorer for r in log.reductions or []]
    newest = max(numbered_names(WORKUP_SCORER, names), default=None)
    if newest is None:
        return None
    found = [s for s in reduced_samples(log, newest[1]) if s.metadata]
    results = [
        Workup.model_validate(s.metadata) for s in found if "unscored" not in (s.metadata or {})
    ]
    unpriced = sum(len(w.unpriced) for w in results)
    uncategorised = sum(len(w.uncategorised) for w in results)
    if not unpriced:
        return None
    placed = (
        f"; {uncategorised} of them uncategorised, so the work-up's cost is a lower bound"
        if uncategorised
        else ""
    )
    return (
        f"MedSP: {unpriced} order(s) the work-up's price table does not price (counted, "
        f"not priced: see the work-up's Scoring tab or -S prices=FILE){placed}"
    )


def _in_eval(judge: str, cache: bool) -> Scorer:
    return medsp_workup()


WORKUP_CAPABILITY = Capability(
    name=WORKUP_SCORER,
    scorer=medsp_workup,
    # not coloured: a run's scenarios differ clinically, so one colour scale across them
    # would read a trauma case's costs as worse than a conversation's
    columns=(
        Column(
            "cost",
            "Work-up cost (priced orders only)",
            unit="price-table units, priced orders only",
        ),
        Column("orders", "Orders", unit="orders"),
        Column(
            "not_asked_for",
            "Orders not linked to a met item (not the same as wrong)",
            unit="orders not linked to a met item",
        ),
    ),
    headlines=("cost", "orders", "not_asked_for"),
    result=Workup,
    rescore="Re-work-up",
    sections=(WORKUP,),
    end_of_run=workup_line,
    switch=Switch(
        name="workup",
        default=True,
        help="Also score each encounter with ``medsp_workup`` (its orders by category, their "
        "cost from the shipped relative tiers, which the rubric cites, and when; no model is "
        "asked). On by default.",
        accepts="true or false (the work-up of each encounter: orders, cost, necessity, "
        "timing)",
    ),
    in_eval=_in_eval,
)
"""The work-up: in every eval (``-T workup=false`` leaves it out), or appended with
``inspect score``."""
