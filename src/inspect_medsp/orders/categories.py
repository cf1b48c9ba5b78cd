"""The categories of a clinician's order, and the keyword table that decides one.

An order's category is decided, in this order: by a grading model when the scorer is given
``-S classify=<model>``; else by the keyword table below read over the environment's reading
of the order (its ``interpreted_action``); else by the same table over the clinician's own
words. An order the table cannot place is ``uncategorised``: counted and named, priced only
when a price table names it, and its share reported beside the cost (which is then a lower
bound).

Every keyword matches whole words, ``_``, ``-`` and ``/`` read as spaces (``orders/phrases.py``):
"CT" is never found in "electrolytes", and an environment's ``results_review`` reads as
"results review". The table is built from the shorthand clinicians type on UK, US and
Australian wards and in EDs (FBC, U&E, G&S, CTKUB, USS, NBM, 1:1, d/w med reg, PT/OT, TTO, f/u
2/52, brand names such as Tazocin or Zofran), not only from words written out in full. It is
read in four steps, each deciding when it finds anything:

1. **What the order does**, from its first words (after an addressee such as "Nurse:", "HCA
   to" or "Pt to be"): "Call ...", "Refer ...", "d/w surgeons", "Let the reg know" consult;
   "Admit ...", "d/c ...", "f/u ...", "Tell mum to come back if ..." dispose; "Review ...",
   "Chase ...", "Document ..." look at or write in the chart (but "Record his peak flow" is
   the measurement); "Lie him ...", "Position ...", "Keep NBM" are nursing care; "Ask ...",
   "Examine ...", "Watch ..." happen at the bedside; "Stop ...", "Hold ...", "Increase ...",
   "Write up ..." change a medicine (but "Stop routine obs" is left to step 3); "Insert ...",
   "Pass ...", "Remove ...", "List for ..." are procedures; "Teach ...", "Warn ..." educate.
2. **A frame anywhere**: a report or result being reviewed ("the staging CT report") is a
   look at the chart; a leaflet or written plan being given is education; a test judged
   not needed ("XR not needed per Ottawa") is a decision at the bedside.
3. **What the order names**: the earliest keyword of any category wins, the longer keyword
   at the same place ("observation unit" is a disposition, "observations" a chart of
   observations; "18G cannula" a procedure, not 18 g of a drug), ties to the category listed
   first. A multi-part order therefore goes by its first named action ("U&E / eGFR before
   contrast" is a blood test, "O2 to keep sats 94-98%" oxygen, "NBM, IV fluids, analgesia"
   nursing).
4. **How a medicine is given**: a route, frequency or dose ("PO", "stat", "bd", "10 mg")
   qualifies whatever the order names, so it counts only when step 3 found nothing ("stat CT
   head" is imaging; "Xylo 10 mg PO" a medication); then a drug's common ending; then a weak
   check ("Check pupils") at the bedside.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from inspect_medsp.orders.phrases import words

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

_DOSE = (
    r"\d+(?:\.\d+)?\s*(?:mg|g|mcg|micrograms?|nanograms?|ml|l|units?|mmol|iu|puffs?|drops?|"
    r"tabs?|caps?|sachets?|nebs?|%|l min|litres?|liters?)\b"
)
_DRUG = (
    r"\w+(?:cillin|onium|mycin|micin|cycline|floxacin|pril|sartan|olol|alol|statin|prazole|azole|"
    r"parin|xaban|gatran|vir|mab|nib|dronate|tidine|triptan|zepam|zolam|codone|phylline|terol|"
    r"formin|gliptin|gliflozin|semide|thiazide|oxetine|traline|alopram|azine|ipine|apine|"
    r"idone|afil|sone|olone|amine|sulfate|sulphate|penem|tropium|lukast|"
    r"etamol|profen|oxacin|azepam|barb\w*|caine|curium|uronium|plase|mide|lol)"
)
"""A drug named by a common ending (counted only in step 3, after every other noun)."""

_SERVICE = (
    r"(?:ortho\w*|t ?& ?o|gen(?:eral)? surg\w*|surg\w*|medic(?:s|al)|cardio\w*|cards|"
    r"resp\w*|gastro\w*|hepatolog\w*|renal|nephro\w*|neuro(?:logy|logist|surg\w*|s)?|stroke|"
    r"urolog\w*|uro|ent|max ?fax|omfs|ophthalm\w*|eyes|plastics|vascular|gynae\w*|obs|"
    r"o ?& ?g|obstetric\w*|paeds|paediatric\w*|pediatric\w*|neonat\w*|haem\w*|onc\w*|"
    r"acute onc|pall\w* care|palliative|micro(?:biology)?|id|infectious diseases|"
    r"radiolog\w*|psych\w*|"
    r"liaison|mhlt|crisis team|camhs|itu|icu|hdu|picu|nicu|critical care|outreach|anaes\w*|"
    r"anesth\w*|gas(?:man|men)|derm\w*|rheum\w*|endo(?:crine)?|diabetes|geriatric\w*|"
    r"care of the elderly|coe|frailty|trauma|spinal|rehab|dietitian|dietician|salt|slt|physio"
    r"\w*|ot|pt ot|pharmac(?:y|ist)|social work\w*|sw|safeguarding|gp|midwi\w*|"
    r"tissue viability|tvn|specialist nurse|cns|dsn|gi|peds|ob|heme\w*|"
    r"senior|consultant|cons|reg|registrar|spr|"
    r"str|sho|case manage\w*|speech\w*|on call\w*|team|seniors?|fellow|attending|resident|"
    r"intensivist|surgeons?)"
)
"""A service or grade a clinician calls, refers to or discusses with."""

_MEASURED = (
    r" (?:his |her |their |the |a |an )?(?:peak|obs|observations|bp|blood pressure|temp\w*|pulse|"
    r"sats|saturations|weight|height|ecg|pefr|urine output|fluid|input|gcs|news|heart rate|"
    r"resp\w* rate|glucose|bm|cbg)"
)
"""What is measured, so that "Record his peak flow" or "Chart the obs" is the measurement and not
a note in the chart."""

_NOT_A_DRUG = (
    r"(?! (?:routine |regular |all |the |his |her |further |daily |repeat )?(?:obs|observations|"
    r"bloods|blood tests|monitoring|tele\w*|ctg|feeds|ecgs?|neuro obs|bms|cbgs)\b)"
)
"""What "stop" and "hold" leave to step 3 ("Stop routine obs" is a chart of observations)."""

_SOON = r"(?! (?:\d+ ?(?:min\w*|h|hr|hrs|hours?)|an hour|half an hour|(?:1|one) hour)\b)"
"""A review within minutes or hours is a reassessment at the bedside, not a follow-up."""

_REDUCIBLE = (
    r"(?:dislocat\w*|shoulder|fracture|hip|elbow|patella|finger|jaw|knee|ankle|wrist|prolapse|"
    r"hernia)"
)
"""What "reduce" puts back in place (a procedure); "reduce" anything else lowers a dose."""

# fmt: off
LEADS: dict[Category, tuple[str, ...]] = {
    "consultation": (
        r"call", r"page", r"bleep", r"fast bleep", r"phone", r"ring", r"consult", r"refer",
        r"ref", r"contact", r"involve", r"escalate", r"list(?! for)", r"notify", r"alert",
        r"(?:speak|talk|discuss|update|inform|tell|liaise|d ?w|dw|chat)(?: with| to)?"
        r"(?: the| his| her| their)?(?: \w+)? (?:gp|team|registrar|consultant|senior|"
        r"colleague|surgeon|specialist|"
        r"public health|police|social work\w*|health visitor|midwife|pharmacist|on call)",
        r"(?:d ?w|dw|discuss(?: with)?|speak to|talk to|inform|ask|get|let|liaise with|"
        r"chat with|run (?:it |this )?by|update) (?:the |on call |duty )?" + _SERVICE,
        r"let (?:[\w&']+ ){1,6}know", r"request (?:a |an )?(?:\w+ )?review",
        r"(?:review|r ?v|rv|seen|see|assess\w*) by", r"put out (?:a |an )?\w+ call", r"2222",
        r"handover to", r"hand over to",
    ),
    "disposition": (
        r"admit", r"discharge(?! summary| letter)", r"transfer",
        r"arrange (?:admission|discharge|transfer|"
        r"follow up|a follow up)", r"book (?:a )?(?:follow up|bed|appointment)", r"send (?:him|her|"
        r"them) home", r"safety net",
        r"(?:tell|advise|ask|instruct|warn) (?:\w+ ){0,3}to (?:come back|return|re ?attend|"
        r"see (?:the |a |her |his )?gp|call 999|ring 999|seek)",
        r"d ?c(?! summary| letter| cardioversion| shock)",
        r"dc(?! summary| letter| cardioversion| shock)",
        r"f ?u", r"f up", r"fu", r"(?:r ?v|review|see) in" + _SOON, r"see (?:gp|again)", r"rtc",
        r"return (?:if|to|in)", r"home(?! bp| blood pressure| oxygen| visit| o2)", r"step down",
        r"observe (?:in|on) (?:ed|the ward|cdu|obs ward|\w+ unit)", r"observe (?:for )?\d",
    ),
    "records": (
        r"review(?! in| after| (?:the |his |her )?(?:patient|pt|him|her|wound|pain|child|baby|"
        r"response|symptoms))", r"read", r"open", r"look up", r"pull up", r"go through", r"note",
        r"record(?!" + _MEASURED + ")", r"document(?!" + _MEASURED + ")", r"write(?! up)",
        r"complete (?:the |an |a )?(?:\w+ )?(?:form|report)",
        r"file", r"chart(?! prn| regular| stat| as required| \d|" + _MEASURED[1:] + ")",
        r"check (?:the |his |her |their )?(?:chart|notes|record|results|"
        r"previous|old)", r"look at (?:the |his |her |their )?(?:chart|notes|record|results|"
        r"report|previous|old)", r"chase", r"datix", r"fill in", r"compare (?:with|to|against)",
        r"dictate", r"clerk", r"plot",
    ),
    "nursing": (
        r"lie", r"lay", r"position", r"reposition", r"sit (?:him|her|them|the patient|the "
        r"child) (?:up|upright|forward|out)", r"prop", r"elevate", r"raise",
        r"keep (?:him|her|them|the patient|the child)? ?(?:nil|flat|warm|npo|nbm|still|upright)",
        r"turn", r"nil by mouth", r"nbm", r"npo", r"cool",
        r"warm", r"apply (?:a |an )?(?:cold|ice|warm|cool|pressure|compress|dressing|collar)",
        r"remove (?:the |any |all |his |her )?(?:stinger|sting|ring|rings|clothing|clothes|"
        r"ligature\w*|sharps|belongings|jewellery|jewelry|potential ligatures)",
        r"bed rest", r"weigh",
        r"log roll", r"mobilise", r"mobilize", r"sit out", r"encourage", r"isolate", r"barrier",
        r"close (?:obs|observation\w*|supervision)",
        r"strict(?! i o| i ?&| input| fluid balance| in out)", r"one to one", r"1 ?(?:to|:) ?1",
        r"chaperone", r"feed", r"offer (?:a )?"
        r"(?:drink|food|feed|fluids|diet)",
    ),
    "bedside": (
        r"(?:speak|talk|discuss|update|inform|tell|reassure|explain)(?: with| to)?(?: the| his| "
        r"her| their)? (?:\w+ )?(?:patient|pt|family|mother|father|parents?|husband|wife|"
        r"partner|relatives?|carers?|daughter|son|him|her|them|child|girl|boy|mum|dad|nok|"
        r"next of kin)",
        r"ask", r"take (?:a |an )?(?:\w+ )?history", r"examine", r"re examine", r"auscultate",
        r"palpate", r"inspect", r"assess", r"reassess", r"re assess", r"confirm", r"clarify",
        r"introduce", r"greet", r"close", r"sit (?:down|quietly|with|beside|next)",
        r"allow", r"pause", r"listen", r"look", r"feel", r"percuss", r"obtain (?:verbal |"
        r"written )?consent", r"screen", r"perform (?:a |an )?(?:\w+ )?examination", r"watch",
        r"observe (?:him|her|them|the)", r"(?:review|r ?v|rv|reassess|re assess|see) (?:in|after)",
        r"review (?:the |his |her )?(?:patient|pt|him|her|wound|pain|child|baby|response|symptoms)",
        r"establish", r"explore", r"elicit", r"enquire",
        r"reassure", r"check (?:for|if|whether|that)", r"establish",
    ),
    "medication": (
        r"stop" + _NOT_A_DRUG, r"hold" + _NOT_A_DRUG, r"withhold" + _NOT_A_DRUG, r"restart",
        r"suspend", r"titrate", r"wean",
        r"transfuse", r"prescribe", r"administer", r"write up", r"chart (?:prn|regular|stat|as "
        r"required)", r"omit", r"withdraw", r"increase", r"decrease", r"double", r"halve",
        r"reduce(?! (?:the |his |her )?" + _REDUCIBLE + ")",
        r"switch", r"change (?:to|the)", r"convert", r"commence",
        r"start (?:on )?(?:iv|oral|po|regular|prn|\w+ \d)", r"load", r"up ?titrate", r"uptitrate",
        r"taper",
    ),
    "procedure": (
        r"insert", r"place", r"site(?! check| review| inspection)", r"cannulate", r"intubate",
        r"suture", r"drain(?! output)",
        r"catheteri[sz]e", r"defibrillate", r"cardiovert", r"splint", r"incise", r"aspirate",
        r"do (?:a |an )?(?:lumbar|pleural|ascitic|joint)",
        r"pass(?! urine| urine| stool| flatus)",
        r"reduce (?:the |his |her )?" + _REDUCIBLE,
        r"relocate", r"manipulate", r"wash out", r"washout", r"glue", r"steri ?strip",
        r"debride", r"irrigate", r"dress the", r"pack", r"plaster", r"immobili[sz]e",
        r"list for", r"book (?:for )?theatre", r"mark (?:the )?site", r"to theatre",
        r"take to theatre", r"remove", r"strap", r"bandage",
    ),
    "education": (
        r"teach", r"show (?:him|her|them|the \w+) how", r"demonstrate", r"educate",
        r"counsel", r"explain", r"advise", r"recommend",
        r"provide (?:a |an |the )?(?:written|leaflet|information|education)",
        r"hand (?:over )?(?:a |an |the )?(?:written|leaflet|information)", r"signpost", r"warn",
        r"give (?:\w+ )?(?:advice|info|information|education|leaflet)",
    ),
}
# fmt: on
"""Step 1: an order's first words (after an addressee), as whole words."""

