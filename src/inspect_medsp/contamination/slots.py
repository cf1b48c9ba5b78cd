"""Which numbers of a case a slot may mask: values that are facts of the case, not parts of
its names, units or identifiers.

A reader cannot infer a case fact from the sentence around it: the 6.1 of "potassium
6.1 mmol/L" is the case's, the 2 of "type 2 diabetes", the 1.73 of "mL/min/1.73 m2", the
12 of "room 12" or the 19 of "COVID-19" are not (they are names, units and labels any reader
completes from the words around them, memory or not). So a slot masks only a plain number
(``6.1``, never ``120/80``: the prompt asks for one number) that

- stands apart as a word (no letter, ``-``, ``#``, ``:`` or ``/`` glued to it: ``m2``,
  ``spo2``, ``COVID-19``, ``MRN#4411`` and ``10:30`` are never values),
- is measured: a unit follows it (``mg``, ``mmHg``, ``%``, ``years``, ...) or a measurement is
  named in the three words before it (``INR``, ``heart rate``, ``temperature``, ...),
- is not a label's number: the word before it is not one that numbers a thing
  (``type``, ``stage``, ``room``, ``bed``, ``case``, ``version``, ...), and it is not a year.
"""

from __future__ import annotations

import re

from inspect_medsp.contamination.text import WORD

_VALUE = re.compile(r"\d+(?:\.\d+)?")
"""A plain number: ``7``, ``0.5`` (not ``120/80``: the slot prompt asks for one number)."""


def _listed(text: str) -> frozenset[str]:
    return frozenset(text.split(None))


UNITS = _listed(
    """
    mg mcg ug µg g kg lb lbs oz ml l dl cl mmhg cmh2o kpa bpm beats breaths puffs tablets
    tablet doses dose drops sprays times units unit iu u mu meq mmol mol umol µmol nmol pmol
    ng pg cells cell % percent c °c f °f celsius fahrenheit degrees cm mm m km in inches ft
    feet s sec secs second seconds min mins minute minutes h hr hrs hour hours day days week
    weeks wk wks month months mo year years yr yrs y kcal cal l/min ml/min ml/h ml/hr ml/kg
    mg/kg mcg/kg ug/kg mg/dl g/dl g/l mg/l mmol/l mmol/mol umol/l µmol/l meq/l iu/l u/l ng/ml
    ng/l pg/ml mcg/ml ug/ml kg/m2 mm3 x10 lpm l/m mm/h mm/hr points pts cigarettes
    packs drinks pack-years micromol/l micromol micrograms/l micrograms microgram
    milligrams grams litres liters millilitres milliliters kilograms
    """
)
"""Words that, following a number, say it is a measured value (compared in lower case)."""

MEASURES = _listed(
    """
    bp pressure systolic diastolic hr pulse rate rr respiratory respirations temp temperature
    t spo2 sao2 sats sat saturation saturations oxygen o2 fio2 weight weighs weighing height
    bmi age aged inr pt ptt aptt hb hgb haemoglobin hemoglobin hct haematocrit hematocrit
    wbc leukocytes neutrophils lymphocytes platelets plt sodium na potassium k chloride cl
    bicarbonate bicarb hco3 bun urea creatinine cr egfr glucose bg bsl sugar lactate troponin
    ph pco2 po2 pao2 paco2 gcs score apgar peak flow pef pefr fev1 fvc crp esr alt ast alp ggt
    bilirubin albumin protein tsh t4 a1c hba1c ldl hdl cholesterol triglycerides ferritin
    lipase amylase ck bnp d-dimer ddimer tryptase calcium ca magnesium phosphate osmolality
    qtc qt qrs ef ejection fraction level levels count dose dosage gestation gestational para
    gravida parity
    """
)
"""Words naming a measurement: a number within three words after one is a measured value."""

LABELS = _listed(
    """
    type types grade stage class phase step room bed ward floor bay case scenario station id
    mrn number no nr page version part section appendix table figure fig item question lead
    leads factor chapter module form line block cycle trial study visit session round
    patient actor exhibit slide document file schedule category tier cranial nerve
    """
)
"""Words that number a thing rather than measure it (``type 2``, ``room 12``)."""

