"""Specialty labels for every scenario: from the data, or from a classifier task's log."""

from inspect_medsp.record import SPECIALTIES
from inspect_medsp.specialty.file import SpecialtiesFile, label_records
from inspect_medsp.specialty.labels import canonical
from inspect_medsp.specialty.task import medsp_specialty

__all__ = [
    "SPECIALTIES",
    "SpecialtiesFile",
    "canonical",
    "label_records",
    "medsp_specialty",
]
