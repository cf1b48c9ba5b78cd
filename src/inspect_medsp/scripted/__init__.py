"""``medsp/scripted``: a scripted stand-in for every role of the bundled demo scenarios.

It is not a model. It replays hand-written scripts (package data under ``scripts/``) so the
whole pipeline, from encounter to checklist to report, runs with no network and no key.
"""

from inspect_medsp.scripted.personas import PERSONAS, ContaminationPersona
from inspect_medsp.scripted.provider import MODEL_NAME, ScriptedMedSP
from inspect_medsp.scripted.recognise import demo_records, plays

__all__ = [
    "MODEL_NAME",
    "PERSONAS",
    "ContaminationPersona",
    "ScriptedMedSP",
    "demo_records",
    "plays",
]
