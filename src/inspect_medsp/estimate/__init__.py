"""Know the bill first: calls and tokens per role of a MedSP run, before and after."""

from inspect_medsp.estimate.bill import BILL, run_bill
from inspect_medsp.estimate.prices import cost, load_prices

__all__ = [
    "BILL",
    "cost",
    "load_prices",
    "run_bill",
]
