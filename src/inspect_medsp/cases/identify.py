"""Find what likely identifies a person in a case's text, before the text leaves the building.

Two methods, each for what it does well:

- **Patterns** for the identifiers that have a shape: dates of birth and full dates, record
  numbers (MRN, NHS, chart, hospital), account, insurance, passport and social security
  numbers, phone, pager and extension numbers, e-mail addresses, street addresses, and UK,
  US and Canadian postcodes.
- **Names**, which have no shape: a capitalised word that a names list knows as a first name
  (with the word after it when that is capitalised too), and any capitalised word in a place
  only a name stands (after Mr, Mrs, Dr..., after "named", "name:", or after a relative or a
  member of staff: "her daughter Jane"). The list is the given and family names of Faker's
  61 locales whose names are in Latin script (a maintained MIT library on PyPI, about 19,000
  given and 18,000 family names), less common English words and the clinical eponyms and
  places a case uses as words (Parkinson, Glasgow, Wells): :mod:`~inspect_medsp.cases.namelists`.

A statistical recogniser (spaCy, Presidio, a transformer) would find names no list has, but
each needs a model downloaded from outside PyPI at run time, which a hospital's machine
(and this project's) may not reach; a check that runs everywhere, says what it looks for and
is measured (README, "Identifiers") is the better trade here.

What it cannot see: a name that is in no list and in no such place ("Okonkwo was seen"),
a lone given name opening a sentence (too often a word there), lower-case names, a day and
month without a year, names in non-Latin scripts, ages over 89, rare diseases, occupations,
photographs, and facts that identify only together (a small village and an unusual job).
A case invents its people's names and declares them in ``case.yaml`` (``names:``): every
other name found is flagged, so each name in a case is a decision, not an accident.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from inspect_medsp.cases.namelists import NAME_PATTERN, common_words, listed_names, not_names

IdentifierKind = Literal[
    "name",
    "date of birth",
    "date",
    "record number",
    "account number",
    "phone number",
    "e-mail address",
    "street address",
    "postcode",
]

LOOKS_FOR: dict[IdentifierKind, str] = {
    "name": "a personal name: a known given name (and the word after it), or any capitalised "
    "word after Mr/Mrs/Dr..., 'named', 'name:' or a relative or member of staff",
    "date of birth": "DOB, date of birth or born on, and what follows",
    "date": "a day, month and year (14/03/2025, 2025-03-14, 14-Mar-2025, March 14, 2025)",
    "record number": "MRN, medical record, chart, hospital, unit, patient ID, NHS or CHI number "
    "with its digits",
    "account number": "account, insurance, policy, member, passport, licence, Medicare or "
    "national insurance number, and social security numbers",
    "phone number": "phone, mobile, fax, pager, bleep and extension numbers",
    "e-mail address": "an e-mail address",
    "street address": "a house number and street, a flat, unit or apartment number, a PO box",
    "postcode": "UK postcodes, US ZIP codes (after a state or 'ZIP'), Canadian postal codes",
}
"""What each kind of identifier is looked for as, in words (``medsp-cases check --help``)."""

FIXES: dict[IdentifierKind, str] = {
    "name": "invent a name and declare it in case.yaml (names: [...]), or write 'the patient', "
    "'her daughter'",
    "date of birth": "give the patient's age instead",
    "date": "give the age or a relative time instead (e.g. 'three years ago', 'day 2')",
    "record number": "remove it: a case needs no record number",
    "account number": "remove it: a case needs no account or document number",
    "phone number": "remove it (if the case needs one, write 'the ward's extension' without "
    "digits)",
    "e-mail address": "remove it",
    "street address": "give the kind of place instead (e.g. 'a flat in the town centre')",
    "postcode": "remove it, or name the region only",
}
"""How to fix each kind."""

CANNOT_SEE = (
    "a name in no list and in no place only a name stands",
    "a lone given name opening a sentence",
    "lower-case names and names in non-Latin scripts",
    "a day and month without a year",
    "facts that identify only together (a small village and an unusual job)",
)
"""What the check cannot see, in words (``medsp-cases check --help``)."""

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_NUMBER_WORD = r"(?:number|no\.?|num\.?|#|ID)"
_VALUE = r"[:#]?\s*(?:is\s+)?(?-i:[A-Z]{0,3})[\s-]?\d[\d\s/-]{2,}\d(?-i:[A-Z]?)\b"
"""An identifier's value after its label: digits, maybe a letter prefix, spaces or dashes."""
_STREET = (
    r"Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Way|Place|Pl|"
    r"Terrace|Close|Crescent|Square|Sq|Parkway|Highway|Hwy|Gardens|Grove|Row|Mews|Walk|Rise|"
    r"Hill|Park|Green|View|Circle|Cir|Trail|Estate"
)

