"""A tolerant reading of a specialty label a model wrote (the paper's labels themselves are the
log's vocabulary, in ``record/vocabulary.py``)."""

from __future__ import annotations

import re

from inspect_medsp.record import SPECIALTIES

_ALIASES: dict[str, str] = {
    "paediatrics": "Pediatrics",
    "pediatric": "Pediatrics",
    "paediatric": "Pediatrics",
    "emergency": "Emergency medicine",
    "emergency department": "Emergency medicine",
    "family medicine": "Primary care",
    "general practice": "Primary care",
    "obstetrics": "Obstetrics and gynecology",
    "gynecology": "Obstetrics and gynecology",
    "obstetrics and gynaecology": "Obstetrics and gynecology",
    "ob gyn": "Obstetrics and gynecology",
    "obgyn": "Obstetrics and gynecology",
    "general surgery": "Surgery",
    "intensive care": "Critical care",
    "critical care medicine": "Critical care",
    "geriatric medicine": "Geriatrics",
    "anesthesia": "Anesthesiology",
    "anaesthesia": "Anesthesiology",
    "anaesthesiology": "Anesthesiology",
    "infectious diseases": "Infectious disease",
    "hematology oncology": "Hematology and oncology",
    "haematology and oncology": "Hematology and oncology",
    "oncology": "Hematology and oncology",
    "hematology": "Hematology and oncology",
    "ent": "ENT and ophthalmology",
    "otolaryngology": "ENT and ophthalmology",
    "ophthalmology": "ENT and ophthalmology",
}
"""Spellings a model may use for a label (keys in :func:`_key` form)."""


def _key(text: str) -> str:
    text = text.lower().replace("&", " and ").replace("/", " ").replace("-", " ")
    return " ".join(re.sub(r"[^a-z ]", " ", text).split())


_LOOKUP: dict[str, str] = {**{_key(s): s for s in SPECIALTIES}, **_ALIASES}


def canonical(text: str) -> str | None:
    """The paper's label that ``text`` names (case, punctuation and common spellings aside).

    Returns None when ``text`` names no label.
    """
    return _LOOKUP.get(_key(text))
