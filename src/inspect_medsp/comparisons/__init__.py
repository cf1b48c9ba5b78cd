"""Paired comparisons: the paired differences and the variance split of the report, and
``medsp-report plan`` (scenarios, epochs and cost a comparison needs)."""

from inspect_medsp.comparisons.comparisons_sections import DIFFERENCES, SPREAD
from inspect_medsp.comparisons.plan_command import PLAN
from inspect_medsp.comparisons.variants_section import VARIANTS

__all__ = ["DIFFERENCES", "PLAN", "SPREAD", "VARIANTS"]
