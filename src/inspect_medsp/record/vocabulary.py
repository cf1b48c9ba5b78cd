"""The log's vocabulary as the record types it: the competencies a score is broken down by,
the case metadata fields a sample keeps, the specialty labels a sample is filed under, and how
an item's text is folded to be the same item across scenarios.

The competencies, rubric item and case metadata fields are the data layer's (``data/``); they
are named here so a reader of logs (the report) takes the whole vocabulary from the record.
"""

from __future__ import annotations

import re
import unicodedata

from inspect_medsp.data.models import COMPETENCIES, COMPETENCY_NAMES, Competency, RubricItem
from inspect_medsp.data.scenarios import CASE_META_FIELDS

__all__ = [
    "CASE_META_FIELDS",
    "COMPETENCIES",
    "COMPETENCY_NAMES",
    "MARKDOWN",
    "PUNCT",
    "SPECIALTIES",
    "Competency",
    "RubricItem",
    "normalise",
]

SPECIALTIES: tuple[str, ...] = (
    "Pediatrics",
    "Emergency medicine",
    "Primary care",
    "Internal medicine",
    "Obstetrics and gynecology",
    "Surgery",
    "Critical care",
    "Geriatrics",
    "Anesthesiology",
    "Psychiatry",
    "Infectious disease",
    "Hematology and oncology",
    "Dermatology",
    "ENT and ophthalmology",
    "Other",
)
"""The specialty labels of the MedSP1000 paper, in its order."""

MARKDOWN = re.compile(r"[*_`#>~]+")
"""Markdown marks, folded away with punctuation."""
PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
"""Punctuation: anything not a word character or space."""


def normalise(text: str) -> str:
    """Case, markdown, punctuation and whitespace folded away."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = MARKDOWN.sub(" ", text)
    text = PUNCT.sub(" ", text)
    return " ".join(text.split())
