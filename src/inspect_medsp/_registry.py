"""What Inspect registers from this package (entry point ``inspect_ai``)."""

from inspect_medsp.scoring.epochs import medsp_epochs
from inspect_medsp.scoring.scorer import medsp_rubric
from inspect_medsp.scripted.provider import ScriptedMedSP
from inspect_medsp.specialty.task import medsp_specialty
from inspect_medsp.tasks import medsp100, medsp1000, medsp_demo

__all__ = [
    "ScriptedMedSP",
    "medsp100",
    "medsp1000",
    "medsp_demo",
    "medsp_epochs",
    "medsp_rubric",
    "medsp_specialty",
]
