"""Grader trust: agreement between graders, grading repeats and clinicians, and the
validation sheets clinicians fill (``medsp-report agreement`` and ``validation-sheet``)."""

from inspect_medsp.agreement.trust_command import AGREEMENT, VALIDATION_SHEET

__all__ = ["AGREEMENT", "VALIDATION_SHEET"]
