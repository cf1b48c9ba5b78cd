"""Know the bill first: calls and tokens per role of a MedSP run, before and after."""

from inspect_medsp.workload.model import Assumptions, Estimate, RoleEstimate, estimate_records

__all__ = ["Assumptions", "Estimate", "RoleEstimate", "estimate_records"]
