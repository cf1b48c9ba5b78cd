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

from inspect_medsp.cases.namelists import (
    LOWER,
    NAME_PATTERN,
    common_words,
    listed_names,
    not_names,
)
from inspect_medsp.cases.shapes import (
    FACILITY_GENERIC,
    PATTERNS,
    REGIONS,
    IdentifierKind,
    phone_numbers,
)

__all__ = ["PATTERNS", "IdentifierKind"]

LOOKS_FOR: dict[IdentifierKind, str] = {
    "name": "a personal name in any Latin script (Rafał, Nguyễn, Ní Bhriain, van der Berg, "
    "al-Amin): a known given name (and the family name after it), or any capitalised word "
    "after Mr/Mrs/Dr..., 'named', 'name:' or a relative or member of staff",
    "date of birth": "DOB, date of birth, born on, geb., né le, and what follows",
    "date": "any date more specific than a year: 14/03/2025, 2025-03-14, 14 March, March "
    "2024, Christmas Eve 2021, 3. März",
    "age over 89": "an age of 90 or more (aged 92, 94-year-old, 91 yo, in her nineties)",
    "record number": "MRN, UR, URN, NHS, CHI, NHI, IHI, hospital, unit, chart, patient, "
    "case, lab or accession number with its digits",
    "account number": "account, insurance, policy, member, Medicare, Medicaid, health-card "
    "(OHIP, PPSN, carte vitale, KVNR), passport, licence, certificate, tax and social "
    "security or national insurance numbers, IBANs and card numbers",
    "phone number": "phone, mobile, fax, pager, bleep and extension numbers, in international "
    "form and in the national forms of GB, IE, US, CA, AU, NZ, DE and FR (phonenumbers)",
    "e-mail address": "an e-mail address, also written name[at]example.org or name at "
    "example dot org",
    "url": "a web address (https://..., www..., example.org/path)",
    "ip address": "an IPv4 or IPv6 address, or a MAC address",
    "street address": "a house number and street (English, Australian 3/14, German "
    "Hauptstraße 5, French 12 rue de la Paix), a flat, unit or apartment number, a PO box",
    "postcode": "UK, Irish (Eircode), US ZIP, Canadian, Australian and New Zealand (after a "
    "state or a town), German and French postcodes",
    "facility": "a named hospital, clinic, practice, surgery, nursing or care home, ward or "
    "unit (Riverside Medical Centre, Kingfisher Ward, Klinikum Nord)",
    "vehicle plate": "a registration or number plate (labelled, or in the UK, French or "
    "German shape)",
    "device serial number": "a serial, S/N, IMEI, UDI, lot or device ID number",
    "username": "a social-media handle (@name) or a username, login or handle with its value",
    "town": "a town, suburb or village after 'lives in', 'moved to', 'grew up in', 'born "
    "in', 'village of' ... (a country, a state or a province is not one: HIPAA Safe Harbor "
    "keeps states)",
}
"""What each kind of identifier is looked for as, in words (``medsp-cases check --help``)."""

FIXES: dict[IdentifierKind, str] = {
    "name": "invent a name and declare it in case.yaml (names: [...]), or write 'the patient', "
    "'her daughter'",
    "date of birth": "give the patient's age instead",
    "date": "give the age or a relative time instead (e.g. 'three years ago', 'day 2')",
    "age over 89": "write 'over 89' (or '90 or older'): HIPAA Safe Harbor groups every age "
    "above 89",
    "record number": "remove it: a case needs no record number",
    "account number": "remove it: a case needs no account, card or document number",
    "phone number": "remove it (if the case needs one, write 'the ward's extension' without "
    "digits)",
    "e-mail address": "remove it",
    "url": "remove it, or name the kind of site ('a patient forum')",
    "ip address": "remove it",
    "street address": "give the kind of place instead (e.g. 'a flat in the town centre')",
    "postcode": "remove it, or name the region only",
    "facility": "name the kind of place instead ('a district general hospital', 'her GP "
    "practice', 'a care home')",
    "vehicle plate": "remove it",
    "device serial number": "remove it; name the device only ('a dual-chamber pacemaker')",
    "username": "remove it",
    "town": "name the region or the kind of place instead ('a market town', 'a suburb')",
}
"""How to fix each kind."""

