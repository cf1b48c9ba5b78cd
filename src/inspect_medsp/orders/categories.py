"""The categories of a clinician's order, and the keyword table that decides one.

An order's category is decided, in this order: by a grading model when the scorer is given
``-S classify=<model>``; else by the keyword table below read over the environment's reading
of the order (its ``interpreted_action``); else by the same table over the clinician's own
words. An order no keyword matches is ``unclassified``: counted and named, priced only when a
price table names it.

The table is read left to right: the category whose keyword occurs first in the text wins
(an order usually leads with what it is: "Call the anaesthetist to assess the airway" is a
consultation, "Review the CT report" a look at the chart), ties going to the category listed
first.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

Category = Literal[
    "bedside",
    "laboratory",
    "imaging",
    "other_diagnostic",
    "medication",
    "procedure",
    "consultation",
    "disposition",
]
CATEGORIES: tuple[Category, ...] = get_args(Category)
"""The categories in the order the report lists them, read from `Category` itself."""
UNCLASSIFIED = "unclassified"

CATEGORY_NAMES: dict[str, str] = {
    "bedside": "history and examination at the bedside",
    "laboratory": "laboratory test",
    "imaging": "imaging",
    "other_diagnostic": "other diagnostic test (ECG, monitoring)",
    "medication": "medication",
    "procedure": "procedure",
    "consultation": "consultation or referral",
    "disposition": "disposition and safety-netting",
    UNCLASSIFIED: "not classified",
}
"""Each category in words, as the report and the viewer show it."""

CategorySource = Literal["model", "reading", "order", "none"]
"""How an order's category was decided: by the grading model (``-S classify``), by the
keyword table over the environment's reading, over the clinician's words, or not at all."""

_DOSE = r"\d+(?:\.\d+)?\s*(?:mg|g|mcg|micrograms?|ml|l/min|units?|mmol)\b"

KEYWORDS: dict[Category, tuple[str, ...]] = {
    "bedside": (
        r"history",
        r"examine",
        r"examination",
        r"assess",
        r"auscultat",
        r"palpat",
        r"listen",
        r"look for",
        r"inspect",
        r"review",
        r"chart",
        r"confirm",
        r"ask",
        r"sit",
        r"close the door",
        r"tissues",
        r"silence",
        r"lie",
        r"position",
        r"legs raised",
        r"vital signs",
        r"score",
    ),
    "laboratory": (
        r"blood count",
        r"full blood",
        r"cbc",
        r"chemistry",
        r"electrolytes",
        r"blood gas",
        r"venous gas",
        r"arterial gas",
        r"serum",
        r"tryptase",
        r"troponin",
        r"lactate",
        r"culture",
        r"urinalysis",
        r"urine",
        r"glucose",
        r"coagulation",
        r"crp",
        r"lab",
        r"sample",
        r"swab",
        r"pathology",
    ),
    "imaging": (
        r"x-ray",
        r"xray",
        r"radiograph",
        r"ct",
        r"ct scan",
        r"mri",
        r"ultrasound",
        r"echocardiogra",
        r"scan",
        r"imaging",
    ),
    "other_diagnostic": (
        r"ecg",
        r"ekg",
        r"monitoring",
        r"monitor",
        r"telemetry",
        r"spirometry",
        r"peak flow",
        r"pulse oximetry",
        r"eeg",
    ),
    "medication": (
        r"give",
        r"administer",
        r"epinephrine",
        r"adrenaline",
        r"oxygen",
        r"saline",
        r"bolus",
        r"nebuli[sz]ed",
        r"orally",
        r"prescri\w*",
        r"pharmacy",
        r"dispense",
        r"dose",
        r"infusion",
        r"antibiotic",
        _DOSE,
    ),
    "procedure": (
        r"cannula",
        r"cannulas",
        r"insert",
        r"intubat\w*",
        r"catheter",
        r"lumbar puncture",
        r"suture",
        r"drain",
        r"defibrillat\w*",
        r"cardiover\w*",
        r"incision",
        r"splint",
    ),
    "consultation": (
        r"call",
        r"consult",
        r"refer",
        r"referral",
        r"page",
        r"tumou?r board",
        r"specialist",
        r"list the case",
    ),
    "disposition": (
        r"admit",
        r"admission",
        r"discharge",
        r"observation unit",
        r"transfer",
        r"follow-up",
        r"safety-net",
        r"return if",
        r"note the",
        r"document",
        r"incident report",
    ),
}
"""The keywords of each category (regular expressions, matched as whole words with an
optional plural ending, in any case)."""

_PATTERNS: dict[Category, re.Pattern[str]] = {
    category: re.compile(r"\b(?:" + "|".join(words) + r")(?:e?s)?\b", re.IGNORECASE)
    for category, words in KEYWORDS.items()
}


def keyword_category(text: str) -> Category | None:
    """The category of ``text`` by the keyword table (the earliest keyword wins, ties to
    the category listed first), or None when no keyword occurs."""
    best: tuple[int, int, Category] | None = None
    for rank, category in enumerate(CATEGORIES):
        found = _PATTERNS[category].search(text)
        if found is not None and (best is None or (found.start(), rank) < best[:2]):
            best = (found.start(), rank, category)
    return best[2] if best is not None else None


def decide(reading: str, order: str) -> tuple[str, CategorySource]:
    """The category of an order and how it was decided, without a model: the keyword table
    over the environment's reading, else over the clinician's words, else unclassified."""
    if reading.strip():
        found = keyword_category(reading)
        if found is not None:
            return found, "reading"
    found = keyword_category(order)
    if found is not None:
        return found, "order"
    return UNCLASSIFIED, "none"
