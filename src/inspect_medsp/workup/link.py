"""Which met rubric items an order serves, read from the words of both (no model).

An order and an item are each read as a set of *terms*: a clinical concept from the synonym
table below (IV, cannula and venous access are one concept; ECG and cardiac monitor another;
SpO2, saturation and pulse oximetry a third), else a content word cut to its stem. Words in
the scope of a negation in an item ("... before any antihistamine or steroid", "without
jargon") are not its terms: an item does not ask for what it rules out. A concept weighs
:data:`CONCEPT` (2), a plain word :data:`WORD` (1); a term that occurs in more than
:data:`COMMON` of the rubric's items (a patient's name, the case's main drug) weighs half; a
plain word of :data:`RARE_CHARS` letters or more in a single item (a drug or test the table
does not name) weighs as a concept.

An order *serves* an item when the terms they share weigh :data:`LINK_AT` (2) or more: one
shared concept, or two shared words. Of the items it serves, an order keeps those within
:data:`KEEP` of its best (an epinephrine order serves the item about epinephrine, not every
item that names a dose). An order that shares only a single plain word with some met item,
or that has no terms at all, is *undecided*: it is shown as such and left out of the share
of orders not asked for. An order that shares nothing with any met item is *not linked to a
met item*.

The grader's quote, when it traces to an order (``tally.cited_line``), is one more signal:
the quoted order serves the item whatever its words.

The same reading places a met item in the encounter's turns when the grader quotes nothing:
the earliest turn of an order that serves it, or of the clinician's words that share
:data:`SAID_AT` (2) with it, the turn
sharing most (the earliest of equals).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from inspect_medsp.orders import words

CONCEPT = 2.0
"""The weight of a shared clinical concept (a synonym table entry)."""
WORD = 1.0
"""The weight of a shared plain content word."""
LINK_AT = 2.0
"""Shared weight at which an order serves an item."""
KEEP = 0.8
"""An order keeps the items it serves whose shared weight is at least this share of its best."""
SAID_AT = 2.0
"""Shared weight at which the clinician's words of a turn place an item in that turn."""
COMMON = 0.2
"""A term in more than this share of a rubric's items (and in more than three) is common."""
RARE_CHARS = 7
"""A plain word this long (as stemmed) in a single item of the rubric weighs as a concept."""
COMMON_WEIGHT = 0.5
"""A common term (a patient's name, the case's main drug) weighs this share of its weight."""