PATTERNS: tuple[tuple[IdentifierKind, re.Pattern[str]], ...] = (
    (
        "date of birth",
        re.compile(
            r"\b(?:DOB|D\.O\.B\.?|date of birth|birth ?date|born on|born)\b\s*[:\-]?\s*(?:is\s+)?"
            rf"(?:\S*\d\S*|{_MONTH}\b\S*(?:\s+\d\S*)?)",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            r"(?<![\d./])(?:\d{1,2}([/.\-])\d{1,2}\1(?:19|20)?\d{2}(?!\d|[./]\d)|"
            r"(?:19|20)\d{2}([-/.])\d{1,2}\2\d{1,2}\b|"
            rf"\d{{1,2}}[-/ ]{_MONTH}[-/ ](?:19|20)?\d{{2}}|"
            rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+(?:19|20)\d{{2}}|"
            rf"{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d{{2}})\b",
            re.I,
        ),
    ),
    (
        "record number",
        re.compile(
            r"\b(?:(?:MRN|URN|NHS|CHI)\b\s*(?:number|no\.?|num\.?|#|ID)?|(?:medical record|"
            r"record|hospital|chart|unit|case|patient|health(?: service)?)\s*"
            rf"{_NUMBER_WORD})\s*{_VALUE}",
            re.I,
        ),
    ),
    (
        "account number",
        re.compile(
            r"\b(?:account|acct|insurance|insurer|policy|member(?:ship)?|subscriber|"
            r"passport|(?:driver'?s\s+)?licen[cs]e|medicare|medicaid|social security|SSN|"
            r"national insurance|NI|health card|beneficiary|claim|billing)\s*"
            rf"{_NUMBER_WORD}\s*{_VALUE}|\b(?:SSN|passport)\s*{_VALUE}",
            re.I,
        ),
    ),
    (
        "account number",
        re.compile(r"\b\d{3}-\d{2}-\d{4}\b|\b[A-CEGHJ-PR-TW-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b"),
    ),
    (
        "phone number",
        re.compile(
            r"(?:\b(?:phone|tel|telephone|mobile|cell|fax|landline|contact)\b\.?\s*"
            r"(?:no\.?|number)?\s*[:#]?\s*(?:is\s+)?\+?[\d(][\d\s().\-]{6,}\d|"
            r"\+\d{1,3}[\s.\-]?\(?\d{2,4}\)?[\s.\-]?\d{3,4}[\s.\-]?\d{3,4}\b|"
            r"\(\d{3}\)\s?\d{3}[\s.\-]\d{4}\b|\b\d{3}[.\-\s]\d{3}[.\-\s]\d{4}\b|"
            r"\b0\d{4}\s?\d{6}\b|\b0\d{2,3}\s\d{3,4}\s\d{4}\b)",
            re.I,
        ),
    ),
    (
        "phone number",
        re.compile(
            r"\b(?:pager|bleep|beeper|ext|extension)\b\.?\s*(?:no\.?|number)?\s*[:#]?\s*"
            r"(?:is\s+)?\d{3,6}\b",
            re.I,
        ),
    ),
    ("e-mail address", re.compile(r"\b[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+\b")),
    (
        "street address",
        re.compile(
            rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][a-z]+\s+){{1,3}}(?:{_STREET})\b\.?|"
            r"\b(?:Apt|Apartment|Flat|Unit|Suite)\.?\s*#?\d+[A-Z]?\b|\bP\.?\s?O\.?\s+Box\s+\d+",
        ),
    ),
    (
        "postcode",
        re.compile(
            r"\b(?:GIR 0AA|[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?\s\d[ABD-HJLNP-UW-Z]{2})\b|"
            r"\b(?:A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|"
            r"O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[TA]|W[AVIY])\s+\d{5}(?:-\d{4})?\b|"
            r"\b(?:ZIP|zip code|postcode|post code|postal code)\s*[:#]?\s*"
            r"[A-Z\d]{2,4}\s?[A-Z\d]{3,5}\b|"
            r"\b\d{5}-\d{4}\b|\b[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z]\s\d[ABCEGHJ-NPRSTV-Z]\d\b",
        ),
    ),
)
"""Each kind's patterns, in the order they are tried (the first to claim a stretch wins)."""

