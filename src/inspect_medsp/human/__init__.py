"""``medsp/human``: a person in the clinician's chair, through Inspect's console input.

The person reads what a clinician model would read (the door note and task, then each turn's
patient words, feedback, events and stage) and answers with what they say, what they do and
whether the stage is done; the provider hands that back as the clinician's turn JSON, so the
encounter, the record, the grader and the report treat the person like any model.
"""

from inspect_medsp.human.debriefing import debrief
from inspect_medsp.human.frame import case_started, run_started
from inspect_medsp.human.guard import ends_on_error
from inspect_medsp.human.provider import HumanClinician

__all__ = ["HumanClinician", "case_started", "debrief", "ends_on_error", "run_started"]