# fmt: off
SYNONYMS: dict[str, tuple[str, ...]] = {
    # access, monitoring and observations
    "ivaccess": (
        "iv access", "intravenous access", "venous access", "iv line", "intravenous line",
        "cannula", "cannulas", "cannulae", "cannulation", "cannulate", "large bore",
        "io access", "intraosseous",
    ),
    "ecg": ("ecg", "ekg", "electrocardiogram", "cardiac monitor", "cardiac monitoring",
            "telemetry", "cardiorespiratory"),
    "monitoring": ("monitoring", "monitor", "monitored", "observations", "obs", "vital signs",
                   "vitals"),
    "spo2": ("spo2", "sao2", "saturation", "saturations", "sats", "pulse oximetry",
             "oximetry", "oxygen saturation"),
    "bloodpressure": ("blood pressure", "bp", "hypotension", "hypotensive"),
    # drugs and routes
    "epinephrine": ("epinephrine", "adrenaline", "adrenalin"),
    "autoinjector": ("auto injector", "auto injectors", "autoinjector", "epipen", "epi pen"),
    "im": ("im", "intramuscular", "intramuscularly"),
    "oxygen": ("oxygen", "o2", "non rebreather", "nonrebreather", "face mask", "nasal cannula",
               "high flow"),
    "fluids": ("saline", "crystalloid", "fluid bolus", "bolus", "fluids", "hartmann",
               "ringer", "lactated ringer"),
    "bronchodilator": ("salbutamol", "albuterol", "ventolin", "bronchodilator",
                       "nebuliser", "nebulizer", "nebulised", "nebulized", "spacer"),
    "ipratropium": ("ipratropium", "atrovent"),
    "steroid": ("steroid", "steroids", "corticosteroid", "corticosteroids", "dexamethasone",
                "prednisolone", "prednisone", "hydrocortisone", "methylprednisolone"),
    "antihistamine": ("antihistamine", "antihistamines", "cetirizine", "chlorphenamine",
                      "chlorpheniramine", "diphenhydramine", "loratadine", "fexofenadine"),
    "magnesium": ("magnesium", "mgso4"),
    "analgesia": ("analgesia", "analgesic", "pain relief", "paracetamol", "acetaminophen",
                  "ibuprofen", "morphine", "opioid"),
    "antibiotic": ("antibiotic", "antibiotics", "amoxicillin", "ceftriaxone",
                   "co amoxiclav", "benzylpenicillin", "gentamicin"),
    "prescription": ("prescription", "prescribe", "prescribes", "pharmacy", "pharmacist",
                     "dispense", "supply", "refill", "refills"),
    "preventer": ("preventer", "fluticasone", "budesonide", "beclometasone",
                  "inhaled corticosteroid", "controller"),
    # tests
    "bloodgas": ("blood gas", "venous gas", "arterial gas", "vbg", "abg", "pco2", "ph"),
    "bloodcount": ("blood count", "full blood count", "fbc", "cbc", "haemoglobin",
                   "hemoglobin", "hb", "wcc", "white cell", "platelets"),
    "chemistry": ("chemistry", "electrolytes", "u&e", "urea", "creatinine", "renal function",
                  "sodium", "potassium"),
    "tryptase": ("tryptase", "mast cell"),
    "troponin": ("troponin", "trop", "hs trop"),
    "lactate": ("lactate", "lactic acid"),
    "culture": ("culture", "cultures", "blood culture", "blood cultures"),
    "crp": ("crp", "c reactive protein"),
    "urinalysis": ("urinalysis", "urine dipstick", "dipstick", "urine test", "msu"),
    "coagulation": ("coagulation", "clotting", "inr", "pt", "aptt"),
    "antiplatelet": ("aspirin", "clopidogrel", "ticagrelor", "antiplatelet"),
    "glucose": ("glucose", "blood sugar", "capillary glucose", "bm"),
    "imaging": ("x ray", "xray", "radiograph", "ct", "mri", "ultrasound", "scan", "imaging"),
    "severity": ("severity score", "pram", "pews", "news", "news2", "gcs"),
    "examine": ("examine", "examines", "examination", "re examine", "re examines",
                "reassess", "reassesses", "re assess", "assess", "assesses"),
    "airway": ("airway", "stridor", "intubation", "intubate"),
    # people and places
    "anaesthesia": ("anaesthetist", "anaesthesia", "anesthesia", "anesthetist",
                    "anesthesiologist", "airway team"),
    "icu": ("picu", "icu", "intensive care", "critical care", "hdu", "high dependency"),
    "admission": ("admit", "admits", "admitted", "admission", "admitting",
                  "observation unit", "ward"),
    "refer": ("refer", "refers", "referral", "referred", "referring"),
    "allergy": ("allergy", "allergies", "allergist", "allergic"),
    "oncology": ("oncology", "oncologist", "medical oncology"),
    "mdt": ("mdt", "multidisciplinary", "tumour board", "tumor board"),
    "pager": ("pager", "bleep", "bleeper"),
    "private": ("private room", "close the door", "closes the door", "door closed", "privacy",
                "private"),
    "seated": ("seated", "sitting", "sit down", "sits down", "seat", "have a seat"),
    "silence": ("silence", "silent", "quietly", "pause", "pauses"),
    "position": ("lie", "lying", "flat", "legs raised", "supine", "semi sitting",
                 "recovery position", "trolley"),
    "incident": ("incident report", "patient safety", "quality and safety", "safety process",
                 "datix", "quality"),
    "observe": ("observe", "observation", "overnight", "stay"),
    "nurse": ("nurse", "nurses", "nursing"),
    "repeat": ("repeat", "repeats", "repeated", "repeating", "second dose", "second", "again",
               "further dose", "each round"),
    "confirm": ("confirm", "confirms", "confirmed", "check back", "read back"),
    "teachback": ("teach back", "teach-back", "check understanding", "checks understanding",
                  "checking understanding"),
    "leaflet": ("leaflet", "written plan", "action plan", "emergency plan",
                "written information", "booklet"),
    "smoking": ("smoking", "smoke", "cessation", "tobacco"),
    "socialwork": ("social work", "social worker", "counselling", "chaplain", "chaplaincy",
                   "nurse navigator", "support services"),
    "followup": ("follow up", "follow-up", "appointment", "next contact", "see you"),
}
# fmt: on
"""Clinical concepts and the words and phrases that name each (whole words, ``_``, ``-`` and
``/`` read as spaces). A term of either text that a phrase names is the concept."""