_NAME = NAME_PATTERN
NAME_WORD = re.compile(_NAME)
_TWO = rf"((?:{_NAME})(?:\s+{_NAME})?)"
HONORIFIC = re.compile(rf"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Mister)\.?\s+{_TWO}")
LABELLED = re.compile(
    r"\b(?:[Nn]amed|[Cc]alled|[Kk]nown as|[Gg]oes by|[Nn]ame(?:\s+is|:)|[Ss]urname:?|"
    rf"[Ss]igned(?: by)?:?)\s+{_TWO}"
)
RELATION = re.compile(
    r"\b(?i:wife|husband|son|daughter|mother|father|mum|mom|dad|brother|sister|partner|"
    r"fianc[ée]e?|friend|neighbou?r|carer|caregiver|granddaughter|grandson|grandmother|"
    r"grandfather|aunt|uncle|niece|nephew|cousin|colleague|boss|consultant|registrar|"
    r"nurse|midwife|paramedic|GP|doctor|physician|surgeon|resident|intern|pharmacist|"
    r"student|chaplain|interpreter|teacher|patient|HCA|porter|clerk|receptionist|"
    r"physiotherapist|therapist|dietitian|technician|radiographer|sonographer)"
    rf",?\s+{_TWO}"
)
EPONYM_AFTER = re.compile(
    r"^(?:['\u2019]s?\s+(?:disease|syndrome|sign|test|palsy|law|triad|phenomenon|criteria|wort|"
    r"score|rule|manoeuvre|maneuver|reflex|ulcer|cyst|fracture|hernia|node|solution|"
    r"lactate|position|procedure|operation|classification|stage|grade|formula|equation)|"
    r"-\w+|\s+(?:disease|syndrome|sign|test|score|criteria|scale|rule|"
    r"manoeuvre|maneuver|reflex|palsy|tube|catheter|mask|airway|solution|lactate|position|"
    r"procedure|classification|stage|staging|grade|grading|fracture|hernia|node|bundle|"
    r"block|phenomenon|triad|law|equation|formula|method|technique|operation|repair|"
    r"stain|needle|forceps|splint|collar|drain|shunt|line|ulcer|cyst|tumou?r|lymphoma|"
    r"sarcoma|dementia|chorea|paralysis|index|questionnaire|tool|protocol|unit|ward|blade|"
    r"wort)\b)",
    re.I,
)
"""What follows an eponym rather than a person: ``Bell's palsy``, ``Glasgow Coma Scale``."""


@dataclass(frozen=True)
class Finding:
    """One likely identifier in one line."""

    kind: IdentifierKind
    text: str
    start: int
    end: int


_SENTENCE_END = re.compile(r"(?:[.!?:;\"\u201c(\[|]|^\s*(?:[-*+>#]+|\d+[.)]))\s*$")


def _starts_sentence(line: str, start: int) -> bool:
    """Whether the word at ``start`` begins a line, a list item, a heading or a sentence."""
    before = line[:start].replace("*", "").replace("_", "").rstrip()
    return not before or bool(_SENTENCE_END.search(before))


def _is_eponym(line: str, end: int) -> bool:
    return bool(EPONYM_AFTER.match(line[end:]))


def _runs(line: str) -> list[list[re.Match[str]]]:
    """The capitalised words of ``line`` in runs (words joined by one space)."""
    runs: list[list[re.Match[str]]] = []
    for token in NAME_WORD.finditer(line):
        if token.start() and (line[token.start() - 1].isalnum() or line[token.start() - 1] == "_"):
            continue  # inside a word: "M1Wash"
        if runs and line[runs[-1][-1].end() : token.start()] == " ":
            runs[-1].append(token)
        else:
            runs.append([token])
    return runs


