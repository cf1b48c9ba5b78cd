"""The work-up as a capability: its headline columns (cost, orders, orders not asked for by
the rubric), report section, end-of-run line and its ``-T workup`` switch (on by default)."""

from __future__ import annotations

from inspect_ai.log import EvalLog
from inspect_ai.scorer import Scorer

from inspect_medsp.measure import Capability, Column
from inspect_medsp.record import numbered_names, reduced_samples
from inspect_medsp.workup.result import WORKUP_SCORER, Workup
from inspect_medsp.workup.scorer import medsp_workup
from inspect_medsp.workup.section import WORKUP


def workup_line(log: EvalLog) -> str | None:
    """How many of the run's orders the newest work-up's price table left unpriced, when
    any were."""
    names = [r.scorer for r in log.reductions or []]
    newest = max(numbered_names(WORKUP_SCORER, names), default=None)
    if newest is None:
        return None
    found = [s for s in reduced_samples(log, newest[1]) if s.metadata]
    results = [
        Workup.model_validate(s.metadata) for s in found if "unscored" not in (s.metadata or {})
    ]
    unpriced = sum(len(w.unpriced) for w in results)
    if not unpriced:
        return None
    return (
        f"MedSP: {unpriced} order(s) the work-up's price table does not price (counted, "
        "not priced: see the work-up's Scoring tab or -S prices=FILE)"
    )


def _in_eval(judge: str, cache: bool) -> Scorer:
    return medsp_workup()


WORKUP_CAPABILITY = Capability(
    name=WORKUP_SCORER,
    scorer=medsp_workup,
    columns=(
        Column("cost", "Work-up cost", palette="good-low", low=0, unit="price-table units"),
        Column("orders", "Orders", unit="orders"),
        Column(
            "not_asked_for",
            "Orders not asked for by the rubric",
            palette="good-low",
            low=0,
            unit="orders not in the rubric",
        ),
    ),
    headlines=("cost", "orders", "not_asked_for"),
    result=Workup,
    rescore="Re-work-up",
    sections=(WORKUP,),
    end_of_run=workup_line,
    switch="workup",
    in_eval=_in_eval,
)
"""The work-up: in every eval (``-T workup=false`` leaves it out), or appended with
``inspect score``."""
