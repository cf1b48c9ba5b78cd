from inspect_medsp.encounter.roles import CLINICIAN
from inspect_medsp.encounter.solver import (
    CLINICIAN_ROLE,
    ClinicianPolicy,
    Protocol,
    medsp_encounter,
    medsp_tools_encounter,
)
from inspect_medsp.encounter.texts import PACKAGE, patient_opening, render

__all__ = [
    "CLINICIAN",
    "CLINICIAN_ROLE",
    "PACKAGE",
    "ClinicianPolicy",
    "Protocol",
    "medsp_encounter",
    "medsp_tools_encounter",
    "patient_opening",
    "render",
]
