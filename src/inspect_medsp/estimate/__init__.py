"""Know the bill first: calls and tokens per role of a MedSP run, before and after."""

from inspect_medsp.estimate.bill import BILL, run_bill
from inspect_medsp.estimate.prices import cost, load_prices
from inspect_medsp.workload import Assumptions, Estimate, RoleEstimate, estimate_records

__all__ = [
    "BILL",
    "Assumptions",
    "Estimate",
    "RoleEstimate",
    "cost",
    "estimate_records",
    "load_prices",
    "run_bill",
]
