"""The categories of a clinician's order, and the keyword table that decides one.

An order's category is decided, in this order: by a grading model when the scorer is given
``-S classify=<model>``; else by the keyword table below read over the environment's reading
of the order (its ``interpreted_action``); else by the same table over the clinician's own
words. An order the table cannot place is ``uncategorised``: counted and named, priced only
when a price table names it, and its share reported beside the cost (which is then a lower
bound).

Every keyword matches whole words, ``_``, ``-`` and ``/`` read as spaces (``orders/words.py``):
"CT" is never found in "electrolytes", and an environment's ``results_review`` reads as
"results review". The table is read in three steps, each deciding when it finds anything:

1. **What the order does**, from its first words (after an addressee such as "Nurse:"):
   "Call ...", "Refer ..." consult; "Admit ...", "Discharge ..." dispose; "Review ...",
   "Open ...", "Document ..." look at or write in the chart; "Lie him ...", "Position ..." are
   nursing care; "Ask ...", "Examine ...", "Confirm with ..." happen at the bedside; "Insert
   ...", "Intubate ..." are procedures; "Teach ...", "Show him how ..." educate.
2. **A frame anywhere**: a report or result being reviewed ("the staging CT report") is a
   look at the chart; a leaflet or written plan being given is education.
3. **What the order names**: the earliest keyword of any category wins, the longer keyword
   at the same place ("observation unit" is a disposition, "observations" a chart of
   observations), ties to the category listed first.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from inspect_medsp.orders.words import words

Category = Literal[
    "bedside",
    "nursing",
    "laboratory",
    "imaging",
    "other_diagnostic",
    "medication",
    "procedure",
    "consultation",
    "education",
    "records",
    "disposition",
]
CATEGORIES: tuple[Category, ...] = get_args(Category)
"""The categories in the order the report lists them, read from `Category` itself."""
UNCLASSIFIED = "uncategorised"
"""An order the table cannot place (older logs wrote ``unclassified``)."""

CATEGORY_NAMES: dict[str, str] = {
    "bedside": "history and examination at the bedside",
    "nursing": "nursing care and positioning",
    "laboratory": "laboratory test",
    "imaging": "imaging",
    "other_diagnostic": "other diagnostic test (ECG, monitoring, observations)",
    "medication": "medication",
    "procedure": "procedure",
    "consultation": "consultation or referral",
    "education": "information, leaflets and teaching",
    "records": "chart and results review, documentation",
    "disposition": "disposition and safety-netting",
    UNCLASSIFIED: "uncategorised",
    "unclassified": "uncategorised",
}
"""Each category in words, as the report and the viewer show it."""

CategorySource = Literal["model", "reading", "order", "none"]
"""How an order's category was decided: by the grading model (``-S classify``), by the
keyword table over the environment's reading, over the clinician's words, or not at all."""

_DOSE = r"\d+(?:\.\d+)?\s*(?:mg|g|mcg|micrograms?|ml|l|units?|mmol|iu|puffs?)\b"
_DRUG = (
    r"\w+(?:cillin|mycin|cycline|floxacin|pril|sartan|olol|statin|prazole|azole|parin|xaban|"
    r"gatran|vir|mab|nib|dronate|tidine|triptan|zepam|zolam|codone|phylline|terol|formin|"
    r"gliptin|semide|thiazide|oxetine|traline|azine|ipine|afil|sone|olone|amine|sulfate|"
    r"sulphate)"
)
"""A drug named by a common ending (counted only in step 3, after every other noun)."""

# fmt: off
LEADS: dict[Category, tuple[str, ...]] = {
    "consultation": (
        r"call", r"page", r"bleep", r"phone", r"ring", r"consult", r"refer", r"contact",
        r"involve", r"escalate", r"list", r"notify", r"alert",
        r"(?:speak|talk|discuss|update|inform|tell|liaise)(?: with| to)?"
        r"(?: the| his| her| their)?(?: \w+)? (?:gp|team|registrar|consultant|senior|"
        r"colleague|surgeon|specialist|"
        r"public health|police|social work\w*|health visitor|midwife|pharmacist|on call)",
        r"request (?:a |an )?(?:\w+ )?review",
    ),
    "disposition": (
        r"admit", r"discharge", r"transfer", r"arrange (?:admission|discharge|transfer|"
        r"follow up|a follow up)", r"book (?:a )?(?:follow up|bed|appointment)", r"send (?:him|her|"
        r"them) home", r"safety net",
    ),
    "records": (
        r"review", r"read", r"open", r"look up", r"pull up", r"go through", r"document",
        r"record", r"note", r"write", r"complete (?:the |an |a )?(?:\w+ )?(?:form|report)",
        r"file", r"chart", r"check (?:the |his |her |their )?(?:chart|notes|record|results|"
        r"previous|old)", r"look at (?:the |his |her |their )?(?:chart|notes|record|results|"
        r"report|previous|old)",
    ),
    "nursing": (
        r"lie", r"lay", r"position", r"reposition", r"sit (?:him|her|them|the patient|the "
        r"child) (?:up|upright|forward)", r"prop", r"elevate", r"raise",
        r"keep (?:him|her|them|the patient|the child)? ?(?:nil|flat|warm|npo|still|upright)",
        r"turn", r"nil by mouth", r"cool",
        r"warm", r"apply (?:a |an )?(?:cold|ice|warm|cool|pressure|compress|dressing|collar)",
        r"remove (?:the )?(?:stinger|sting|ring|rings|clothing|clothes)", r"bed rest", r"weigh",
        r"log roll",
        r"strict", r"one to one", r"1 ?(?:to|:) ?1", r"chaperone",
    ),
    "bedside": (
        r"(?:speak|talk|discuss|update|inform|tell|reassure|explain)(?: with| to)?(?: the| his| "
        r"her| their)? (?:\w+ )?(?:patient|family|mother|father|parents?|husband|wife|partner|"
        r"relatives?|carers?|daughter|son|him|her|them|child|girl|boy)",
        r"ask", r"take (?:a |an )?(?:\w+ )?history", r"examine", r"re examine", r"auscultate",
        r"palpate", r"inspect", r"assess", r"reassess", r"re assess", r"confirm", r"clarify",
        r"introduce", r"greet", r"close", r"sit (?:down|quietly|with|beside|next)",
        r"allow", r"pause", r"listen", r"look", r"feel", r"percuss", r"obtain (?:verbal |"
        r"written )?consent", r"screen", r"perform (?:a |an )?(?:\w+ )?examination",
    ),
    "medication": (
        r"stop", r"hold", r"withhold", r"restart", r"suspend", r"titrate", r"wean",
        r"transfuse", r"prescribe", r"administer",
    ),
    "procedure": (
        r"insert", r"place", r"site", r"cannulate", r"intubate", r"suture", r"drain",
        r"catheteri[sz]e", r"defibrillate", r"cardiovert", r"splint", r"incise", r"aspirate",
        r"perform", r"do (?:a |an )?(?:lumbar|pleural|ascitic|joint)",
    ),
    "education": (
        r"teach", r"show (?:him|her|them|the \w+) how", r"demonstrate", r"educate",
        r"counsel", r"explain", r"advise", r"recommend",
        r"provide (?:a |an |the )?(?:written|leaflet|information|education)",
        r"hand (?:over )?(?:a |an |the )?(?:written|leaflet|information)",
    ),
}
# fmt: on
"""Step 1: an order's first words (after an addressee), as whole words."""