_GLUED = frozenset("#:-/_.@")
"""Characters that, touching a number, make it part of a label, a time or a code."""

MEASURE_WINDOW = 3
"""Words before a number searched for a measurement's name."""


def is_case_value(text: str, matches: list[re.Match[str]], index: int) -> bool:
    """Whether the word ``matches[index]`` of ``text`` is a measured value of the case (see
    the module's rules), not a label, unit, name part, identifier, time or year."""
    match = matches[index]
    word = match.group(0)
    if not _VALUE.fullmatch(word):
        return False
    before = text[match.start() - 1] if match.start() > 0 else " "
    after = text[match.end()] if match.end() < len(text) else " "
    if before.isalnum() or before in _GLUED or after.isalnum() or after in "#:-_@":
        return False
    if re.fullmatch(r"(?:19|20)\d\d", word):
        return False  # a year: a date, not a measurement
    previous = matches[index - 1].group(0).casefold() if index > 0 else ""
    if previous in LABELS:
        return False
    following = matches[index + 1].group(0).casefold() if index + 1 < len(matches) else ""
    gap = text[match.end() : matches[index + 1].start()] if index + 1 < len(matches) else ""
    if after in "%°" or (following in UNITS and "\n" not in gap and len(gap.strip()) <= 1):
        return True
    window = [m.group(0).casefold() for m in matches[max(0, index - MEASURE_WINDOW) : index]]
    return any(w in MEASURES for w in window)


def _is_figure(word: str) -> bool:
    """A word of digits and signs, no letters (``61``, ``124/78``, ``7.31``): a value."""
    return any(c.isdigit() for c in word) and not any(c.isalpha() for c in word)


def clause(text: str, matches: list[re.Match[str]], index: int, before: int, after: int) -> range:
    """The indices of the words around ``matches[index]`` that name what it measures: at
    most ``before`` words before it and ``after`` after it, stopping at the sentence's end (a
    full stop, a semicolon, a question or exclamation mark, a line break) and before any
    other number (the case's other values are its details, not the measurement's name)."""

    def breaks(left: int, right: int) -> bool:
        gap = text[matches[left].end() : matches[right].start()]
        return any(c in gap for c in ".;!?\n")

    def numeric(at: int) -> bool:
        return _is_figure(matches[at].group(0))

    first = index
    while (
        first > 0
        and index - first < before
        and not breaks(first - 1, first)
        and not numeric(first - 1)
    ):
        first -= 1
    last = index
    while (
        last + 1 < len(matches)
        and last - index < after
        and not breaks(last, last + 1)
        and not numeric(last + 1)
    ):
        last += 1
    return range(first, last + 1)


def measurement(text: str, matches: list[re.Match[str]], index: int, mask: str) -> str:
    """What ``matches[index]`` measures, in the case's words and nothing else of the case:
    the measurement's name before it (from the nearest measurement word among the
    ``MEASURE_WINDOW`` words before it in its sentence, numbers and units left out), the mask,
    its unit, and the plain words that qualify it up to the next punctuation ("SpO2 [?] % on
    room air", "weight [?] kg", "Hb [?] g/L")."""
    shown = clause(text, matches, index, MEASURE_WINDOW, 0)
    near = [i for i in shown if i < index]
    named = [i for i in near if matches[i].group(0).casefold() in MEASURES]
    start = named[-1] if named else (near[0] if near else index)
    name = [
        matches[i].group(0)
        for i in range(start, index)
        if not _is_figure(matches[i].group(0))
        and (i == start or matches[i].group(0).casefold() not in UNITS)
    ]
    tail: list[str] = []
    end = matches[index].end()
    sign = re.match(r"\s?[%°]", text[end:])
    if sign:
        tail.append(sign.group(0).strip())
        end += sign.end()
    for j in range(index + 1, min(len(matches), index + 5)):
        gap = text[end : matches[j].start()]
        word = matches[j].group(0)
        if gap.strip() or _is_figure(word):
            break  # punctuation or another value ends what qualifies it
        tail.append(word)
        end = matches[j].end()
    return " ".join([*name, mask, *tail])


def words_of(text: str) -> list[re.Match[str]]:
    """The word matches of ``text``."""
    return list(WORD.finditer(text))