FRAMES: dict[Category, str] = {
    "records": (
        r"\b(?:review|open|read|look at|look up|pull up|go through|check|obtain|request|chase)\b"
        r".*\b(?:report|reports|results|notes|chart|record|records|letter|discharge summary|"
        r"old films|previous)\b|\b(?:report|reports|results|notes|chart)\b.*\breview\b"
    ),
    "education": (
        r"\b(?:give|provide|hand|offer|print|send)\b.*\b(?:leaflet|leaflets|booklet|"
        r"information sheet|written (?:information|plan|advice|instructions)|action plan|"
        r"emergency plan|website)\b"
    ),
    "bedside": (
        r"\b(?:not (?:needed|indicated|required|necessary)|no need for|no indication for|"
        r"(?:does|do) not need|doesn't need|don't need|not for now)\b"
    ),
}
"""Step 2: a frame anywhere in the order."""

# fmt: off
KEYWORDS: dict[Category, tuple[str, ...]] = {
    "bedside": (
        r"history", r"examination", r"auscultation", r"palpation", r"tissues", r"silence",
        r"h ?& ?p", r"ros", r"heent", r"(?:gu|msk|pelvic|sterile vaginal|sve) exam\w*", r"sve",
        r"cervical check", r"fundal height", r"nih stroke scale", r"sbirt", r"c ssrs", r"columbia",
        r"headss\w*", r"leopold\w*",
        r"close the door", r"collateral history", r"consent", r"bad news", r"quiet room",
        r"assessment", r"risk assessment", r"questionnaire", r"capacity", r"phq ?\d*", r"gad ?\d*",
        r"mental state", r"pupils", r"inspection", r"reflexes", r"capillary refill",
        r"airway breathing and circulation", r"abc",
        # shorthand for history and examination
        r"hx", r"fhx", r"shx", r"dhx", r"pmhx?", r"collateral", r"exam", r"o ?e",
        r"(?:abdo|abdominal|resp|chest|cvs|cardio\w*|neuro|cranial nerve|pr|pv|rectal|"
        r"vaginal|speculum|bimanual|breast|testicular|scrotal|joint|knee|hip|shoulder|back|"
        r"spine|skin|ent|ear|eye|mouth|throat|foot|feet|hand|wrist|ankle|full|top to toe|"
        r"secondary|primary|trauma) (?:exam\w*|ex|survey|assessment)",
        r"primary survey", r"secondary survey", r"tertiary survey", r"dre", r"ve", r"mse",
        r"fundoscopy", r"otoscopy", r"visual fields", r"cranial nerves",
        r"\w+ ?'?s (?:sign|test|manoeuvre|maneuver)", r"signs? of", r"4 ?at", r"amts", r"mmse",
        r"moca", r"ace ?iii", r"6 ?cit", r"cam(?: icu)?", r"cognitive (?:screen|assessment|"
        r"test)", r"delirium screen", r"risk ax", r"ax", r"suicide risk", r"self harm risk",
        r"audit ?c?", r"cage", r"ciwa\w*", r"cows", r"clinical frailty", r"cfs", r"rockwood",
        r"wells(?: score)?", r"perc", r"curb ?65", r"crb ?65", r"centor", r"fever ?pain",
        r"abcd2", r"cha2?ds2? ?vasc", r"has ?bled", r"qrisk\w*", r"heart score", r"timi",
        r"grace score", r"nice criteria", r"ottawa\w*", r"canadian", r"pain score", r"gait",
        r"power", r"tone", r"sensation", r"straight leg raise", r"slr", r"saddle",
        r"perianal sensation", r"romberg\w*", r"tenderness", r"calves", r"calf", r"legs",
        r"hydration", r"dehydration", r"pram", r"rash", r"throat", r"ears", r"tonsils",
        r"height", r"bmi", r"(?:wound|skin|foot|feet|site) (?:check|review|inspection)s?",
        r"speculum", r"best interests? (?:meeting|decision)", r"fluorescein (?:stain\w*|exam\w*)",
        r"slit lamp(?: exam\w*)?", r"dermatoscopy", r"dermoscopy", r"nihss", r"nipe",
        r"newborn (?:exam\w*|check)",
        r"baby check", r"^pr$", r"^pv$", r"^neuro$", r"^abdo$", r"^chest$",
        r"(?:bedside )?swallow (?:screen|assessment|test)",
        r"allerg(?:y|ies) (?:status|history|check)", r"nkda", r"(?:family|best interests?) meeting",
        r"ppc", r"preferred place of (?:care|death)",
        r"glasgow blatchford", r"blatchford", r"rockall", r"child pugh", r"meld", r"glasgow imrie",
        r"body map", r"mmt",
    ),
    "nursing": (
        r"legs raised", r"lie flat", r"lying flat", r"recovery position", r"head up",
        r"(?!return)\w+ precautions", r"bedrest", r"restraints?", r"sitter", r"foley care",
        r"vac dressing", r"adat",
        r"nil by mouth", r"npo", r"pressure care", r"wound care", r"dressing", r"bed rest",
        r"cooling", r"warming", r"warm blankets", r"falls precautions", r"fluid restriction",
        r"mouth care", r"positioning", r"position", r"chaperone", r"ice pack",
        r"cold compress", r"upright", r"log roll", r"pressure areas", r"weigh",
        r"nbm", r"nbm from \w+", r"1 ?: ?1", r"1 to 1", r"one to one", r"enhanced (?:obs|"
        r"observation\w*|care|supervision)", r"close obs", r"constant obs", r"special(?:ling)?",
        r"within (?:eyesight|arm'?s length)", r"arms? length", r"supervis\w*", r"unattended",
        r"falls? (?:risk|bundle|alarm|mat|sensor|prevention|assessment|precautions)", r"bed rails",
        r"low bed", r"crash mat", r"sensor mat", r"hoist", r"mobilis\w*", r"mobiliz\w*",
        r"sit out", r"mobility", r"walking aid", r"crutches", r"[nfp]wb", r"ttwb", r"wbat",
        r"weight bear\w*",
        r"oral (?:fluid )?challenge", r"level [1-4] obs\w*", r"level [1-4] (?:observation\w*|care)",
        r"zimmer", r"frame", r"pressure area care",
        r"turns", r"\d+ ?(?:hourly|hrly|h) turns", r"repositioning", r"air mattress",
        r"pressure relieving", r"heel protectors", r"barrier nursing", r"side room",
        r"isolation", r"isolate", r"reverse barrier", r"contact precautions",
        r"droplet precautions", r"ted stockings", r"teds", r"flowtrons?",
        r"compression stockings", r"anti embolism stockings", r"catheter care",
        r"stoma care", r"eye care", r"skin care", r"oral care", r"oral hygiene",
        r"bed bath", r"wash", r"toileting", r"commode", r"bedpan", r"continence",
        r"food chart", r"food diary", r"stool chart", r"bowel chart", r"bristol",
        r"fluid restrict\w*", r"free fluids", r"clear fluids", r"sips", r"sips only",
        r"soft diet", r"light diet", r"diet", r"eat and drink", r"feeds?",
        r"feeding", r"top up feeds", r"thickened fluids", r"thickener", r"red tray",
        r"assist(?:ance)? with (?:feeding|eating|meals)", r"oral (?:intake|fluids)",
        r"encourage (?:oral )?(?:fluids|intake|drinking|eating)", r"push fluids",
        r"daily weights?", r"weight", r"weight loss advice", r"elevat\w*", r"elevation",
        r"rest ice", r"rice",
        r"keep warm", r"blankets?", r"bair hugger", r"tepid spong\w*", r"undress",
        r"remove clothing", r"spinal precautions", r"incentive spirometr\w*", r"scds?",
        r"sequential compression\w*",
        r"ambulat\w*", r"oob", r"out of bed", r"fall precautions", r"head of bed", r"hob",
        r"head up \d+",
        r"sit up(?:right)?", r"prone", r"left lateral", r"ligature\w*",
        r"remove (?:sharps|belongings|ligatures)", r"search (?:belongings|him|her)",
        r"cot sides", r"cohort", r"comfort care", r"comfort\w*", r"mouth ?care", r"wet wraps?",
        r"skin to skin", r"kangaroo care",
        r"(?:vap|care|skin|pressure|catheter|cannula) bundle",
        r"nurse (?:in|on|flat|upright|prone)",
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
        r"lytes", r"chem ?7", r"mag", r"phos", r"lipid panel", r"etoh level", r"serum tox",
        r"apap level", r"asa level", r"procal\w*", r"blood alcohol", r"lactic(?: acid)?", r"ptt",
        r"t ?& ?c", r"type ?& ?cross", r"quant(?:itative)? hcg", r"hcg quant\w*", r"rvp",
        r"rapid strep", r"strep (?:test|swab)", r"gbs swab", r"ffn", r"fetal fibronectin",
        r"actim prom", r"i ?stat", r"fern test", r"nitrazine",
        r"cross ?match", r"hcg", r"pregnancy test", r"drug screen", r"toxicology",
        r"paracetamol level", r"salicylate level", r"levels?", r"cholesterol", r"lipids",
        r"ketones", r"stool", r"sputum", r"serology", r"antibod(?:y|ies)", r"blood sugar",
        r"thick and thin", r"malaria films?", r"blood films?",
        # panels and shorthand
        r"ues", r"u ?and ?es?", r"ue", r"uec", r"eucs?", r"bmp", r"cmp", r"bmp", r"chem ?\d+",
        r"lft", r"tfts?", r"tft", r"coags?", r"coag screen", r"clotting screen", r"aptt",
        r"aptr", r"fibrinogen", r"g ?& ?s", r"g and s", r"gs", r"x ?match", r"xm",
        r"type and screen", r"type and cross", r"t ?& ?s", r"blood group", r"bc", r"bcs",
        r"blood cultures?", r"msu", r"csu", r"mc ?& ?s", r"m c ?& ?s", r"mcs",
        r"catheter (?:specimen|sample|urine)", r"urine (?:dip|"
        r"dipstick|mc&s|culture|pcr|acr|hcg|output)", r"udip", r"dipstick", r"dip", r"ua",
        r"upcr", r"pcr", r"acr", r"ucr", r"egfr", r"creatinine", r"cr", r"urea", r"sodium",
        r"potassium level", r"k\+?", r"na", r"calcium", r"bone profile", r"(?<!\d )(?<!\d)mg",
        r"phosphate",
        r"magnesium level", r"ck", r"cpk", r"trop", r"hs trop\w*", r"hstnt?", r"tnt", r"tni",
        r"nt ?probnp", r"probnp", r"dimer", r"ddimer", r"hb", r"haemoglobin",
        r"hemoglobin", r"wcc", r"wbc", r"platelet count", r"plt count", r"retics?",
        r"reticulocytes?", r"haematinics", r"hematinics", r"iron studies", r"vit(?:amin)? d",
        r"vitamin b12", r"a1c", r"fasting (?:glucose|lipids|bloods)", r"ogtt", r"gtt",
        r"cbg", r"bm", r"bms", r"capillary (?:blood )?(?:glucose|ketones?)", r"cbk",
        r"blood ketones?", r"ketone", r"finger ?prick", r"heel prick", r"osmolality", r"osmo",
        r"serum osm\w*", r"lactate", r"vbg", r"cap gas",
        r"capillary gas", r"cbg gas", r"gas", r"abgs?", r"ph", r"bicarbonate level",
        r"ammonia", r"cortisol", r"short synacthen", r"synacthen", r"acth", r"prolactin",
        r"lh", r"fsh", r"oestradiol", r"testosterone", r"progesterone", r"beta ?hcg",
        r"b ?hcg", r"bhcg", r"serum hcg", r"upt", r"urine preg\w*", r"psa", r"ca ?125",
        r"cea", r"afp", r"ca ?19 ?9", r"tumou?r markers", r"myeloma screen", r"spep",
        r"electrophoresis", r"bence jones", r"free light chains", r"immunoglobulins",
        r"complement", r"ana", r"anca", r"ena", r"dsdna", r"rf", r"rheumatoid factor",
        r"anti ccp", r"ccp", r"hla ?b27", r"ttg", r"coeliac screen", r"celiac screen",
        r"h pylori", r"helicobacter", r"urea breath test", r"stool antigen", r"fit",
        r"faecal (?:calprotectin|immunochemical|elastase)", r"calprotectin", r"fob\w*",
        r"c ?diff\w*", r"cdt", r"stool (?:mc&s|culture|sample|ova|ocp)", r"ova",
        r"hiv(?: test)?", r"bbv\w*", r"hep(?:atitis)? [abc](?: serology| screen| sag| ab)?",
        r"hbsag", r"vdrl", r"syphilis serology", r"monospot", r"ebv", r"cmv", r"asot",
        r"aso titre", r"throat swab", r"nose swab", r"nasal swab", r"npa",
        r"nasopharyngeal (?:aspirate|swab)", r"npa swab", r"resp(?:iratory)? (?:swab|panel|"
        r"viral panel|pcr)", r"viral (?:swab|pcr|screen|panel)", r"covid (?:swab|pcr|test)",
        r"lft", r"rapid antigen", r"flu swab", r"mrsa (?:swab|screen)", r"wound swab",
        r"hvs", r"lvs", r"endocervical swab", r"chlamydia", r"naat", r"sti screen",
        r"gonorr\w*", r"csf", r"csf (?:analysis|protein|glucose|mc&s)",
        r"xanthochromia", r"pleural fluid", r"ascitic fluid", r"joint fluid", r"synovial fluid",
        r"fluid (?:mc&s|analysis|culture|protein|ldh|cytology)", r"ldh", r"cytology",
        r"histology", r"tox screen", r"uds", r"urine drug screen", r"paracetamol and "
        r"salicylate levels?", r"paracetamol ?(?:and|\+|&) ?salicylate", r"salicylates?",
        r"ethanol", r"alcohol level", r"carboxyhaemoglobin", r"cohb", r"methb", r"digoxin "
        r"level", r"lithium level", r"drug levels?", r"gent(?:amicin)? level", r"vanc\w* level",
        r"trough", r"peak level", r"septic screen", r"sepsis screen", r"full septic screen",
        r"pet bloods", r"pet screen", r"pih bloods", r"kleihauer", r"antibody screen",
        r"coombs", r"sbr", r"bilirubin", r"split bili\w*", r"sbr", r"g6pd",
        r"newborn screen", r"guthrie", r"bloodspot", r"smear",
        r"cervical (?:screening|smear|cytology)", r"lbc", r"hpv",
        r"skin scrapings?", r"scrapings", r"nail clippings", r"(?:confusion|dementia|liver|myeloma|"
        r"thrombophilia|vasculitic|vasculitis|autoimmune|delirium) screen(?: bloods)?",
        r"accu ?che(?:c)?k\w*", r"finger ?stick\w*", r"fsbg", r"poc(?:t)? glucose",
        r"poct", r"fbe", r"elfts?", r"bone marrow aspirate",
        r"group ?& ?save", r"g&s", r"g ?s", r"venous bloods", r"routine bloods", r"admission "
        r"bloods", r"repeat bloods", r"post ?op bloods", r"bld", r"bloods x ?\d", r"bcx",
        r"ucx", r"micro(?:biology)? samples?", r"mc ?and ?s", r"m&c", r"aec",
    ),
    "imaging": (
        r"x ray", r"xray", r"radiograph", r"ct", r"ct scan", r"ctpa", r"mri", r"ultrasound",
        r"ctap", r"ct c ?a ?p", r"bpp", r"biophysical profile", r"afi", r"cervical length",
        r"bladder (?:us|uss|ultrasound)", r"fluoro",
        r"echocardiogra\w*", r"echo", r"scan", r"imaging", r"doppler", r"angiogra\w*",
        r"mammogra\w*", r"cxr", r"fast",
        r"xr", r"x rays?", r"films?", r"axr", r"pxr", r"kub", r"xr \w+", r"ap (?:and|\+|&) "
        r"lat\w*",
        r"(?:ap|lateral|lat|oblique|mortise|skyline|scaphoid|pa|open mouth|shoot through|\d+) "
        r"views?",
        r"skyline", r"c spine (?:xr|x ray|films?|imaging|ct)",
        r"ct ?(?:kub|pa|b|h|c|cap|tap|ap|abdo\w*|head|chest|neck|brain|spine|c spine|angio\w*|"
        r"a|v|venogram|urogram|colonography|coronary|thorax|pelvis|sinuses|face|orbits|"
        r"perfusion)", r"ctkub", r"ctb", r"cth", r"ncct", r"cect", r"cta", r"ctv", r"ctca",
        r"ctu", r"hrct", r"pet ?ct", r"pet", r"spect", r"mri \w+", r"mrcp", r"mra",
        r"mrv", r"mri ?(?:brain|head|spine|whole spine|knee|pelvis|liver)", r"uss",
        r"usg", r"us (?:abdo\w*|pelvis|renal|kidneys?|liver|neck|thyroid|scrotum|testes|hip|"
        r"doppler|guided|kub|leg|dvt|bladder|breast|soft tissue|appendix)",
        r"(?:renal|pelvic|abdo\w*|liver|thyroid|neck|scrotal|testicular|transvaginal|"
        r"tv|tvs|ta|obstetric|dating|growth|anomaly|early pregnancy|bedside|focused|cranial|"
        r"hip|breast|soft tissue|carotid|venous|arterial|leg|dvt) (?:us|uss|usg|scan|"
        r"ultrasound|dopplers?|duplex)", r"tvus", r"tvs", r"tv uss", r"epau scan",
        r"pocus", r"efast", r"e fast", r"fast scan", r"dopplers", r"duplex",
        r"carotid dopplers?", r"venous dopplers?", r"arterial dopplers?", r"tte", r"transthoracic",
        r"transoesophageal", r"bubble echo", r"stress echo",
        r"dexa", r"dxa", r"bone density", r"v ?q", r"vq", r"v q scan", r"vq scan",
        r"perfusion scan", r"bone scan", r"nuclear", r"nm", r"mibg", r"hida", r"dmsa",
        r"mag ?3", r"thyroid uptake", r"myocardial perfusion", r"mpi", r"spect",
        r"fluoroscopy", r"barium (?:swallow|meal|enema)", r"contrast (?:swallow|study|enema)",
        r"ivu", r"ivp", r"kub xr", r"opg", r"orthopantomogram", r"skeletal survey",
        r"mammo", r"mammogram", r"angio", r"ct angio\w*", r"cath lab", r"coronary angio\w*",
        r"interventional radiology", r"ir", r"radiology", r"radiologist", r"scan\w*",
        r"sonograph\w*", r"cxr ?pa", r"portable (?:cxr|film|xr|x ray)", r"erect cxr",
        r"chest film", r"chest xr", r"pelvic xr", r"hip xr", r"wrist xr", r"ankle xr",
    ),
    "other_diagnostic": (
        r"ecg", r"ekg", r"monitoring", r"monitor", r"telemetry", r"spirometry", r"peak flow",
        r"nst", r"non ?stress test", r"efm", r"toco",
        r"pulse oximetry", r"oximetry", r"eeg", r"observations", r"obs", r"neuro obs",
        r"vital signs", r"vitals", r"spo2", r"saturations?", r"sats", r"blood pressure",
        r"gcs", r"glasgow coma", r"early warning score", r"news2", r"news score",
        r"peak expiratory flow", r"pefr", r"fluid balance", r"pews", r"ctg",
        r"cardiotocograph\w*", r"fluid balance chart", r"observation chart", r"bladder scan",
        r"capillary", r"temperature", r"heart rate",
        r"\d+ ?lead(?: ecg)?", r"12 lead", r"serial ecgs?", r"repeat ecg", r"tele", r"cardiac "
        r"monitor\w*", r"holter", r"\d+ ?(?:h|hr|hour) (?:tape|ecg|holter|bp|ambulatory)",
        r"(?:24|48|72) ?(?:h|hr|hour)? tape", r"ambulatory (?:bp|ecg|blood pressure)",
        r"abpm", r"home bp", r"event recorder", r"loop recorder", r"ilr",
        r"obs (?:q|\d)\w*", r"(?:\d+|half) ?(?:hourly|hrly|min\w*) obs", r"full set of obs",
        r"set of obs", r"news", r"mews", r"meows", r"ews", r"pews score", r"neuro obs",
        r"neurological obs\w*", r"vitals", r"bp", r"bps", r"(?<!\d )(?<!\d)hr", r"rr", r"resp rate",
        r"respiratory rate", r"temp", r"pulse", r"postural (?:bp|obs|observations|drop)",
        r"lying (?:and|\+|&) standing", r"lying standing", r"l ?& ?s bp", r"orthostatic\w*",
        r"pef", r"peak flows?", r"feno", r"fractional exhaled nitric oxide",
        r"lung function(?: tests)?", r"pfts?", r"full pfts", r"dlco", r"tlco",
        r"bronchodilator reversibility", r"reversibility", r"emg", r"ncs",
        r"nerve conduction\w*", r"eeg", r"sleep study", r"polysomnograph\w*", r"oximetry study",
        r"overnight oximetry", r"capnography", r"etco2", r"end tidal", r"cvp",
        r"urine output", r"u ?o", r"uo", r"hourly uo", r"input output", r"i o", r"i ?& ?os?",
        r"in out chart",
        r"strict (?:i ?o|input|fluid balance|in out)", r"fluid chart", r"pvr",
        r"post void residual", r"bladder volume", r"uroflow\w*", r"urodynamics",
        r"tilt table", r"va", r"home (?:o2|oxygen) assessment", r"exercise tolerance test",
        r"exercise ecg", r"treadmill",
        r"stress test", r"audiometry", r"audiogram", r"hearing test", r"tympanometry",
        r"oae", r"hearing screen", r"visual acuity", r"snellen", r"iop", r"tonometry",
        r"ecg monitoring", r"cardiac monitoring", r"continuous (?:sats|monitoring|spo2|ecg|"
        r"ctg|obs)", r"apnoea monitor\w*", r"fetal monitoring", r"fhr", r"fetal heart\w*",
        r"doppler fhr", r"sonicaid", r"ctg monitoring", r"qtc", r"ecg \w+", r"gcs \w+",
        r"urine output monitoring", r"output",
        r"(?:drain|stoma|ng|ngt|urine|catheter|chest drain) outputs?", r"pupillometry",
        r"glucose monitoring",
        r"cgm", r"seizure (?:chart|diary|monitoring)", r"headache diary", r"symptom diary",
        r"six minute walk", r"6mwt", r"walk test", r"sit to stand",
    ),
    "medication": (
        r"epinephrine", r"adrenaline", r"oxygen", r"saline", r"bolus", r"fluids?",
        r"crystalloid", r"nebuli[sz](?:er|ed)", r"inhaler", r"salbutamol", r"albuterol",
        r"apap", r"asa", r"ntg", r"kvo", r"tko", r"mivf", r"d5w?", r"d10w?", r"d5 ?(?:1 ?2 )?ns",
        r"half normal(?: saline)?", r"lr", r"ceftriax", r"cefepime", r"azithro", r"fent",
        r"clinda", r"macrobid", r"rhogam", r"pitocin", r"methergine", r"cytotec", r"celestone",
        r"terbutaline", r"indomethacin", r"pulmicort", r"coloxyl", r"slow ?k", r"ural",
        r"gastrolyte", r"hydralyte", r"panamax", r"voltaren", r"tramal", r"norspan",
        r"durogesic", r"zomorph", r"fybogel", r"daktarin", r"flamazine", r"instillagel",
        r"microlax", r"\w+ gtt",
        r"ipratropium", r"glycopyrronium", r"glycopyrrolate", r"rate control", r"rhythm control",
        r"(?:dka|hhs|hypo|hypoglycaemia|sepsis|alcohol withdrawal|ciwa|paracetamol|anaphylaxis|"
        r"asthma|seizure|status) (?:protocol|pathway|regime|regimen)", r"friii",
        r"home (?:o2|oxygen)", r"steroids?", r"dexamethasone", r"prednisolone", r"prednisone",
        r"hydrocortisone", r"antibiotics?", r"analgesia", r"paracetamol", r"acetaminophen",
        r"ibuprofen", r"morphine", r"insulin", r"heparin", r"aspirin", r"magnesium",
        r"antihistamine", r"pharmacy", r"prescription", r"prescribe", r"dispense", r"doses?",
        r"infusion", r"drip", r"vaccin\w*", r"immuni[sz]ation", r"tablets?", r"cream",
        r"patch", r"orally", r"by mouth", r"intramuscular\w*", r"subcutaneous\w*", r"iv fluids",
        r"suppository", r"transfusion", r"supply", r"naloxone", r"glucagon", r"antiemetic",
        r"ondansetron", r"tetanus", r"packed red cells", r"red cells", r"transfusion",
        r"blood products", r"ffp", r"o negative", r"immunoglobulin", r"rehydration", r"ors",
        r"nsaids?", r"medicines?", r"medications?", r"drugs?",
        # forms (routes, frequencies and doses are QUALIFIERS, read after every noun)
        r"neb", r"nebs", r"ivi", r"loading dose", r"\w+ infusion", r"sliding scale",
        r"back to back", r"spray", r"drops", r"eye drops", r"ear drops", r"ointment",
        r"gel", r"lotion", r"emollients?", r"sachets?", r"injection", r"inj", r"jab",
        r"booster", r"vaccination", r"meds", r"med", r"regular meds", r"rx", r"tto meds",
        r"pca", r"syringe driver", r"csci", r"depot",
        # oxygen and fluids
        r"o2", r"oxygen", r"target (?:sats|saturations?|spo2)", r"high flow(?: oxygen| o2| nasal)?",
        r"hfno", r"hfnc", r"optiflow",
        r"airvo", r"nrb", r"non ?rebreath\w*", r"venturi", r"nasal specs", r"nasal prongs",
        r"nasal cannula\w*", r"fio2", r"heliox", r"ivf", r"ivfs?",
        r"iv fluid\w*", r"maintenance(?: fluids)?", r"fluid bolus", r"fluid challenge",
        r"hartmann\w*", r"csl", r"compound sodium lactate", r"ringer'?s?(?: lactate)?", r"rl",
        r"plasma ?lyte\w*", r"plasmalyte", r"nacl", r"normal saline", r"ns", r"0 ?\.?9 ?%",
        r"dextrose", r"dex saline", r"\d+ ?% ?(?:dextrose|glucose|saline|nacl)",
        r"kcl", r"potassium(?: chloride| replacement)?", r"sando ?k", r"phosphate (?:sandoz|"
        r"polyfusor|replacement)", r"calcium (?:gluconate|chloride)", r"mgso4", r"mg ?so4",
        r"mg sul(?:ph|f)\w*", r"magnesium sul(?:ph|f)\w*",
        r"albumin", r"hypertonic saline", r"mannitol", r"bicarb\w*",
        r"sodium bicarbonate", r"tpn", r"parenteral nutrition", r"vrii", r"frii",
        r"variable rate insulin", r"fixed rate insulin",
        # blood products
        r"prbc", r"prbcs", r"rcc", r"units? of (?:blood|rbc|prbc|red cells|ffp|platelets)",
        r"\w+ units? (?:of )?(?:blood|red cells|prbc|ffp)", r"platelet transfusion",
        r"pool of platelets", r"cryo\w*", r"octaplex", r"beriplex", r"pcc", r"prothrombin "
        r"complex", r"major haemorrhage protocol", r"mhp", r"massive transfusion\w*", r"mtp",
        r"o neg", r"emergency blood", r"uncrossmatched", r"blood transfusion", r"transfuse",
        r"iv iron", r"ferinject", r"monofer", r"cosmofer", r"anti ?d",
        # analgesia, sedation, anaesthesia
        r"pcm", r"calpol", r"nurofen", r"naproxen", r"diclofenac", r"voltarol",
        r"ketorolac", r"toradol", r"codeine", r"co ?codamol", r"cocodamol", r"co ?dydramol",
        r"dihydrocodeine", r"tramadol", r"oramorph", r"oxynorm", r"oxycontin", r"oxycodone",
        r"fentanyl", r"alfentanil", r"diamorphine", r"ketamine", r"entonox", r"gas and air",
        r"penthrox", r"methoxyflurane", r"green whistle", r"lidocaine", r"lignocaine",
        r"bupivacaine", r"levobupivacaine", r"local anaesthetic", r"emla", r"ametop",
        r"propofol", r"midazolam", r"buccal midazolam", r"midaz", r"lorazepam", r"diazepam",
        r"clonazepam", r"chlordiazepoxide", r"librium", r"haloperidol", r"olanzapine",
        r"quetiapine", r"risperidone", r"promethazine", r"zopiclone", r"zolpidem",
        r"melatonin", r"rapid tranq\w*", r"procyclidine", r"simple analgesia",
        r"pain relief", r"analgesic", r"opioids?", r"opiates?", r"paracetamol iv",
        # antimicrobials
        r"amoxicillin", r"amox", r"augmentin", r"co ?amox\w*", r"coamox\w*", r"tazocin",
        r"pip ?taz\w*", r"piperacillin", r"fluclox\w*", r"benpen", r"benzylpenicillin",
        r"pen v", r"penicillin\w*", r"ceftriaxone", r"cefuroxime", r"cefalexin",
        r"cephalexin", r"cefotaxime", r"ceftazidime", r"cefazolin", r"meropenem", r"mero",
        r"ertapenem", r"gent", r"gentamicin", r"vanc", r"vanco", r"vancomycin",
        r"teicoplanin", r"teic", r"clindamycin", r"doxycycline", r"doxy", r"clarithromycin",
        r"clari", r"azithromycin", r"erythromycin", r"metronidazole", r"metro", r"trimethoprim",
        r"nitrofurantoin", r"co ?trimoxazole", r"septrin", r"cipro\w*", r"levofloxacin",
        r"moxifloxacin", r"linezolid", r"rifampicin", r"aciclovir", r"acyclovir",
        r"valaciclovir", r"oseltamivir", r"tamiflu", r"fluconazole", r"nystatin",
        r"chloramphenicol", r"fusidic acid", r"fucidin", r"mupirocin", r"bactroban",
        r"naseptin", r"abx", r"ivabx", r"iv abx", r"antibiotic\w*", r"antivirals?",
        r"antifungals?", r"sepsis six", r"(?:neutropenic )?sepsis (?:pathway|protocol|bundle)",
        r"irradiated (?:blood|products)",
        r"platelets (?:\d+ )?(?:pool|pools|units?|transfusion)", r"\d+ pools? of platelets",
        r"g csf",
        r"filgrastim", r"pep", r"pepse", r"prep(?! for)", r"ehc", r"script", 
        r"repeat script", r"fp10",
        r"sedation (?:hold|break|holiday)", r"sepsis 6", r"prophylaxis", r"ppx",
        # cardiovascular, anticoagulation
        r"gtn", r"glyceryl trinitrate", r"isosorbide \w+", r"nitrates?", r"ticagrelor",
        r"clopidogrel", r"prasugrel", r"dapt", r"loading", r"alteplase", r"tenecteplase",
        r"thrombolys\w*", r"tpa", r"lmwh", r"enoxaparin", r"clexane", r"dalteparin", r"fragmin",
        r"tinzaparin", r"innohep", r"ufh", r"apixaban", r"eliquis", r"rivaroxaban",
        r"xarelto", r"edoxaban", r"dabigatran", r"warfarin", r"doac", r"noac",
        r"anticoagula\w*", r"vit(?:amin)? k", r"phytomenadione", r"konakion", r"protamine",
        r"idarucizumab", r"praxbind", r"andexanet", r"tranexamic acid", r"txa",
        r"furosemide", r"frusemide", r"lasix", r"bumetanide", r"spironolactone",
        r"diuretics?", r"amlodipine", r"ramipril", r"lisinopril", r"bisoprolol",
        r"atenolol", r"metoprolol", r"propranolol", r"labetalol", r"hydralazine",
        r"nifedipine", r"digoxin", r"amiodarone", r"adenosine", r"atropine", r"verapamil",
        r"diltiazem", r"noradrenaline", r"norepinephrine", r"vasopressors?", r"inotropes?",
        r"metaraminol", r"dobutamine", r"dopamine", r"statins?", r"atorvastatin",
        r"simvastatin", r"antihypertensives?",
        # respiratory
        r"ventolin", r"atrovent", r"aminophylline", r"theophylline", r"montelukast",
        r"tiotropium", r"spiriva", r"symbicort", r"seretide", r"fostair", r"relvar",
        r"trelegy", r"budesonide", r"beclometasone", r"clenil", r"fluticasone", r"flixotide",
        r"mart", r"saba", r"ics", r"laba", r"lama", r"spacer", r"pred", r"methylpred\w*",
        r"dex", r"hydrocort", r"salbutamol neb\w*", r"pred \d+",
        # diabetes and endocrine
        r"actrapid", r"novorapid", r"humalog", r"lantus", r"levemir", r"glargine",
        r"detemir", r"humulin \w", r"metformin", r"gliclazide", r"empagliflozin",
        r"dapagliflozin", r"glucogel", r"hypostop", r"hypo treatment", r"hypo box",
        r"levothyroxine", r"thyroxine", r"carbimazole", r"fludrocortisone",
        # gastro, antiemetics
        r"cyclizine", r"metoclopramide", r"maxolon", r"prochlorperazine", r"stemetil",
        r"domperidone", r"ondansetron", r"omeprazole", r"lansoprazole", r"pantoprazole",
        r"esomeprazole", r"ppi", r"gaviscon", r"peptac", r"ranitidine", r"famotidine",
        r"buscopan", r"hyoscine", r"loperamide", r"dioralyte", r"senna", r"lactulose",
        r"movicol", r"laxido", r"docusate", r"bisacodyl", r"glycerin suppositor\w*",
        r"laxatives?", r"enema", r"phosphate enema", r"terlipressin", r"rifaximin",
        r"pabrinex", r"thiamine", r"vitamin b", r"vit b", r"folic acid", r"ferrous \w+",
        r"iron", r"hydroxocobalamin", r"vitamin d", r"adcal", r"calcichew", r"zinc",
        # neuro, psych
        r"levetiracetam", r"keppra", r"phenytoin", r"fosphenytoin", r"valproate",
        r"epilim", r"lamotrigine", r"carbamazepine", r"phenobarb\w*", r"sertraline",
        r"fluoxetine", r"citalopram", r"mirtazapine", r"amitriptyline", r"gabapentin",
        r"pregabalin", r"clozapine", r"aripiprazole", r"lithium", r"donepezil",
        r"sumatriptan", r"nimodipine",
        # allergy, antidotes, toxicology
        r"chlorphenamine", r"piriton", r"cetirizine", r"loratadine", r"fexofenadine",
        r"epipen", r"jext", r"emerade", r"auto ?injector", r"im adrenaline", r"nac",
        r"n acetylcysteine", r"acetylcysteine", r"parvolex", r"activated charcoal",
        r"charcoal", r"flumazenil", r"fomepizole", r"digifab", r"intralipid",
        r"hydroxocobalamin", r"desferrioxamine", r"antivenom", r"antitoxin",
        # obstetric and gynae
        r"oxytocin", r"syntocinon", r"synto\w*", r"ergometrine", r"carboprost",
        r"hemabate", r"misoprostol", r"mifepristone", r"dinoprostone", r"propess",
        r"prostin", r"betamethasone", r"mag sulph", r"mag sulf", r"anti d",
        r"methotrexate", r"contraception", r"ocp", r"coc", r"pop pill", r"emergency "
        r"contraception", r"levonorgestrel", r"ulipristal", r"ellaone", r"hrt",
        # skin, eye, ear
        r"dermol", r"diprobase", r"epaderm", r"zerobase", r"aqueous cream",
        r"betnovate", r"dermovate", r"eumovate", r"fucibet", r"daktacort", r"canesten",
        r"clotrimazole", r"permethrin", r"otomize", r"sofradex", r"ciprodex",
        r"chloramphenicol drops", r"fluorescein",
        # vaccines and immunoglobulins
        r"flu (?:jab|vaccine|shot)", r"influenza vaccine", r"covid (?:jab|vaccine|booster)",
        r"mmr", r"dtap", r"tdap", r"td ipv", r"revaxis", r"pneumovax", r"pcv", r"bcg",
        r"hep b vaccine", r"hepatitis b vaccine", r"rabies (?:vaccine|ig|immunoglobulin)",
        r"hrig", r"tig", r"tetanus (?:booster|toxoid|ig|immunoglobulin)", r"ivig",
        r"shingles vaccine", r"rsv vaccine", r"palivizumab",
        # smoking, misc
        r"nrt", r"nicotine (?:replacement|patch\w*|gum|inhalator)", r"varenicline",
        r"champix", r"chemo\w*", r"immunotherapy", r"dmards?", r"biologics?", r"vitamins?",
        r"supplements?", r"ons", r"fortisip\w*",
        # common brand names (UK, US, Australia)
        r"lovenox", r"zofran", r"tylenol", r"motrin", r"advil", r"norco", r"vicodin",
        r"percocet", r"dilaudid", r"hydromorphone", r"keflex", r"bactrim", r"zosyn",
        r"unasyn", r"flagyl", r"levaquin", r"protonix", r"pepcid", r"benadryl", r"ativan",
        r"valium", r"versed", r"haldol", r"zyprexa", r"seroquel", r"coumadin", r"plavix",
        r"lipitor", r"toprol", r"lopressor", r"coreg", r"norvasc", r"decadron",
        r"solu ?medrol", r"medrol", r"narcan", r"duoneb", r"proventil", r"xopenex",
        r"singulair", r"flovent", r"advair", r"prilosec", r"nexium", r"reglan",
        r"compazine", r"phenergan", r"colace", r"miralax", r"dulcolax", r"senokot",
        r"endone", r"panadol", r"panadeine\w*", r"ordine", r"targin",
        r"ppi",
    ),
    "procedure": (
        r"cannula", r"cannulas", r"cannulation", r"iv access", r"iv line", r"intubation",
        r"catheter", r"lumbar puncture", r"suture", r"drain", r"defibrillation",
        r"cardioversion", r"incision", r"splint", r"cast", r"biopsy", r"nasogastric",
        r"ng tube", r"pleural tap", r"paracentesis", r"pacing", r"cpr", r"plaster",
        r"reduction", r"tourniquet", r"dc (?:cardioversion|shock)", r"wound closure", r"packing",
        r"binder", r"sling",
        r"immobili[sz]\w*", r"collar", r"irrigation", r"adjuncts?", r"bag valve mask", r"bvm",
        r"straight cath\w*", r"thora", r"cric", r"evd", r"burr holes?", r"splinting",
        r"strapping", r"casting", r"suturing", r"wound vac",
        r"ventilation", r"oropharyngeal", r"nasopharyngeal",
        # access and lines
        r"(?:1[4-9]|2[0-6]) ?g(?:auge)?(?: \w+)? (?:cannula\w*|venflon|vf|iv|access|line)",
        r"acf", r"l acf", r"r acf", r"large bore\w*", r"venflon\w*", r"iv cannula\w*",
        r"cannulae", r"vf", r"peripheral (?:line|access|cannula)", r"io", r"io access",
        r"intraosseous", r"ezio", r"central line", r"cvc", r"cvl", r"picc(?: line)?",
        r"midline", r"art line", r"arterial line", r"a line", r"ultrasound guided cannula\w*",
        r"us guided cannula\w*", r"second line", # catheters and tubes
        r"idc", r"iuc", r"urinary catheter", r"foley\w*", r"in ?out cath\w*", r"cath",
        r"catheterisation", r"catheterization", r"suprapubic\w*", r"spc", r"ngt", r"ryles?",
        r"og tube", r"ogt", r"ng", r"nj tube", r"peg(?: tube)?", r"rig", r"tube",
        r"flatus tube", r"rectal tube",
        # taps, drains, punctures
        r"lp", r"chest drain", r"icc", r"intercostal (?:drain|catheter)", r"seldinger",
        r"thoracocentesis", r"thoracentesis", r"pleural aspiration", r"ascitic tap",
        r"ascitic drain", r"abdominal paracentesis", r"joint aspiration", r"arthrocentesis",
        r"knee aspiration", r"aspiration", r"pericardiocentesis", r"needle decompression",
        r"finger thoracostomy", r"thoracostomy", r"thoracotomy", r"suction",
        r"nasal suction", r"oral suction", r"suctioning", r"bone marrow (?:biopsy|trephine)",
        r"fna", r"core biopsy", r"punch biopsy",
        # wounds, fractures
        r"sutures", r"stitches", r"steri ?strips?", r"steristrips?", r"glue", r"dermabond",
        r"histoacryl", r"staples", r"skin closure", r"washout", r"wash out", r"debridement",
        r"i ?& ?d", r"incision and drainage", r"toilet and suture", r"wound (?:toilet|"
        r"exploration|repair)", r"lac(?:eration)? repair", r"pop", r"backslab", r"back slab",
        r"cast", r"moon boot", r"aircast", r"walker boot", r"collar and cuff", r"buddy strap\w*",
        r"neighbour strap\w*", r"mua", r"manipulation", r"closed reduction", r"relocation",
        r"traction", r"thomas splint", r"k wires?", r"orif", r"fixation",
        r"nail trephin\w*", r"trephination", r"twoc", r"trial without catheter", r"trial of void",
        r"fb removal", r"foreign body removal",
        r"ear syring\w*", r"microsuction", r"nasal pack\w*", r"rapid rhino", r"cautery",
        r"silver nitrate", r"digital block", r"ring block", r"nerve block", r"fascia iliaca\w*",
        r"haematoma block", r"bier\w* block", r"regional block", r"block", r"spinal",
        r"epidural", r"procedural sedation", r"sedation",
        # airway, breathing, circulation
        r"rsi", r"ett", r"lma", r"i ?gel", r"supraglottic", r"opa", r"guedel", r"npa airway",
        r"nasopharyngeal airway", r"jaw thrust", r"chin lift", r"head tilt", r"cricothyroid\w*",
        r"surgical airway", r"tracheostomy", r"trachy", r"niv", r"cpap", r"bipap",
        r"bag and mask", r"bag mask", r"bagging", r"chest compressions", r"defib\w*",
        r"dc shock", r"dccv", r"synchronised", r"external pacing", r"tpw",
        r"transcutaneous pacing", r"pacing wire", r"cardiac arrest", r"als", r"drainage",
        r"tubigrip", r"compression bandage",
        r"crepe bandage", r"bandage",
        r"venepuncture", r"venesection", r"phlebotomy",
        # surgery, endoscopy, obstetrics
        r"theatre", r"surgery", r"operation", r"laparotomy", r"laparoscop\w*", r"lap \w+",
        r"appendicectomy", r"appendectomy", r"cholecystectomy", r"\w+ectomy", r"\w+otomy",
        r"\w+ostomy", r"\w+oplasty", r"\w+pexy", r"ercp", r"ogd", r"endoscopy", r"gastroscopy",
        r"colonoscopy", r"flexi ?sig\w*", r"sigmoidoscopy", r"bronchoscopy", r"bronch",
        r"cystoscopy", r"hysteroscopy", r"colposcopy", r"nasendoscopy", r"scope",
        r"arom", r"artificial rupture\w*", r"membrane sweep", r"sweep", r"iol",
        r"induction of labou?r", r"lscs", r"c ?section", r"caesarean", r"cesarean",
        r"instrumental", r"ventouse", r"forceps", r"episiotomy", r"perineal repair",
        r"fbs", r"fetal blood sampl\w*", r"manual removal\w*", r"evacuation", r"erpc",
        r"smm", r"d ?& ?c", r"cervical cerclage", r"stitch", r"ecv",
        r"pci", r"ppci", r"angioplasty", r"stent\w*", r"embolisation", r"thrombectomy",
        r"ivc filter", r"dialysis", r"haemofiltration", r"filtration", r"plasma exchange",
        r"ect", r"circumcision", r"phototherapy", r"coil", r"iud", r"ius", r"iucd",
        r"implant", r"nexplanon", r"rrt", r"cvvh\w*", r"eua", r"joint aspirat\w*",
        r"abdo (?:xr|x ray|ct|us|uss|ultrasound|film)", r"vasectomy", r"tonsillectomy", r"grommets",
    ),
    "consultation": (
        r"referral", r"consult", r"consultation", r"specialist", r"tumou?r board", r"mdt",
        r"gi", r"heme\w*", r"heme ?onc", r"ob", r"ob ?gyn", r"peds", r"ct surg\w*",
        r"cardiothoracic\w*", r"ir (?:consult|referral|review)", r"ethics", r"pcp",
        r"multidisciplinary", r"registrar", r"consultant", r"anaesthetist", r"anesthesiologist",
        r"surgeon", r"oncologist", r"social work\w*", r"physiotherap\w*", r"dietitian",
        r"occupational therap\w*", r"chaplain\w*", r"psychiatr\w*", r"picu", r"icu",
        r"outreach", r"palliative care team", r"interpreter", r"nurse navigator",
        r"pre alert", r"smoking cessation", r"crash call", r"arrest call", r"crash team",
        r"rapid response", r"gp", r"general practitioner", r"health visitor", r"physio",
        r"public health", r"safeguarding", r"child protection", r"trauma team",
        r"stroke team", r"code", r"activat\w*",
        # grades, teams and services
        r"reg", r"spr", r"str", r"sho", r"senior(?: review| input| opinion)?", r"cons",
        r"on call(?: \w+)?", r"obs reg", r"obs (?:and|&) gynae", r"o ?& ?g", r"gynae\w*",
        r"obstetric\w* (?:team|review|reg)", r"medical (?:team|reg|registrar|review)",
        r"med reg", r"medics", r"surg(?:ical)? (?:team|reg|registrar|review|opinion)",
        r"surgeons", r"surgs", r"gen surg\w*", r"ortho\w*", r"t ?& ?o", r"cardiology",
        r"cardiologist", r"cards", r"respiratory team", r"resp team", r"gastro\w*",
        r"hepatology", r"renal team", r"renal reg", r"nephrology", r"neurology",
        r"neurologist", r"neurosurg\w*", r"nsx", r"urology", r"urologist", r"ent(?: team| reg"
        r"| review| referral)?", r"max ?fax", r"omfs", r"ophthalmolog\w*", r"eye casualty",
        r"plastics", r"vascular(?: team| surgeons| review)?", r"haematology", r"haem\w* "
        r"(?:team|reg|review)", r"acute onc\w*", r"oncology", r"onc (?:team|reg|review)",
        r"pall(?:iative)? care", r"spct", r"hospice", r"micro(?:biology)?(?: advice)?",
        r"id team", r"infectious diseases", r"virology", r"paeds", r"paediatric\w*",
        r"pediatric\w*", r"neonatal team", r"neonates", r"neonatologist", r"nicu", r"scbu",
        r"itu", r"hdu", r"critical care", r"intensivist", r"met call", r"met team",
        r"code blue", r"\w+ call", r"2222", r"999", r"000", r"911", r"ambulance", r"paramedics",
        r"retrieval", r"psych\w*", r"liaison psych\w*", r"mhlt", r"mental health team",
        r"crisis (?:team|service)", r"crht", r"home treatment(?: team)?", r"camhs",
        r"amhp", r"section \d+", r"mha assessment", r"social services", r"social care",
        r"mash", r"police", r"dietician", r"salt", r"slt", r"speech and language\w*",
        r"pt ot", r"ot", r"pt and ot", r"therapies", r"therapists?", r"pharmacist",
        r"tissue viability", r"tvn", r"diabetes (?:team|nurse|specialist)", r"dsn",
        r"specialist nurse", r"cns", r"stoma (?:nurse|team|review)",
        r"(?:resp\w*|heart failure|hf|parkinson'?s|epilepsy|asthma|copd|"
        r"diabetes|stroke|tb|ibd|continence|breast care|macmillan|palliative|pain|acute pain|"
        r"sepsis|alcohol|frailty|dementia|admiral|learning disability|ld|infection control|ipc|"
        r"specialist|clinical|cancer|lung cancer|urology|gynae\w*) nurse\w*",
        r"\w+ nurse (?:specialist|bleep|review|referral)",
        r"stroke nurse", r"dn", r"partner notification", r"contact tracing", r"ukhsa", r"phe",
        r"health protection", r"notifiable disease notification",
        r"neuro (?:reg|team|on call|review|sho)",
        r"obs (?:consultant|cons|reg\w*|team|sho|on call)",
        r"cp medical", r"child protection medical", r"cath lab (?:activation|call|team)",
        r"falls team", r"frailty team",
        r"discharge team", r"district nurses?", r"community (?:nurses?|team|matron|"
        r"midwife|paeds)", r"midwi\w*", r"school nurse", r"racpc", r"rapid access\w*",
        r"tia clinic", r"epau", r"eau", r"ewc", r"fracture clinic referral",
        r"dermatology", r"rheumatology", r"endocrinology", r"endocrine team",
        r"geriatrician", r"coe", r"care of the elderly", r"rehab team", r"toxbase", r"npis",
        r"poisons (?:centre|center|information)", r"language line", r"advocate",
        r"imca", r"idva", r"alcohol (?:liaison|team|nurse)", r"drug and alcohol",
        r"substance misuse", r"smoking cessation service", r"stop smoking service",
        r"(?:pt|ot|st|speech|slp|swallow) (?:eval\w*|consult|referral|therapy)",
        r"speech therap\w*", r"case manage\w*",
        r"allergy (?:clinic|team|referral|service|specialist)", r"immunolog\w*",
        r"second opinion", r"opinion", r"input", r"advice from",
        _SERVICE + r" (?:review|r ?v|opinion|input|referral|to see|to review|to assess|advice|"
        r"consult|eval\w*)",
    ),
    "education": (
        r"leaflet", r"booklet", r"information sheet", r"written information",
        r"discharge (?:teaching|education)",
        r"written plan", r"action plan", r"teach back", r"teaching", r"education",
        r"counselling", r"inhaler technique", r"self management", r"advice",
        r"written(?: \w+){0,2} plan", r"emergency plan", r"bracelet",
        r"advice sheet", r"(?!worsening)\w+ advice", r"pil", r"patient information", r"info",
        r"explanation",
        r"spacer technique", r"technique", r"lifestyle", r"diet(?:ary)? advice",
        r"smoking cessation advice", r"sick day rules", r"hypo (?:education|awareness)",
        r"driving advice", r"dvla advice", r"contraceptive advice", r"paap", r"aap",
        r"asthma action plan", r"counsel\w*", r"reassurance", r"explain\w*",
    ),
    "records": (
        r"chart", r"notes", r"medical record", r"records", r"report", r"results",
        r"documentation", r"incident report", r"letter", r"reconciliation", r"form",
        r"medications? reconciliation",
        r"old notes", r"previous notes", r"ed notes", r"gp records", r"scr",
        r"summary care record", r"ecr", r"med rec", r"drug history", r"dnacpr\w*",
        r"dnar", r"respect form", r"treatment escalation plan", r"tep", r"resus status",
        r"ceiling of care", r"escalation plan", r"death certificate", r"mccd",
        r"cremation form", r"d ?c summary", r"discharge letter", r"discharge summary",
        r"clinic letter", r"gp letter", r"fast ?track\w*", r"chc", r"ds ?1500", r"sr1",
        r"photo(?:graph)?s?", r"medical photography", r"clinical photos?",
        r"(?:drug|medication|prescription) chart", r"kardex",
        r"not for (?:cpr|resus\w*|escalation|itu|icu|intubation|hdu|ventilation)",
        r"fit to fly(?: letter)?",
        r"(?:med|meds|medication|medicines|drug|polypharmacy|drug chart) review", r"dols",
        r"deprivation of liberty\w*", r"referral letter", r"datix", r"handover",
        r"old ecgs?", r"previous ecgs?", r"old films", r"previous imaging", r"pacs",
        r"obtain (?:old|previous)", r"clerking", r"ward round", r"care plan",
    ),
    "disposition": (
        r"admission", r"discharge", r"observation unit", r"transfer", r"follow up",
        r"dispo\w*", r"ama", r"dama", r"self discharge", r"observation status", r"lwbs",
        r"safety net\w*", r"return if", r"come back if", r"sick note", r"fit note",
        r"appointment", r"bed", r"home",
        r"admit\w*", r"adm", r"d ?c", r"dc", r"d ?c home", r"tto\w*", r"tta\w*", r"f ?u",
        r"f up", r"fu", r"fup", r"f/u", r"opd", r"outpatients?(?! \w)",
        r"outpatient (?:appointment|clinic|follow up|f ?u|review)", r"clinic", r"2 ?ww",
        r"two week wait", r"urgent suspected cancer", r"review in \d\w*", r"r ?v in \d\w*",
        r"rv in", r"gp (?:f ?u|follow up)(?: in \d\w*)?", r"gp review in", r"gp in \d\w*",
        r"see gp",
        r"safety plan", r"crisis (?:line|number|phone)\w*",
        r"return (?:if|to ed|to a ?& ?e|precautions)", r"re ?attend",
        r"reattend", r"rtc", r"self care", r"worsening advice", r"step down", r"amu", r"mau",
        r"sau", r"cdu", r"sdec", r"virtual ward", r"hospital at home", r"ward", r"hdu bed",
        r"itu bed", r"period of observation", r"observe for \d+", r"ed obs\w*",
        r"work note", r"appts?", r"face to face", r"f2f", r"work (?:restriction|exclusion)",
        r"exclude from (?:work|school|nursery)", r"med ?3", r"off work", r"back to work", r"school",
        r"nursery",
        r"day case", r"repatriat\w*", r"bed manager", r"bed request", r"ambulatory care",
        r"ambulatory", r"recall", r"watchful waiting",
        r"waiting list", r"for surgery", r"rapid access clinic", r"fracture clinic",
        r"999 if", r"return", r"if worse", r"if (?:worsening|not improving|no better)",
    ),
}
# fmt: on
"""Step 3: the keywords of each category (regular expressions over the folded words,
matched as whole words with an optional plural ending)."""

