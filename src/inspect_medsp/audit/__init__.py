"""The simulator audit: an ``auditor`` model reviews the patient and environment turns of a
recorded encounter against their packets (never the rubric)."""

from inspect_medsp.audit.capability import SIMULATION_AUDIT
from inspect_medsp.audit.scorer import medsp_simulation_audit

__all__ = ["SIMULATION_AUDIT", "medsp_simulation_audit"]
