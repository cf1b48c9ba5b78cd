"""The identifiers that have a shape, found by pattern: each HIPAA Safe Harbor kind that is
written as digits, codes or set phrases, in its common British, Irish, American, Canadian,
Australian, New Zealand, German and French forms. Phone numbers are also read by
``phonenumbers`` (Google's libphonenumber metadata, a maintained Apache-2.0 package on PyPI
that ships its data), which knows each country's numbering plan.

The names (:mod:`~inspect_medsp.cases.identify`) are found by list and by place; the
patterns here are tried first, so a stretch one of them claims is not read as a name.
"""

from __future__ import annotations

import re
from importlib.resources import files
from typing import Literal

from inspect_medsp.cases.namelists import LOWER, UPPER

IdentifierKind = Literal[
    "name",
    "date of birth",
    "date",
    "age over 89",
    "record number",
    "account number",
    "phone number",
    "e-mail address",
    "url",
    "ip address",
    "street address",
    "postcode",
    "facility",
    "vehicle plate",
    "device serial number",
    "username",
    "town",
]

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
    r"januar|februar|märz|mai|juni|juli|oktober|dezember|"
    r"janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre)"
)
_MONTH_CAP = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?|JAN|FEB|MAR|APR|MAY|JUN|"
    r"JUL|AUG|SEP|SEPT|OCT|NOV|DEC)"
)
"""A month written with a capital (``May`` the month, not ``may`` the verb)."""
_YEAR = r"(?:19|20)\d{2}"
_FIXED_DAYS = (
    r"Christmas(?:\s+(?:Eve|Day))?|Boxing\s+Day|New\s+Year(?:['\u2019]s)?\s+(?:Eve|Day)|"
    r"Hogmanay|Hallowe['\u2019]?en|Bonfire\s+Night|Guy\s+Fawkes\s+Night|Valentine['\u2019]s\s+Day|"
    r"St\.?\s+Patrick['\u2019]s\s+Day|Bastille\s+Day|ANZAC\s+Day|Anzac\s+Day|Australia\s+Day|"
    r"Waitangi\s+Day|Canada\s+Day|Independence\s+Day|Armistice\s+Day|Remembrance\s+Day|"
    r"Heiligabend|Silvester"
)
_MOVING_DAYS = (
    r"Easter(?:\s+(?:Sunday|Monday|Day))?|Good\s+Friday|Thanksgiving(?:\s+Day)?|"
    r"Mother['\u2019]s\s+Day|Father['\u2019]s\s+Day|Labou?r\s+Day|Memorial\s+Day|Eid(?:\s+al-\w+)?|"
    r"Diwali|Ramadan|Yom\s+Kippur|Rosh\s+Hashanah|Chinese\s+New\s+Year|Lunar\s+New\s+Year|"
    r"(?:Early|Late|Spring|Summer|August)\s+Bank\s+Holiday|Pentecost|Whit\s+(?:Sunday|Monday)"
)
_NUMBER_WORD = r"(?:number|numbers|no\.?|nos\.?|num\.?|nr\.?|#|ID|card|code|ref(?:erence)?)"
_VALUE = (
    r"[:#]?\s*(?:is\s+|was\s+|of\s+)?(?-i:[A-Z]{0,4})[\s-]?\d[\d\s/-]{2,}\d(?-i:[A-Z]{0,2})\b|"
    r"[:#]?\s*(?:is\s+|was\s+|of\s+)?(?-i:[A-Z]{0,4})\d{3,}(?-i:[A-Z]{0,2})\b|"
    r"[:#]?\s*(?:is\s+|was\s+|of\s+)?(?-i:[A-Z]{3}\s?\d{4})\b"
)
"""An identifier's value after its label: digits, maybe a letter prefix (``RJ0048271``,
``ABC1234`` as a New Zealand NHI), spaces or dashes."""
_VALUE_AFTER = rf"(?:{_VALUE})"
_STREET = (
    r"Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Way|Place|Pl|"
    r"Terrace|Tce|Close|Cl|Crescent|Cres|Square|Sq|Parkway|Pkwy|Highway|Hwy|Gardens|Gdns|"
    r"Grove|Row|Mews|Walk|Rise|Hill|Park|Green|View|Circle|Cir|Trail|Estate|Parade|Pde|"
    r"Esplanade|Quay|Wharf|Wynd|Brae|Loan|Path|Alley|Loop|Pike|Turnpike|Broadway|Heights|"
    r"Vale|Meadow|Meadows|Gate|Yard|Point|Reach|Strand|Glade|Dene|Chase|Croft|Fold|Bank|"
    r"Hollow|Ridge|Track|Avenida|Calle"
)
_CAP = rf"[{UPPER}][{LOWER}'\u2019]+"
_DE_STREET = (
    r"[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)*(?:straße|strasse|str\.|weg|allee|platz|gasse|"
    r"ring|damm|ufer|chaussee|steig|pfad|markt|graben|wall|berg|hof|kamp|stieg|tor|zeile)|"
    r"(?:Am|An\s+der|Auf\s+dem|Im|In\s+der|Zum|Zur|Alte[rn]?|Neue[rn]?|Große[rn]?|Kleine[rn]?)"
    rf"\s+{_CAP}(?:straße|strasse|weg|allee|platz|gasse|ring|markt)?"
)
_FR_STREET = (
    r"(?i:rue|avenue|av\.|boulevard|bd|bld|chemin|allée|allee|impasse|place|quai|cours|route|"
    r"passage|square|voie|sentier|faubourg|rond-point|résidence|lotissement)"
    r"\s+(?:(?:de\s+la|de\s+l['\u2019]|du|des|de|d['\u2019]|la|le|les|l['\u2019]|"
    r"saint|sainte|st|ste)\s*)*"
    rf"{_CAP}(?:[\s-]+{_CAP})*"
)
_AU_STATE = r"(?:NSW|VIC|Vic|QLD|Qld|WA|SA|TAS|Tas|ACT|NT)"
_US_STATE = (
    r"(?:A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|O[HKR]|PA|RI|"
    r"S[CD]|T[NX]|UT|V[TA]|W[AVIY])"
)
_CA_POSTAL = r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z]\s?\d[ABCEGHJ-NPRSTV-Z]\d"
_EIRCODE = r"(?:[AC-FHKNPRTV-Y]\d{2}|D6W)\s?[0-9AC-FHKNPRTV-Y]{4}"
_UK_POSTCODE = r"(?:GIR 0AA|[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?\s\d[ABD-HJLNP-UW-Z]{2})"
_NOT_A_TOWN = (
    r"(?!(?:IU|Units?|units?|Einheiten|Patients?|Cases?|Mg|Kg|Days?|Weeks?|Years?|Hours?|"
    r"Minutes?|Steps?|Calories|Cells|Copies|Jahre|Tage|Stunden|Std|Euro|EUR|Dollars?|Pounds?|"
    r"Words?|Pages?|Items?|Points?)\b)"
)
_FACILITY_WORD = (
    r"(?:Hospital|Hospice|Infirmary|Clinic|Clinics|Surgery|Practice|Medical\s+(?:Centre|Center|"
    r"Practice|Group)|Health\s+(?:Centre|Center|Clinic)|Healthcare|Health\s+Care|"
    r"Nursing\s+Home|Care\s+Home|Residential\s+Home|Rest\s+Home|Retirement\s+(?:Home|Village)|"
    r"Aged\s+Care|Care\s+Centre|Care\s+Center|Rehabilitation\s+(?:Centre|Center|Unit)|"
    r"Rehab(?:ilitation)?\s+Centre|Ward|Unit|Wing|Pavilion|Lodge|House|Court|Manor|"
    r"Sanatorium|Dispensary|Pharmacy|Chemist|Walk-in\s+Centre|Urgent\s+Care|Polyclinic)"
)
FACILITY_GENERIC = frozenset(
    word
    for line in files("inspect_medsp.cases")
    .joinpath("facility_words.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    for word in line.split("#")[0].split()
)
REGIONS = frozenset(
    line.split("#")[0].strip()
    for line in files("inspect_medsp.cases").joinpath("regions.txt").read_text(encoding="utf-8")
    .splitlines()
    if line.split("#")[0].strip()
)
"""Countries, states and provinces: places HIPAA Safe Harbor keeps (``regions.txt``)."""
"""Words that say what kind of place a facility is, not which: a run of only these before
``Hospital``, ``Clinic``, ``Ward`` names no facility ("the District General Hospital")."""


def _c(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


PATTERNS: tuple[tuple[IdentifierKind, re.Pattern[str]], ...] = (
    (
        "url",
        _c(
            r"\b(?:https?://|ftp://|www\.)[^\s<>\"')\]]+[^\s<>\"')\].,;:!?]|"
            r"\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|info|"
            r"co\.uk|org\.uk|nhs\.uk|ac\.uk|gov\.uk|ie|com\.au|org\.au|gov\.au|co\.nz|org\.nz|"
            r"govt\.nz|de|fr|ca)/[^\s<>\"')\]]*[^\s<>\"')\].,;:!?]|"
            r"(?<![@\w.\-\])}>])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|info|biz|me|"
            r"co\.uk|org\.uk|me\.uk|com\.au|net\.au|co\.nz|ie)\b(?![@\w-])",
            re.I,
        ),
    ),
    (
        "e-mail address",
        _c(
            r"\b[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+\b|"
            r"\b[\w.+\-]+\s*(?:\[at\]|\(at\)|\{at\}|<at>|\s+at\s+|\s+AT\s+)\s*[\w\-]+"
            r"(?:\s*(?:\.|\[dot\]|\(dot\)|\{dot\}|\s+dot\s+|\s+DOT\s+)\s*[\w\-]+)*"
            r"\s*(?:\[dot\]|\(dot\)|\{dot\}|\s+dot\s+|\s+DOT\s+)\s*"
            r"(?:com|org|net|edu|gov|uk|ie|au|nz|de|fr|ca|io|info|mail)\b|"
            r"\b[\w.+\-]+\s*(?:\[at\]|\(at\)|\{at\}|<at>)\s*[\w\-]+(?:\.[\w\-]+)+\b",
            re.I,
        ),
    ),
    (
        "ip address",
        _c(
            r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}"
            r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.]*\d)|"
            r"\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:){1,6}:[0-9a-f]{1,4}\b|"
            r"\b(?:MAC(?: address)?|IP(?: address)?)\s*[:#]?\s*(?:[0-9A-F]{2}[:-]){5}[0-9A-F]{2}\b",
            re.I,
        ),
    ),
    (
        "date of birth",
        _c(
            r"\b(?:DOB|D\.O\.B\.?|date of birth|birth ?date|geb\.|geboren(?: am)?|"
            r"né(?:e)? le|date de naissance)\b\s*[:\-]?\s*(?:is\s+|was\s+)?"
            rf"(?:\S*\d\S*|{_MONTH}\b\S*(?:\s+\d\S*)?)|"
            rf"\bborn\b\s*(?:on\s+|in\s+)?[:\-]?\s*(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
            rf"{_MONTH}\b\.?,?(?:\s+{_YEAR})?|{_MONTH}\b\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?"
            rf"{_YEAR}|{_MONTH}\b\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
            r"\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}|(?:19|20)\d{2}-\d{1,2}-\d{1,2}|"
            rf"(?:on\s+)?(?:{_FIXED_DAYS}|{_MOVING_DAYS})(?:,?\s+{_YEAR})?)",
            re.I,
        ),
    ),
    (
        "date",
        _c(
            r"(?<![\d./])(?:\d{1,2}([/.\-])\d{1,2}\1(?:19|20)?\d{2}(?!\d|[./]\d)|"
            r"(?:19|20)\d{2}([-/.])\d{1,2}\2\d{1,2}\b|"
            rf"\d{{1,2}}[-/ ]{_MONTH}[-/ ](?:19|20)?\d{{2}}|"
            rf"\d{{1,2}}(?:st|nd|rd|th|\.)?\s+(?:of\s+)?{_MONTH}\.?,?\s+{_YEAR}|"
            rf"{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+{_YEAR}|"
            rf"(?:0?[1-9]|1[0-2])/{_YEAR})\b",
            re.I,
        ),
    ),
    (
        "date",
        _c(
            rf"\b(?:(?:{_FIXED_DAYS}|{_MOVING_DAYS})(?:\s+of)?,?\s+{_YEAR}|"
            rf"(?:(?:early|mid|late|end of|beginning of|start of)[\s-]+)?{_MONTH_CAP}\.?,?[\s/-]+"
            rf"(?:of\s+)?{_YEAR}|{_YEAR}-(?:0[1-9]|1[0-2])(?![-\d])|"
            rf"\d{{1,2}}\.\s?(?:Januar|Februar|März|April|Mai|Juni|Juli|August|September|"
            rf"Oktober|November|Dezember)\s+{_YEAR}|"
            r"\d{1,2}(?:er)?\s+(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|"
            rf"octobre|novembre|décembre)\s+{_YEAR})\b",
        ),
    ),
    (
        "age over 89",
        _c(
            r"\b(?:aged?|âge|alter)\s*[:=]?\s*(?:9\d|1[0-2]\d)\b(?!\s*(?:%|mg|ml|kg|mmol|/))|"
            r"\b(?:9\d|1[0-2]\d)[\s-]*(?:years?|yrs?|yr)[\s-]*(?:old|of age)\b|"
            r"\b(?:9\d|1[0-2]\d)[\s-]?(?:y/?o|y\.o\.?|yo|yrs?|Jahre(?: alt)?|ans)(?!\w)|"
            r"\b(?:9\d|1[0-2]\d)\s*(?-i:[MF])\b(?=[\s,.;)]|$)|"
            r"\b(?:ninety|one hundred)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?"
            r"[\s-]*(?:years?|yrs?)[\s-]*(?:old|of age)|"
            r"\baged?\s+(?:ninety|one hundred)(?:[\s-](?:one|two|three|four|five|six|seven|"
            r"eight|nine))?\b|"
            r"\bin\s+(?:his|her|their)\s+(?:late\s+|early\s+|mid-?\s*)?(?:nineties|90s|hundreds)\b|"
            r"\b(?:nonagenarian|centenarian|supercentenarian)s?\b|"
            r"\b(?:9\d|1[0-2]\d)(?:st|nd|rd|th)\s+birthday\b|"
            r"\b(?:she|he|they|who|patient|and)\s+(?:is|was|'s|\u2019s)\s+(?:now\s+)?"
            r"(?:9\d|1[0-2]\d)\b(?!\s*(?:%|mg|ml|kg|mmol|/|bpm|mmHg|beats|breaths|per|min|sec|"
            r"°|kilos?|pounds?|lbs?|cm|kg|percent|years? ago))|"
            r"\b(?:is\s+now|turned|turns|celebrated\s+(?:her|his|their))\s+"
            r"(?:9\d|1[0-2]\d)\b(?!\s*(?:%|mg|ml|kg|mmol|/|bpm|mmHg|beats|breaths|per|min|°))|"
            rf"(?<=[{LOWER}]),\s+(?:9\d|1[0-2]\d)\b(?=\s*[,;)]|\s+(?:was|is|has|lives|"
            r"presents|attends|comes|who|with)\b)",
            re.I,
        ),
    ),
    (
        "record number",
        _c(
            r"\b(?:(?:M\.R\.N\.?|MRN|UMRN|URN|UR|NHS|CHI|HCN|NHI|IHI|EHR|EMR|HRN|PAS|H&C|K-?Nr|"
            r"Fallnummer|Patienten-?(?:nummer|ID)|IPP|NIP)\b\.?\s*(?:number|no\.?|num\.?|nr\.?|"
            r"#|ID)?|(?:medical record|med(?:ical)? rec|record|hospital|hosp|chart|unit|"
            r"unit record|case|patient|pt|health(?: service)?|clinic|admission|encounter|"
            r"episode|visit|lab|accession|specimen|sample|referral|GP|practice|file|registration|"
            rf"folder|identifier|identity|ID)\.?\s*{_NUMBER_WORD})\s*{_VALUE_AFTER}",
            re.I,
        ),
    ),
    (
        "record number",
        _c(r"\b(?:MRN|URN|UR|NHI|CHI|IHI)[:#]?\s*(?=[A-Z]*\d)[A-Z\d][A-Z\d\s-]{3,}\d\b"),
    ),
    (
        "account number",
        _c(
            r"\b(?:account|acct|a/c|bank|IBAN|sort code|BSB|routing|card|credit card|debit card|"
            r"insurance|insurer|insured|policy|member(?:ship)?|subscriber|group|plan|"
            r"passport|(?:driver'?s\s+|driving\s+)?licen[cs]e|medicare|medicaid|"
            r"social security|social insurance|SSN|SIN|national insurance|NI|PPS|PPSN|"
            r"health card|health insurance|OHIP|RAMQ|MSP|AHCIP|MBI|HICN|beneficiary|claim|"
            r"billing|invoice|certificate|registration|tax|TFN|IRD|Krankenversicherten|"
            r"Versicherten|Versicherungs|KVNR|sécurité sociale|sécu|NIR|carte vitale|AMELI|"
            r"ECHI|EHIC|DVA|veteran'?s?|pension|concession|benefits?|Gold Card|employee|staff|"
            r"student|badge|National Health Index|Individual Healthcare Identifier|PESEL|BSN|"
            r"personnummer|CPR|AHV|SVNR|codice fiscale|NIF|NIE|DNI|CURP|RFC|Aadhaar|"
            r"Steuer-?ID|Sozialversicherungs(?:nummer)?|numéro de sécurité sociale)\s*"
            rf"(?:{_NUMBER_WORD})?\s*{_VALUE_AFTER}|"
            rf"\b(?:SSN|SIN|passport|IBAN|TFN|MBI|OHIP|NIR|KVNR|PPSN)\s*{_VALUE_AFTER}",
            re.I,
        ),
    ),
    (
        "account number",
        _c(
            r"\b\d{3}-\d{2}-\d{4}\b|\b[A-CEGHJ-PR-TW-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b|"
            r"\b\d{4}\s\d{5}\s\d\b|\b\d{7}[A-W][A-IW]?\b|"
            r"\b[A-Z]{2}\d{2}(?:\s?[A-Z\d]{4}){3,7}(?:\s?[A-Z\d]{1,3})?\b|"
            r"\b[12]\s?\d{2}\s?\d{2}\s?\d{2}\s?\d{3}\s?\d{3}\s?\d{2}\b|"
            r"\b[A-Z]\d{9}\b"
        ),
    ),
    (
        "device serial number",
        _c(
            r"\b(?:serial|S/N|SN|ser\.|IMEI|UDI|device ID|device identifier|lot|batch|"
            r"model/serial|asset tag|implant ID|generator)\b\.?\s*(?:number|no\.?|num\.?|#|ID|"
            r"code)?\s*[:#]?\s*(?:is\s+)?(?=[\w-]*\d)[A-Z0-9][A-Z0-9\-/.]{3,}[A-Z0-9]\b|"
            r"\(01\)\d{14}(?:\(\d{2}\)[\w-]+)*",
            re.I,
        ),
    ),
    (
        "vehicle plate",
        _c(
            r"\b(?:registration|reg\.?|rego|number plate|licen[cs]e plate|plate|plates|"
            r"Kennzeichen|immatriculation|plaque|VIN|vehicle)\s*(?:number|no\.?|#|ID)?\s*"
            r"[:#]?\s*(?:is\s+|was\s+)?(?=[A-Z\d\s-]*\d)(?=[A-Z\d\s-]*[A-Z])"
            r"[A-Z\d]{1,4}(?:[\s-]?[A-Z\d]{1,4}){1,4}\b|"
            r"\b[A-Z]{2}\d{2}\s?[A-Z]{3}\b|\b[A-Z]{2}-\d{3}-[A-Z]{2}\b|"
            r"\b\d{2,3}-[A-Z]{1,2}-\d{1,6}\b"
        ),
    ),
    (
        "account number",
        _c(r"\b\d{4}[\s-]\d{4}[\s-]\d{4}[\s-]\d{4}\b"),
    ),
    (
        "phone number",
        _c(
            r"(?:\b(?:phone|ph|tel|telephone|mobile|mob|cell|cellphone|fax|landline|contact|"
            r"call|ring|text|WhatsApp|Handy|Telefon|portable|téléphone|numéro|on)\b\.?\s*"
            r"(?:no\.?|number|nr\.?)?\s*[:#]?\s*(?:is\s+)?\+?[\d(][\d\s().\-]{6,}\d|"
            r"\+\d{1,3}[\s.\-]?\(?\d{1,4}\)?(?:[\s.\-]?\d{2,4}){2,4}\b|"
            r"\(\d{2,5}\)\s?\d{3,4}[\s.\-]?\d{3,4}\b|\b\d{3}[.\-\s]\d{3}[.\-\s]\d{4}\b|"
            r"\b0\d{4}\s?\d{6}\b|\b0\d{2,3}\s\d{3,4}\s\d{3,4}\b|\b04\d{2}\s?\d{3}\s?\d{3}\b|"
            r"\b0[1-9](?:[\s.]\d{2}){4}\b|\b07\d{3}\s?\d{3}\s?\d{3}\b|\b1[38]00\s?\d{3}\s?\d{3}\b|\b13\s?\d{2}\s?\d{2}\b(?=\D*$))",
            re.I,
        ),
    ),
    (
        "phone number",
        _c(
            r"\b(?:pager|bleep|beeper|ext|extension|(?-i:x))\b\.?\s*(?:no\.?|number)?\s*[:#]?\s*"
            r"(?:is\s+)?\d{3,6}\b|\b(?-i:x)\d{3,6}\b",
            re.I,
        ),
    ),
    (
        "street address",
        _c(
            rf"\b(?:\d{{1,4}}[A-Za-z]?\s*/\s*)?\d{{1,5}}[A-Za-z]?(?:-\d{{1,5}})?,?\s+"
            r"(?:(?:N|S|E|W|NE|NW|SE|SW)\.?\s+)?"
            rf"(?:(?:{_CAP}|\d{{1,3}}(?:st|nd|rd|th))\s+){{1,3}}(?:{_STREET})\b\.?(?:\s+(?:North|South|East|West|N|S|E|W|NE|NW|"
            r"SE|SW))?\b"
            rf"(?:,\s*(?!(?:{_AU_STATE}|{_US_STATE})\b){_CAP}(?:[\s-]{_CAP}){{0,2}}\b(?!\s*\d)){{0,2}}|"
            r"\b(?:Apt|Apartment|Flat|Unit|Suite|Ste|Appartement|Wohnung|Whg\.?)\.?\s*#?"
            r"\s*\d+[A-Z]?\b|\bP\.?\s?O\.?\s+Box\s+\d+|\bPostfach\s+\d+|"
            rf"\b(?:{_DE_STREET})\s+\d{{1,4}}\s?[a-z]?\b|"
            rf"\b{_CAP}(?:[\s-]{_CAP})?\s+(?:Allee|Straße|Strasse|Str\.|Weg|Platz|Ring|Damm|Ufer|"
            r"Gasse|Chaussee|Landstraße|Steig)\s+\d{1,4}\s?[a-z]?\b|"
            rf"(?:(?<=\bon\s)|(?<=\bat\s)|(?<=\boff\s)|(?<=\bnear\s)|(?<=,\s)|(?<=\bin\s))"
            rf"(?!(?:The|A|An|This|That|Main|High|Silk|Abbey|Memory|Yellow|Brick)\s){_CAP}"
            r"(?:\s[A-Z][a-z]+)?\s(?:Street|Road|Avenue|Lane|Drive|Crescent|Terrace|Boulevard|"
            r"Parade|Esplanade|Grove|Gardens|Mews)\b|"
            rf"\b\d{{1,4}}(?:\s?(?:bis|ter))?,?\s+{_FR_STREET}|"
            r"\b(?:Rural Route|Rural Delivery)\s*\d+\b|"
            r"\b(?:Lot|Lots)\s+\d+\b(?=[^.]*\b(?:Road|Rd|Street|St|Highway|Hwy|Lane)\b)",
        ),
    ),
    (
        "postcode",
        _c(
            rf"\b{_UK_POSTCODE}\b|"
            rf"\b{_US_STATE}\s+\d{{5}}(?:-\d{{4}})?\b|"
            r"\b(?:ZIP|zip code|zipcode|postcode|post code|postal code|PLZ|code postal|"
            r"Eircode)\s*[:#]?\s*[A-Z\d]{2,4}\s?[A-Z\d]{3,5}\b|"
            rf"\b\d{{5}}-\d{{4}}\b|\b{_CA_POSTAL}\b|\b{_EIRCODE}\b|"
            rf"\b{_AU_STATE},?\s+\d{{4}}\b|"
            rf"(?<=,\s)(?:{_CAP}\s+){{0,2}}{_CAP}\s+\d{{4}}\b(?!\s*(?:[-/:.]\d|mg|ml|kg|%|[);]))|"
            rf"(?:(?<=,\s)|(?<=^)|(?<=\s))(?:D-|F-|DE-|FR-)?\d{{5}}\s+{_NOT_A_TOWN}"
            rf"(?-i:[A-ZÄÖÜÉÈ][a-zäöüßéèêàç]+)(?:[\s-](?:am|an der|sur|en|le|la|de|"
            r"[A-ZÄÖÜÉ][a-zäöüßéèêàç]+)){0,3}\b(?!\s*(?:mg|ml|kg|units|IU))",
        ),
    ),
    (
        "username",
        _c(
            r"(?<![\w.@])@[A-Za-z0-9_](?:[A-Za-z0-9_.]{1,28}[A-Za-z0-9_])\b|"
            r"\b(?:user\s?name|username|login|handle|gamertag|screen name|Skype|Instagram|"
            r"Twitter|TikTok|Snapchat|Facebook|Discord)\s*(?:name|ID|handle)?\s*(?:is\s+|:\s*)"
            r"@?(?=[\w.]*[\d_.])[A-Za-z0-9_.]{3,30}\b",
            re.I,
        ),
    ),
    (
        "town",
        _c(
            r"(?:(?<=\blives in\s)|(?<=\blived in\s)|(?<=\bliving in\s)|(?<=\bmoved to\s)|"
            r"(?<=\bmoved from\s)|(?<=\bgrew up in\s)|(?<=\bresident of\s)|"
            r"(?<=\bresiding in\s)|(?<=\bborn in\s)|(?<=\bvillage of\s)|(?<=\btown of\s)|"
            r"(?<=\bcity of\s)|(?<=\bsuburb of\s)|(?<=\bfarm near\s)|(?<=\bnear the town of\s)|"
            r"(?<=\bhome in\s)|(?<=\bflat in\s)|(?<=\bhouse in\s)|(?<=\bfarm in\s))"
            rf"{_CAP}(?:[\s-](?:(?:upon|on|under|in|le|la|de|sur|am|an der)[\s-])?{_CAP}){{0,2}}"
        ),
    ),
    (
        "facility",
        _c(
            r"\b(?:(?:St\.?|Saint|Sankt|San|Santa|Sainte?)\s+)?"
            rf"(?:{_CAP}(?:\s+|-)){{1,4}}{_FACILITY_WORD}\b|"
            r"\b(?:Hospital|Infirmary|Hospice|Clinic|Home|Centre|Center)\s+of\s+(?:the\s+)?"
            rf"(?:St\.?\s+)?{_CAP}(?:[\s-]+{_CAP}){{0,3}}|"
            r"\b(?:Klinikum|Krankenhaus|Klinik|Praxis|Hôpital|Hopital|Clinique|"
            r"Centre\s+Hospitalier|CHU|Maison\s+de\s+santé|Maison\s+de\s+retraite|EHPAD|"
            r"Résidence|Residenz|Stift|Pflegeheim|Seniorenheim|"
            r"Altenheim)\s+(?:de\s+(?:la\s+)?|du\s+|des\s+|am\s+|an\s+der\s+)?"
            rf"(?:St\.?\s+|Saint-?\s*)?{_CAP}(?:[\s-]+{_CAP}){{0,3}}|"
            rf"\b{_CAP}(?:-{_CAP})?-(?:Klinik|Klinikum|Krankenhaus|Spital|Hospital)\b|"
            rf"\b{_CAP}(?:klinik|klinikum|krankenhaus|spital)\b",
        ),
    ),
)
"""Each kind's patterns, in the order they are tried (the first to claim a stretch wins)."""

