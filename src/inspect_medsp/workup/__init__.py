"""The work-up: what the clinician ordered over the encounter, in which category, at what
cost from a price table, whether a met rubric item cites it, and when (``medsp_workup``)."""

from inspect_medsp.workup.capability import WORKUP_CAPABILITY
from inspect_medsp.workup.result import Workup
from inspect_medsp.workup.scorer import medsp_workup

__all__ = ["WORKUP_CAPABILITY", "Workup", "medsp_workup"]