FRAMES: dict[Category, str] = {
    "records": (
        r"\b(?:review|open|read|look at|look up|pull up|go through|check|obtain|request)\b"
        r".*\b(?:report|reports|results|notes|chart|record|records|letter|discharge summary|"
        r"old films|previous)\b|\b(?:report|reports|results|notes|chart)\b.*\breview\b"
    ),
    "education": (
        r"\b(?:give|provide|hand|offer|print|send)\b.*\b(?:leaflet|leaflets|booklet|"
        r"information sheet|written (?:information|plan|advice|instructions)|action plan|"
        r"emergency plan|website)\b"
    ),
}
"""Step 2: a frame anywhere in the order."""

# fmt: off
KEYWORDS: dict[Category, tuple[str, ...]] = {
    "bedside": (
        r"history", r"examination", r"auscultation", r"palpation", r"tissues", r"silence",
        r"close the door", r"collateral history", r"consent", r"bad news", r"quiet room",
        r"assessment", r"risk assessment", r"questionnaire", r"capacity", r"phq ?\d*", r"gad ?\d*",
        r"mental state", r"pupils", r"inspection", r"reflexes", r"capillary refill",
        r"airway breathing and circulation", r"abc",
    ),
    "nursing": (
        r"legs raised", r"lie flat", r"lying flat", r"recovery position", r"head up",
        r"nil by mouth", r"npo", r"pressure care", r"wound care", r"dressing", r"bed rest",
        r"cooling", r"warming", r"warm blankets", r"falls precautions", r"fluid restriction",
        r"mouth care", r"positioning", r"position", r"chaperone", r"ice pack",
        r"cold compress", r"upright", r"log roll", r"pressure areas", r"weigh",
    ),
    "laboratory": (
        r"blood count", r"full blood", r"fbc", r"cbc", r"chemistry", r"electrolytes",
        r"u ?& ?es?", r"renal function", r"liver function", r"lfts?", r"blood gas",
        r"venous gas", r"arterial gas", r"vbg", r"abg", r"serum", r"tryptase", r"troponin",
        r"lactate",
        r"cultures?", r"urinalysis", r"urine", r"glucose", r"coagulation", r"clotting", r"crp",
        r"esr", r"inr", r"labs?", r"laboratory", r"sample", r"swab", r"pathology", r"bloods",
        r"blood tests?", r"hba1c", r"tsh", r"thyroid function", r"ferritin", r"b12", r"folate",
        r"d dimer", r"bnp", r"lipase", r"amylase", r"blood film", r"group and save",
        r"cross ?match", r"hcg", r"pregnancy test", r"drug screen", r"toxicology",
        r"paracetamol level", r"salicylate level", r"levels?", r"cholesterol", r"lipids",
        r"ketones", r"stool", r"sputum", r"serology", r"antibod(?:y|ies)", r"blood sugar",
        r"thick and thin", r"malaria films?", r"blood films?",
    ),
    "imaging": (
        r"x ray", r"xray", r"radiograph", r"ct", r"ct scan", r"ctpa", r"mri", r"ultrasound",
        r"echocardiogra\w*", r"echo", r"scan", r"imaging", r"doppler", r"angiogra\w*",
        r"mammogra\w*", r"cxr", r"fast",
    ),
    "other_diagnostic": (
        r"ecg", r"ekg", r"monitoring", r"monitor", r"telemetry", r"spirometry", r"peak flow",
        r"pulse oximetry", r"oximetry", r"eeg", r"observations", r"obs", r"neuro obs",
        r"vital signs", r"vitals", r"spo2", r"saturations?", r"sats", r"blood pressure",
        r"gcs", r"glasgow coma", r"early warning score", r"news2", r"news score",
        r"peak expiratory flow", r"pefr", r"fluid balance", r"pews", r"ctg",
        r"cardiotocograph\w*", r"fluid balance chart", r"observation chart", r"bladder scan",
        r"capillary", r"bm", r"temperature", r"heart rate",
    ),
    "medication": (
        r"epinephrine", r"adrenaline", r"oxygen", r"saline", r"bolus", r"fluids?",
        r"crystalloid", r"nebuli[sz](?:er|ed)", r"inhaler", r"salbutamol", r"albuterol",
        r"ipratropium", r"steroids?", r"dexamethasone", r"prednisolone", r"prednisone",
        r"hydrocortisone", r"antibiotics?", r"analgesia", r"paracetamol", r"acetaminophen",
        r"ibuprofen", r"morphine", r"insulin", r"heparin", r"aspirin", r"magnesium",
        r"antihistamine", r"pharmacy", r"prescription", r"prescribe", r"dispense", r"doses?",
        r"infusion", r"drip", r"vaccin\w*", r"immuni[sz]ation", r"tablets?", r"cream",
        r"patch", r"orally", r"by mouth", r"intramuscular\w*", r"subcutaneous\w*", r"iv fluids",
        r"suppository", r"transfusion", r"supply", r"naloxone", r"glucagon", r"antiemetic",
        r"ondansetron", r"tetanus", r"packed red cells", r"red cells", r"transfusion",
        r"blood products", r"ffp", r"o negative", r"immunoglobulin", r"rehydration", r"ors",
        r"nsaids?", r"medicines?", r"medications?", r"drugs?", _DOSE,
    ),
    "procedure": (
        r"cannula", r"cannulas", r"cannulation", r"iv access", r"iv line", r"intubation",
        r"catheter", r"lumbar puncture", r"suture", r"drain", r"defibrillation",
        r"cardioversion", r"incision", r"splint", r"cast", r"biopsy", r"nasogastric",
        r"ng tube", r"pleural tap", r"paracentesis", r"pacing", r"cpr", r"plaster",
        r"reduction", r"tourniquet", r"wound closure", r"packing", r"binder", r"sling",
        r"immobili[sz]\w*", r"collar", r"irrigation", r"adjuncts?", r"bag valve mask", r"bvm",
        r"ventilation", r"oropharyngeal", r"nasopharyngeal",
    ),
    "consultation": (
        r"referral", r"consult", r"consultation", r"specialist", r"tumou?r board", r"mdt",
        r"multidisciplinary", r"registrar", r"consultant", r"anaesthetist", r"anesthesiologist",
        r"surgeon", r"oncologist", r"social work\w*", r"physiotherap\w*", r"dietitian",
        r"occupational therap\w*", r"chaplain\w*", r"psychiatr\w*", r"picu", r"icu",
        r"outreach", r"palliative care team", r"interpreter", r"nurse navigator",
        r"pre alert", r"smoking cessation", r"crash call", r"arrest call", r"crash team",
        r"rapid response", r"gp", r"general practitioner", r"health visitor", r"physio",
        r"public health", r"safeguarding", r"child protection", r"trauma team",
        r"stroke team", r"code", r"activat\w*",
    ),
    "education": (
        r"leaflet", r"booklet", r"information sheet", r"written information",
        r"written plan", r"action plan", r"teach back", r"teaching", r"education",
        r"counselling", r"inhaler technique", r"self management", r"advice",
        r"written(?: \w+){0,2} plan", r"emergency plan", r"bracelet",
    ),
    "records": (
        r"chart", r"notes", r"medical record", r"records", r"report", r"results",
        r"documentation", r"incident report", r"letter", r"reconciliation", r"form",
        r"medications? reconciliation",
    ),
    "disposition": (
        r"admission", r"discharge", r"observation unit", r"transfer", r"follow up",
        r"safety net\w*", r"return if", r"come back if", r"sick note", r"fit note",
        r"appointment", r"bed", r"home",
    ),
}
# fmt: on
"""Step 3: the keywords of each category (regular expressions over the folded words,
matched as whole words with an optional plural ending)."""