_STOP_WORDS = """
    a an the and or of to in on at by for with from into onto as is are be been being was
    were it its this that these those he she him her his hers they them their we our you your
    i me my do does did done not no any all each every both either more most less very so
    than then there here when what which who whom how why where if while after before about
    around once early now again also only just such e g eg etc per up down out over under via
    give gives given giving start starts started use uses using take takes taken make makes
    made get gets ask asks tell tells say says keep keeps let lets offer offers patient
    patients mr mrs ms dr doctor clinician will would should can could may might must need
    needs one two three first second time times minute minutes hour hours day days within
    rather instead other another same new right left mg ml kg min l g mcg micrograms"""
_STOP = frozenset(_STOP_WORDS.split())
"""Words that are no term: function words, generic verbs, units."""

_NEGATION = re.compile(
    r"\b(?:before any|without|does not|do not|doesn't|don't|not|no|never|avoids?|rather than|"
    r"instead of|other than|nor)\b[^,;.:()]*"
)
"""A negation and the words it rules out, to the next punctuation."""

_NON_WORD = re.compile(r"[^\w&% ]+")


def _stem(word: str) -> str:
    for suffix in ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word[:8]


@cache
def _phrases() -> list[tuple[re.Pattern[str], str]]:
    pairs = [(words(p), concept) for concept, ps in SYNONYMS.items() for p in ps]
    pairs.sort(key=lambda pc: -len(pc[0]))
    return [(re.compile(rf"(?<![\w&]){re.escape(p)}(?![\w&])"), f"§{c}") for p, c in pairs]


@cache
def terms(text: str, negations: bool = False) -> frozenset[str]:
    """The terms of ``text``: each concept it names (``§ecg``) and each other content word's
    stem; with ``negations``, the words a negation rules out are dropped first."""
    folded = words(text).replace("\u2019", "'")
    if negations:
        folded = _NEGATION.sub(" ", folded)
    folded = _NON_WORD.sub(" ", folded).replace("'", " ")
    found: set[str] = set()
    for pattern, concept in _phrases():
        if pattern.search(folded):
            found.add(concept)
            folded = pattern.sub(" ", folded)
    for word in folded.split():
        if word in _STOP or len(word) < 3 or any(ch.isdigit() for ch in word):
            continue
        found.add(_stem(word))
    return frozenset(found)


def weight(term: str) -> float:
    """A term's weight: a concept's or a plain word's."""
    return CONCEPT if term.startswith("§") else WORD


@dataclass(frozen=True)
class Rubric:
    """The items an encounter's orders are linked to, read once."""

    texts: dict[int, str]
    """Every item's text by number."""
    met: frozenset[int]
    """The numbers of the met items."""
    item_terms: dict[int, frozenset[str]] = field(default_factory=dict)
    common: frozenset[str] = frozenset()
    rare: frozenset[str] = frozenset()
    """Plain words of :data:`RARE_CHARS` or more in one item only (a drug or a test the table
    does not know, "tryptase"): they weigh as a concept."""

    @classmethod
    def of(cls, texts: dict[int, str], met: Iterable[int]) -> Rubric:
        item_terms = {n: terms(t, negations=True) for n, t in texts.items()}
        counts = Counter(t for ts in item_terms.values() for t in ts)
        limit = max(3.0, COMMON * len(texts))
        common = frozenset(t for t, n in counts.items() if n > limit)
        rare = frozenset(
            t for t, n in counts.items() if n == 1 and len(t) >= RARE_CHARS and t[0] != "§"
        )
        return cls(texts, frozenset(met), item_terms, common, rare)

    def shared(self, text_terms: frozenset[str], number: int) -> float:
        """The weight of the terms ``text_terms`` shares with item ``number``."""
        both = text_terms & self.item_terms.get(number, frozenset())
        return sum(
            (CONCEPT if t in self.rare else weight(t)) * (COMMON_WEIGHT if t in self.common else 1)
            for t in both
        )