PHONE_REGIONS = ("GB", "IE", "US", "CA", "AU", "NZ", "DE", "FR")
"""The numbering plans a national number is read against (``phonenumbers``); a number in
international form (+44, +61) is read against its own country's."""

_NOT_PHONE_BEFORE = re.compile(
    r"(?:mg|ml|mmol|units?|IU|x|\u00d7|/|=|<|>|\u00b1|-|\u2013|\d|\.)\s*$|"
    r"\b(?:NHS|MRN|record|chart|number|no\.?|#|ID|card|policy|account|serial|lot|batch)"
    r"[^.;]{0,12}$",
    re.I,
)


def phone_numbers(line: str) -> list[tuple[int, int]]:
    """Where ``phonenumbers`` finds a number valid in one of :data:`PHONE_REGIONS`' plans
    with at least 8 digits, not written as a dose, a range or a labelled record number."""
    if not re.search(r"\d[\d\s().\-]{6,}\d", line):
        return []
    import phonenumbers

    spans: set[tuple[int, int]] = set()
    for region in PHONE_REGIONS:
        try:
            matcher = phonenumbers.PhoneNumberMatcher(
                line, region, leniency=phonenumbers.Leniency.VALID
            )
            matches = list(matcher)
        except Exception:  # a line the matcher cannot read: the patterns still do
            continue
        for match in matches:
            digits = sum(ch.isdigit() for ch in match.raw_string)
            if digits < 8 or _NOT_PHONE_BEFORE.search(line[: match.start]):
                continue
            spans.add((match.start, match.end))
    return sorted(spans)