_ADDRESSEE = re.compile(
    r"^(?:please\s+)?(?:(?:nurse|doctor|dr|hca|pharmacist|registrar|team)[\w .]{0,25}:\s*)?"
    r"(?:please\s+)?(?:(?:ask|tell|get|have)\s+(?:the\s+)?(?:nurse|nursing staff|hca|team|"
    r"pharmacist|porter)s?\s+to\s+)?(?:please\s+)?(?:i(?: would| will|'ll|'d)? like to\s+|"
    r"(?:we|i) (?:will|should|need to)\s+|let's\s+|can you\s+|could you\s+)?"
)
"""What comes before what an order does: an addressee ("Nurse:", "Ask the nurse to"),
"please", "I'd like to"."""


def _alternatives(words_: tuple[str, ...]) -> str:
    return "|".join(words_)


_LEAD_PATTERNS: dict[Category, re.Pattern[str]] = {
    c: re.compile(rf"^(?:{_alternatives(w)})(?:e?s|d|ed|ing)?(?![\w])") for c, w in LEADS.items()
}
_FRAME_PATTERNS: dict[Category, re.Pattern[str]] = {c: re.compile(p) for c, p in FRAMES.items()}
_PATTERNS: dict[Category, re.Pattern[str]] = {
    category: re.compile(rf"(?<![\w])(?:{_alternatives(w)})(?:e?s)?(?![\w])")
    for category, w in KEYWORDS.items()
}
_DRUG_PATTERN = re.compile(rf"(?<![\w]){_DRUG}(?![\w])")
_WEAK_LEAD = re.compile(r"^(?:check|measure|count|feel|test|look|observe|watch|note|see)\b")
"""Last, an order that starts by checking something the table names nowhere ("Check
pupils") is a look at the bedside."""