QUALIFIERS: tuple[str, ...] = (
    r"po", r"iv", r"im", r"sc", r"s ?c", r"sq", r"subq", r"subcut", r"sl", r"pr", r"inh",
    r"intranasal", r"nebulised", r"nebulized", r"inhaled", r"stat", r"prn", r"od", r"bd",
    r"tds", r"tid", r"qds", r"qid", r"bid", r"qd", r"nocte", r"mane", r"q ?\d+ ?h\w*",
    r"once daily", r"twice daily", r"three times daily", r"as required", _DOSE,
)  # fmt: skip
"""Step 4: how a medicine is given (route, frequency, dose). They qualify a drug, so they
count only when no keyword of step 3 is in the order: "stat CT head" is imaging, "IV
contrast" does not make a CT a medicine, "Xylo 10 mg PO" is a medication."""

_ADDRESSEE = re.compile(
    r"^(?:(?:\d+[.)]|[*\u2022>+]|plan:?|then|and|also|next|now|pls|please)\s+)*"
    r"(?:please\s+)?(?:(?:nurse|doctor|dr|hca|pharmacist|registrar|team)[\w .]{0,25}:\s*)?"
    r"(?:please\s+)?(?:(?:nurses?|nursing staff|nursing|hcas?|staff|fy1|f1|sho|students?|"
    r"midwi(?:fe|ves)|"
    r"porters?|pharmacists?|phlebotom\w+)\s+(?:to|please)\s+)?"
    r"(?:(?:pt|patient|he|she)\s+(?:to|needs(?: to)?|should|will need(?: to)?)"
    r"(?:\s+(?:be|have|get|receive|go|see|start))?\s+)?"
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
_PATTERNS: dict[Category, tuple[re.Pattern[str], ...]] = {
    category: tuple(re.compile(rf"(?<![\w'])(?:{w})(?:e?s)?(?![\w])") for w in keywords)
    for category, keywords in KEYWORDS.items()
}
"""One pattern a keyword, so that the longest keyword at the earliest place is found whatever
the order they are listed in."""
_QUALIFIER_PATTERN = re.compile(rf"(?<![\w])(?:{_alternatives(QUALIFIERS)})(?![\w])")
_DRUG_PATTERN = re.compile(rf"(?<![\w]){_DRUG}(?![\w])")
_WEAK_LEAD = re.compile(r"^(?:check|measure|count|feel|test|look|observe|watch|note|see)\b")
"""Last, an order that starts by checking something the table names nowhere ("Check
pupils") is a look at the bedside."""


def lead(text: str) -> str:
    """``text`` folded (``orders/phrases.py``) from what the order does: an addressee, "please"
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
        for keyword in _PATTERNS.get(category, ()):
            found = keyword.search(start)
            if found is None:
                continue
            key = (found.start(), -(found.end() - found.start()), rank, category)
            if best is None or key[:3] < best[:3]:
                best = key
    if best is not None:
        return best[3]
    if _QUALIFIER_PATTERN.search(start) or _DRUG_PATTERN.search(start):
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
