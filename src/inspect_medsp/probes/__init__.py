"""Grader probes: re-grade perturbed copies of a recorded encounter with the run's grader."""

from inspect_medsp.probes.capability import GRADER_PROBES
from inspect_medsp.probes.scorer import medsp_grader_probe

__all__ = ["GRADER_PROBES", "medsp_grader_probe"]