Necessity = Literal["linked", "not_linked", "undecided", "unknown"]
"""``linked`` (serves a met item), ``not_linked`` (shares nothing with one), ``undecided``, or
``unknown`` (no rubric verdicts to link to)."""


@dataclass(frozen=True)
class OrderLink:
    """What one order serves and how that was decided."""

    serves: tuple[int, ...]
    """The met items it serves (by the grader's quote or by words)."""
    by: tuple[str, ...]
    """The signals that linked it: ``quote``, ``words`` or ``model``."""
    necessity: Necessity


def link_order(
    order: str,
    reading: str,
    rubric: Rubric,
    quoted: Sequence[int] = (),
    model: Sequence[int] | None = None,
) -> OrderLink:
    """The met items an order serves (module docstring), from its words, the environment's
    reading of it and, when the grader quoted it, the items whose evidence quotes it. With
    ``model`` (the items a linking model gave for this order, ``linkmodel.py``) the model's
    met items take the place of the words'."""
    quoted_met = [n for n in quoted if n in rubric.met]
    if model is not None:
        by_model = [n for n in model if n in rubric.met]
        serves = tuple(sorted(set(by_model) | set(quoted_met)))
        by = tuple(s for s, on in (("quote", quoted_met), ("model", by_model)) if on)
        return OrderLink(serves, by, "linked" if serves else "not_linked")
    own = terms(order) | terms(reading)
    scores = {n: rubric.shared(own, n) for n in sorted(rubric.met)}
    best = max(scores.values(), default=0.0)
    by_words = (
        [n for n, s in scores.items() if s >= LINK_AT and s >= KEEP * best]
        if best >= LINK_AT
        else []
    )
    serves = tuple(sorted(set(by_words) | set(quoted_met)))
    by = tuple(s for s, on in (("quote", quoted_met), ("words", by_words)) if on)
    if serves:
        return OrderLink(serves, by, "linked")
    if not (own - rubric.common) or best > 0:
        return OrderLink((), (), "undecided")
    return OrderLink((), (), "not_linked")


def said_turns(said: Sequence[tuple[int, str]], rubric: Rubric) -> dict[int, int]:
    """The turn each met item is placed in by the clinician's words ``said`` (turn, words):
    the turn sharing most with it, at least :data:`SAID_AT` (the earliest of equals)."""
    best: dict[int, tuple[float, int]] = {}
    for turn, text in said:
        own = terms(text)
        for n in sorted(rubric.met):
            score = rubric.shared(own, n)
            if score >= SAID_AT and score > best.get(n, (0.0, 0))[0]:
                best[n] = (score, turn)
    return {n: turn for n, (_, turn) in best.items()}


def answers(order: str, reading: str, report: str) -> bool:
    """Whether an environment's later report (a result, a reading, a state event) answers a
    pending order: it shares a concept or two words with the order and does not itself say
    the order is still awaited."""
    if _AWAITED.search(words(report)):
        return False
    own = terms(order) | terms(reading)
    return sum(weight(t) for t in own & terms(report)) >= LINK_AT


_AWAITED = re.compile(
    r"\b(?:pending|awaited|awaiting|not (?:yet )?back|still (?:waiting|to come)|sent|"
    r"requested|ordered|drawn|on (?:its|their) way|in progress|processing)\b"
)
"""A report that says an order is still on its way answers nothing."""