def lead(text: str) -> str:
    """``text`` folded (``orders/words.py``) from what the order does: an addressee, "please"
    and "I'd like to" dropped."""
    folded = words(text).strip(" .,;:")
    found = _ADDRESSEE.match(folded)
    return folded[found.end() :] if found is not None else folded


def keyword_category(text: str) -> Category | None:
    """The category of ``text`` by the keyword table (module docstring: what the order does
    by its first words, else a frame anywhere, else the earliest keyword), or None when
    nothing in the table is in it."""
    start = lead(text)
    for category, pattern in _LEAD_PATTERNS.items():
        if pattern.search(start):
            return category
    for category, pattern in _FRAME_PATTERNS.items():
        if pattern.search(start):
            return category
    best: tuple[int, int, int, Category] | None = None
    for rank, category in enumerate(CATEGORIES):
        keywords = _PATTERNS.get(category)
        if keywords is None:
            continue
        for found in keywords.finditer(start):
            key = (found.start(), -(found.end() - found.start()), rank, category)
            if best is None or key[:3] < best[:3]:
                best = key
            break
    if best is not None:
        return best[3]
    if _DRUG_PATTERN.search(start):
        return "medication"
    if _WEAK_LEAD.search(start):
        return "bedside"
    return None


def decide(reading: str, order: str) -> tuple[str, CategorySource]:
    """The category of an order and how it was decided, without a model: the keyword table
    over the environment's reading, else over the clinician's words, else uncategorised."""
    if reading.strip():
        found = keyword_category(reading)
        if found is not None:
            return found, "reading"
    found = keyword_category(order)
    if found is not None:
        return found, "order"
    return UNCLASSIFIED, "none"
