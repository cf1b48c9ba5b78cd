"""Step 2: the report section and the capability (its columns, end-of-run line, section and
``-T orders=true`` switch)."""

from __future__ import annotations

from inspect_ai.log import EvalLog

from inspect_medsp.measure import Capability, Column, Switch
from inspect_medsp.record import reduced_samples
from inspect_medsp.report import Page, Section
from tests.support.orders.orders import HEADLINES, ClinicianOrders, clinician_orders


def orders_text(page: Page) -> list[str]:
    out = ["## Clinician orders", ""]
    for run in page.analysis.runs:
        for sample in run.samples:
            found = sample.result(ClinicianOrders)
            if found is not None:
                out.append(
                    f"- {sample.id}: {found.orders} orders, {found.unsupported} the "
                    "environment could not carry out"
                )
            elif (why := sample.result_unscored(ClinicianOrders)) is not None:
                out.append(f"- {sample.id}: not counted ({why})")
    return [*out, ""]


ORDERS_SECTION = Section(
    name="clinician orders",
    shows=lambda analysis: any(
        s.result(ClinicianOrders) is not None or s.result_unscored(ClinicianOrders) is not None
        for run in analysis.runs
        for s in run.samples
    ),
    text=orders_text,
)


def orders_line(log: EvalLog) -> str | None:
    """How many of the clinician's orders the environment could not carry out in the run."""
    counted = [s for s in reduced_samples(log, ClinicianOrders.scorer) if s.metadata]
    if not counted:
        return None
    unsupported = sum(int((s.metadata or {})["unsupported"]) for s in counted)
    return f"MedSP: {unsupported} order(s) the environment could not carry out"


CLINICIAN_ORDERS = Capability(
    name=ClinicianOrders.scorer,
    scorer=clinician_orders,
    columns=(
        Column("orders", "Orders"),
        Column("unsupported", "Orders not carried out", palette="good-low", low=0),
    ),
    headlines=HEADLINES,
    result=ClinicianOrders,
    rescore="Re-count",
    sections=(ORDERS_SECTION,),
    end_of_run=orders_line,
    switch=Switch(
        name="orders",
        default=False,
        help="Also count the clinician's orders and those the environment could not carry "
        "out (``clinician_orders``; no model is asked).",
    ),
)
