"""MedSP1000 standardized-patient encounters as Inspect AI evaluations."""

from inspect_medsp.data.errors import MedSPDataError
from inspect_medsp.encounter.solver import medsp_encounter, medsp_tools_encounter
from inspect_medsp.record.trajectory import Trajectory
from inspect_medsp.scoring.scorer import medsp_rubric
from inspect_medsp.specialty.task import medsp_specialty
from inspect_medsp.tasks import medsp100, medsp1000, medsp_demo, medsp_task

__all__ = [
    "MedSPDataError",
    "Trajectory",
    "medsp100",
    "medsp1000",
    "medsp_demo",
    "medsp_encounter",
    "medsp_rubric",
    "medsp_specialty",
    "medsp_task",
    "medsp_tools_encounter",
]