def _surname_like(word: str, words: frozenset[str]) -> bool:
    """A capitalised word that may follow a given name: a listed name, or a word that is
    neither a common word nor written in lower case in the text."""
    given, family = listed_names()
    if word in given or word in family:
        return word not in not_names()
    return word not in common_words() and word.lower() not in words


def _in_context(line: str, words: frozenset[str]) -> list[Finding]:
    """Capitalised words where a name stands: after a title or a label (any word), or after
    a relation or a member of staff (a word that may be a name: "her daughter Jane")."""
    found: list[Finding] = []
    for pattern in (HONORIFIC, LABELLED, RELATION):
        for match in pattern.finditer(line):
            tokens = list(NAME_WORD.finditer(match.group(1)))
            if pattern is not HONORIFIC:
                while tokens and tokens[0].group(0) in not_names():
                    tokens = tokens[1:]  # a title: "her sister, Sister Lindgren"
                kept: list[re.Match[str]] = []
                for token in tokens:
                    if not _surname_like(token.group(0), words):
                        break
                    kept.append(token)
                # after a relation, the first word must be a listed name: "patient Profile"
                listed = kept and any(kept[0].group(0) in names for names in listed_names())
                tokens = kept if pattern is LABELLED or listed else []
            if not tokens:
                continue
            start = match.start(1) + tokens[0].start()
            end = match.start(1) + tokens[-1].end()
            if pattern is not HONORIFIC and _is_eponym(line, end):
                continue
            found.append(Finding("name", line[start:end], start, end))
    return found


def _listed_names(line: str, words: frozenset[str]) -> list[Finding]:
    """Known given names, with the family name after them. A run of capitalised words that
    goes on with a word no name is ("Harm Reduction", "Last Oral Intake") is a title, and a
    word the text also writes in lower case is a word."""
    given = listed_names()[0]
    common = common_words()
    found: list[Finding] = []
    for run in _runs(line):
        if len(run) > 1 and _starts_sentence(line, run[0].start()):
            first = run[0].group(0)
            if first not in given or first in common or first.lower() in words:
                run = run[1:]  # "Interpreter Youssef Benali", "The Smiths"
        if not run:
            continue
        word = run[0].group(0)
        if word not in given or word in common or word.lower() in words:
            continue
        if not all(_surname_like(t.group(0), words) for t in run[1:]):
            continue
        alone = len(run) == 1
        if alone and (_is_eponym(line, run[0].end()) or _starts_sentence(line, run[0].start())):
            continue
        start, end = run[0].start(), run[-1].end()
        found.append(Finding("name", line[start:end], start, end))
    return found


def declared_tokens(names: list[str]) -> frozenset[str]:
    """The words of a case's declared invented names (``case.yaml``'s ``names:``)."""
    return frozenset(t for name in names for t in NAME_WORD.findall(name))


def vocabulary(text: str) -> frozenset[str]:
    """The words ``text`` writes in lower case: a capitalised word that is also one of these
    is a word of the text ("Rose" at a sentence's start where "rose" is in it too)."""
    return frozenset(re.findall(r"\b[a-zß-öø-ÿ]+\b", text))


def find(
    line: str,
    declared: frozenset[str] = frozenset(),
    words: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Every likely identifier in one line of text, each stretch once (patterns first, then
    names), in the order they appear.

    Args:
        line: One line of a case's text.
        declared: The words of the names the case declares it invents (never flagged).
        words: The lower-case words of the whole text (:func:`vocabulary`).
    """
    taken: list[Finding] = []

    def claim(finding: Finding) -> None:
        if not any(finding.start < t.end and t.start < finding.end for t in taken):
            taken.append(finding)

    for kind, pattern in PATTERNS:
        for match in pattern.finditer(line):
            claim(Finding(kind, match.group(0), match.start(), match.end()))
    for finding in [*_in_context(line, words), *_listed_names(line, words)]:
        if not all(token in declared for token in NAME_WORD.findall(finding.text)):
            claim(finding)
    return sorted(taken, key=lambda f: f.start)
