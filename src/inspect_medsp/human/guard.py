"""A model's error in a person's case ends that encounter, not the run, and shows no
traceback.

A role model that fails (a provider down, a wrong key, a scripted stand-in asked for a case it
has no script for) raises out of the encounter; for a model clinician that is a sample error,
named in the log with its traceback, and Inspect's end-of-run display prints it. A person
would read a long traceback on the screen they answer on, and the run would end with their
other cases unplayed. For a person (``medsp/human``) the encounter, already ended ``error``
with a one-line reason (``encounter.finish_on_exit``), goes on to scoring instead, which
leaves it unscored (``encounter_incomplete``, never a zero); the end of the case says what
failed in that line, the traceback goes to the sample's transcript, and the run goes on to
the next case and ends with the command that re-runs it. A model clinician's error is a
sample error as before.
"""

from __future__ import annotations

import traceback

from inspect_ai.log import transcript
from inspect_ai.solver import TaskState

from inspect_medsp.human.provider import NotForAPerson
from inspect_medsp.preflight import is_person


def ends_on_error(state: TaskState, error: Exception) -> bool:
    """The encounter's ``on_error``: for a person's case, keep the error's traceback in the
    transcript and go on (True); for a model's, and for the person's own provider refusing
    how it is used (``NotForAPerson``: a misuse that stops the run with its fix), let the
    error be a sample error (False). Called while the error is handled, so its traceback is
    the current one."""
    if not is_person(str(state.model)) or isinstance(error, NotForAPerson):
        return False
    transcript().info(
        "a model failed in a person's encounter: the encounter ended here, unscored, and the "
        "run went on (no traceback on the person's screen)\n\n" + traceback.format_exc()
    )
    return True