CANNOT_SEE = (
    "a name in no list and in no place only a name stands",
    "a lone given name opening a sentence",
    "lower-case names and names in non-Latin scripts",
    "a month alone ('in March') and a weekday alone ('last Tuesday')",
    "a small place named without an address or a facility word (a village, a street name "
    "alone)",
    "free-text identifiers with no label and no shape (an unusual job, a rare disease)",
    "facts that identify only together (a small village and an unusual job)",
)
"""What the check cannot see, in words (``medsp-cases check --help``)."""

_PARTICLE = (
    r"(?<![\w'\u2019])(?:van|von|der|den|de|del|della|delle|degli|dos|das|da|di|du|des|le|la|"
    r"ter|ten|bin|ben|bint|ibn|al|el|ap|Ó|Ua|Uí|Ní|Nic|Mac|Mhic|Bean|Van|Von|De|Del|Della|Da|"
    r"Di|Du|Dos|Le|La|Al|El|Bin|Ben|Ibn|Abu|Abd|Ter|Ten)"
)
"""What stands before a family name: van, von der, de la, Ó, Ní, al- (Ní Bhriain, al-Amin)."""
_NAME = rf"(?:{_PARTICLE}(?:\s+|-))*(?:{NAME_PATTERN})"
NAME_WORD = re.compile(_NAME)
_TWO = rf"((?:{_NAME})(?:\s+{_NAME}){{0,3}})"
HONORIFIC = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Mister|Fr|Rev|Revd|Pastor|Rabbi|Imam|Dame|"
    rf"Sir|Herr|Frau|Mme|Mlle|Mevr|Dhr|Sra|Srta|Sig|Sgr|Dott|Dra)\.?\s+(?:[A-Z]\.\s?){{0,3}}{_TWO}"
)
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
    r"physiotherapist|therapist|dietitian|technician|radiographer|sonographer|"
    r"social worker|case worker|key worker|support worker|care worker|health visitor|"
    r"care coordinator|advocate|solicitor|lawyer|priest|vicar|minister|rabbi|imam|landlord|"
    r"landlady|flatmate|housemate|roommate|employer|manager|supervisor|coach|tutor|lecturer|"
    r"classmate|godmother|godfather|stepmother|stepfather|stepson|stepdaughter|"
    r"(?:mother|father|son|daughter|brother|sister)-in-law|twin|girlfriend|boyfriend|spouse|"
    r"ex-wife|ex-husband|guardian|foster (?:mother|father|carer|parent)|babysitter|nanny|"
    r"childminder|housekeeper|cleaner|registrar|SHO|FY1|FY2|houseman|matron|sister|"
    r"consultant physician|anaesthetist|anesthetist|psychiatrist|psychologist|optometrist|"
    r"dentist|podiatrist|counsellor|counselor|midwife|doula|key contact|contact|NOK|"
    r"next of kin|emergency contact|referrer|attending|charge nurse|ward manager)"
    rf",?\s+{_TWO}"
)
EPONYM_AFTER = re.compile(
    r"^(?:['\u2019]s?\s+(?:disease|syndrome|sign|test|palsy|law|triad|phenomenon|criteria|wort|"
    r"score|rule|manoeuvre|maneuver|reflex|ulcer|cyst|fracture|hernia|node|solution|"
    r"lactate|position|procedure|operation|classification|stage|grade|formula|equation)|"
    r"-\w+|(?:['\u2019]s?)?\s+(?:disease|syndrome|sign|test|score|criteria|scale|rule|"
    r"manoeuvre|maneuver|reflex|palsy|tube|catheter|mask|airway|solution|lactate|position|"
    r"procedure|classification|stage|staging|grade|grading|fracture|hernia|node|bundle|"
    r"block|phenomenon|triad|law|equation|formula|method|technique|operation|repair|"
    r"stain|needle|forceps|splint|collar|drain|shunt|line|ulcer|cyst|tumou?r|lymphoma|"
    r"sarcoma|dementia|chorea|paralysis|index|questionnaire|tool|protocol|unit|ward|blade|"
    r"wort|paresis|pill|tablets?|capsules?|contraceptive|inhaler|injection|implant|patch|"
    r"spray|cream|drops|brand|manoeuvres?|maneuvers?|retractor|incision|approach|"
    r"classification|type|variant|anomaly|malformation|deformity|contracture|neuroma|"
    r"neuralgia|encephalopathy|thyroiditis|ophthalmopathy|sarcoma|membrane|canal|duct|"
    r"gland|space|pouch|triangle|area|body|bodies|cells?|nodes?)\b|"
    r"['\u2019]s?(?=\s*(?:[.,;:)]|$|\s+(?:and|or|as|is|was|with|which|that|but|in)\b)))",
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


_SENTENCE_END = re.compile(r"(?:[.!?\"\u201c(\[|]|^\s*#+)\s*$")
_OPENING = re.compile(r"(?:[.!?:;\"\u201c(\[|]|^\s*(?:[-*+>#]+|\d+[.)]))\s*$")
"""What may stand before a sentence's first word (where a capital says nothing). A list
marker, a colon and a semicolon do not: a capitalised given name after them is a name."""


def _starts_sentence(line: str, start: int) -> bool:
    """Whether the word at ``start`` begins a line, a list item, a heading or a sentence."""
    before = line[:start].replace("*", "").replace("_", "").rstrip()
    return not before or bool(_SENTENCE_END.search(before))


def _opens(line: str, start: int) -> bool:
    """Whether the word at ``start`` opens a sentence, a list item or a clause after a colon
    or a semicolon (where a capital may be a title's: "Interpreter Youssef Benali")."""
    before = line[:start].replace("*", "").replace("_", "").rstrip()
    return not before or bool(_OPENING.search(before))


def _is_eponym(line: str, end: int) -> bool:
    return bool(EPONYM_AFTER.match(line[end:]))


ACTS = re.compile(
    r"\s+(?:said|says|told|tells|asked|asks|reports|reported|rang|phoned|called|visited|"
    r"visits|came|comes|arrived|arrives|lives|lived|works|worked|was\s+(?:seen|reviewed|"
    r"admitted|brought|found|told)|is\s+(?:her|his|their|the\s+patient's)|has\s+been|"
    r"wants|wanted|agreed|declined|refused|thinks|thought|feels|felt|explained|mentioned|"
    r"drives|drove|brought|brings|takes|took|helps|helped|cares|stays|stayed|found|noticed|"
    r"texted|emailed|wrote|writes|knows|knew|died|married|returned|went|goes|attends|"
    r"attended|manages|managed|answered|answers|translated|translates|signed|consented|"
    r"collected|collects|rings|phones|calls|and\s+(?:her|his|their)\b|(?:is|was)\s+(?:a|an)\s+"
    r"(?:\d|retired|widow|nurse|teacher|student|friend|neighbou?r))\b"
)
"""What a person does after their name opens a sentence: "Tariq said", "Okafor was seen"."""
PLACE_BEFORE = re.compile(
    r"\b(?i:in|near|around|across|throughout|rural|regional|northern|southern|western|"
    r"eastern|central|outback|country|state of|interstate)\s+$"
)
"""What stands before a place rather than a person: "in Victoria", "rural Victoria"."""


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
            if pattern is HONORIFIC:
                for at in range(2, len(tokens)):  # past two words, only name-like ones
                    if not _surname_like(tokens[at].group(0), words):
                        tokens = tokens[:at]
                        break
            else:
                while tokens and tokens[0].group(0) in not_names():
                    tokens = tokens[1:]  # a title: "her sister, Sister Lindgren"
                kept: list[re.Match[str]] = []
                for token in tokens:
                    if not _surname_like(token.group(0), words):
                        break
                    kept.append(token)
                # after a relation, the first word must be a listed name ("patient Profile"),
                # or two name-like words must follow ("her son, Seán Ó Briain")
                listed = kept and (
                    len(kept) > 1 or any(kept[0].group(0) in names for names in listed_names())
                )
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
    given, family = listed_names()
    common = common_words()
    found: list[Finding] = []
    for run in _runs(line):
        if len(run) > 1 and _opens(line, run[0].start()):
            first = run[0].group(0)
            if first not in given or first in common or first.lower() in words:
                run = run[1:]  # "Interpreter Youssef Benali", "The Smiths"
        if not run:
            continue
        word = run[0].group(0)
        if word in common or word.lower() in words:
            continue
        if word not in given and not (  # family name first: "Nguyễn Thị Hoa"
            word in family
            and len(run) > 1
            and any(run[1].group(0) in names for names in (given, family))
        ):
            continue
        if not all(_surname_like(t.group(0), words) for t in run[1:]):
            continue
        alone = len(run) == 1
        if alone and (
            _is_eponym(line, run[0].end())
            or (_starts_sentence(line, run[0].start()) and not ACTS.match(line[run[0].end() :]))
            or PLACE_BEFORE.search(line[: run[0].start()])
        ):
            continue
        start, end = run[0].start(), run[-1].end()
        found.append(Finding("name", line[start:end], start, end))
    return found


_NOT_A_PLACE = re.compile(
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|The|A|An|His|Her|"
    r"Their|Our|My|Spring|Summer|Autumn|Winter|Fear|Hope|Hospital|Care|Residential)"
)


def _region(text: str) -> bool:
    """Whether a place found after 'lives in' is a country, a state or a province (kept by
    HIPAA Safe Harbor), or a word that is not a place ("lives in Fear", "born in March")."""
    first = text.split()[0] if text.split() else text
    return (
        text in REGIONS
        or first in REGIONS
        or bool(_NOT_A_PLACE.fullmatch(first))
        or (first in common_words() and first not in not_names())
    )


def _generic_facility(text: str, declared: frozenset[str]) -> bool:
    """Whether a facility's words only say what kind of place it is ("the District General
    Hospital", "Stroke Unit") or are names the case declares it invents, naming none."""
    return all(
        w.replace("\u2019", "'") in FACILITY_GENERIC or w in declared
        for w in re.findall(r"[\w'\u2019-]+", text)
    )


def declared_tokens(names: list[str]) -> frozenset[str]:
    """The words of a case's declared invented names (``case.yaml``'s ``names:``)."""
    return frozenset(t for name in names for t in NAME_WORD.findall(name))


def vocabulary(text: str) -> frozenset[str]:
    """The words ``text`` writes in lower case: a capitalised word that is also one of these
    is a word of the text ("Rose" at a sentence's start where "rose" is in it too)."""
    return frozenset(re.findall(rf"\b[{LOWER}]+\b", text))


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
            if kind == "facility" and _generic_facility(match.group(0), declared):
                continue
            claim(Finding(kind, match.group(0), match.start(), match.end()))
    taken[:] = [t for t in taken if t.kind != "town" or not _region(t.text)]
    for start, end in phone_numbers(line):
        claim(Finding("phone number", line[start:end], start, end))
    for finding in [*_in_context(line, words), *_listed_names(line, words)]:
        if not all(token in declared for token in NAME_WORD.findall(finding.text)):
            claim(finding)
    return sorted(taken, key=lambda f: f.start)
