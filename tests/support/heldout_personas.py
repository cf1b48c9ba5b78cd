"""Held-out simulated "model personas" for testing the contamination probe.

Who wrote this and from what
----------------------------
Written by a helper session that was shown only the probe's prompt templates
(the system message and the continuation, checklist and slot user prompts,
with their ``$name`` placeholders) and the three published demo cases with
their checklists.  The probe's own code, its tests and its benchmarks were
never seen.  The personas therefore parse prompts the way a language model
would read them (quoted title, the text after the ``---`` line, the ``[?]``
mask, "about N words"), not by any knowledge of how the probe builds them,
and they must answer something sensible for any prompt, including shapes
never seen here.

The demo cases are read at run time from the package data
(``inspect_medsp/data/demo/scenarios`` and ``.../upstream/rubrics``).  A
persona recognises a case from the title named in the prompt (either the
``scenario_title`` or the ``metadata.json`` title) and from the passage shown
(found again in the case text).  Everything is deterministic: any choice is
seeded from the prompt text through hashlib.

The personas
------------
verbatim     A model that memorised the three cases and their checklists word
             for word: continues the exact published text, lists the exact
             checklist items, fills in the exact masked number.  On a case it
             cannot place it says "I do not know it." or guesses like a
             knowledgeable clinician.
paraphrase   A model that saw the cases but recalls them loosely: a
             continuation reuses about 60 % of the true continuation's content
             words, reordered and in its own phrasing, never 8 or more words in
             a row verbatim; checklist items reworded and some forgotten;
             masked numbers right about 70 % of the time.
rubric_only  A model that saw the checklists (rubrics) only: lists them nearly
             verbatim, but answers continuations and slots like "knowledge".
knowledge    A strong clinician that never saw the cases: fills a slot with the
             clinically most likely value for the measurement or drug named
             next to the mask; writes a generic guideline-based checklist for
             the topic of the title; writes plausible generic clinical text as
             a continuation.  Must NOT be flagged by the probe.
generic      Vague, unhelpful talk about medicine in general; no specific
             numbers except an occasional random one.
refusing     Always says it does not remember the material: "I do not know it."
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable

PERSONAS: tuple[str, ...] = (
    "verbatim",
    "paraphrase",
    "rubric_only",
    "knowledge",
    "generic",
    "refusing",
)

DONT_KNOW = "I do not know it."

# --------------------------------------------------------------------------
# Demo case data
# --------------------------------------------------------------------------

PART_DIRS: tuple[str, ...] = ("sp_actor", "environment_controller", "evaluator", "examinee")

# words of the probe's ``$part`` (and a few likely variants) -> packet folder
PART_WORDS: tuple[tuple[str, str], ...] = (
    ("patient script", "sp_actor"),
    ("standardised patient", "sp_actor"),
    ("standardized patient", "sp_actor"),
    ("actor", "sp_actor"),
    ("patient", "sp_actor"),
    ("environment", "environment_controller"),
    ("controller", "environment_controller"),
    ("marking", "evaluator"),
    ("evaluator", "evaluator"),
    ("examiner", "evaluator"),
    ("examinee", "examinee"),
    ("candidate", "examinee"),
    ("door note", "examinee"),
    ("learner", "examinee"),
)


@dataclass(frozen=True)
class Token:
    norm: str
    start: int
    end: int


@dataclass
class Case:
    case_id: str
    titles: tuple[str, ...]
    parts: dict[str, str]
    checklist: tuple[str, ...]
    all_text: str = ""
    tokens: dict[str, list[Token]] = field(default_factory=dict)


def _read_dir_md(folder: Traversable) -> str:
    if not folder.is_dir():
        return ""
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".md")), key=lambda f: f.name)
    return "\n\n".join(f.read_text(encoding="utf-8").strip() for f in files)


def _load_json(path: Traversable) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _norm_word(word: str) -> str:
    w = word.lower().replace("\u2019", "'")
    w = re.sub(r"[^\w%/.\-+']", "", w)
    w = w.replace("_", "")
    return w.strip(".,;:'-/")


def _tokenize(text: str) -> list[Token]:
    out: list[Token] = []
    for m in re.finditer(r"\S+", text):
        n = _norm_word(m.group(0))
        if n:
            out.append(Token(n, m.start(), m.end()))
    return out


def _title_key(title: str) -> str:
    return " ".join(_norm_word(w) for w in title.split() if _norm_word(w))


def _scenario_title(meta: object, scen_dir: str) -> str | None:
    if not isinstance(meta, dict):
        return None
    scenarios = meta.get("scenarios")
    if not isinstance(scenarios, list):
        return None
    digits = re.sub(r"\D", "", scen_dir)
    entries = [s for s in scenarios if isinstance(s, dict)]
    for s in entries:
        sid = str(s.get("scenario_id", ""))
        if sid == scen_dir or (digits and re.sub(r"\D", "", sid) == digits):
            t = s.get("scenario_title")
            if isinstance(t, str):
                return t
    if len(entries) == 1:
        t = entries[0].get("scenario_title")
        if isinstance(t, str):
            return t
    return None


def _rubric_items(data: object) -> tuple[str, ...]:
    items: list[str] = []
    if isinstance(data, dict):
        for value in data.values():
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, str) and item.strip():
                        items.append(" ".join(item.split()))
    return tuple(items)


@functools.lru_cache(maxsize=1)
def _cases() -> tuple[Case, ...]:
    demo = resources.files("inspect_medsp") / "data" / "demo"
    scen_root = demo / "scenarios"
    rub_root = demo / "upstream" / "rubrics"
    cases: list[Case] = []
    if not scen_root.is_dir():
        return ()
    for case_dir in sorted(scen_root.iterdir(), key=lambda f: f.name):
        if not case_dir.is_dir():
            continue
        meta = _load_json(case_dir / "phase1_scenarios_meta.json")
        for scen in sorted(case_dir.iterdir(), key=lambda f: f.name):
            if not scen.is_dir():
                continue
            titles: list[str] = []
            t1 = _scenario_title(meta, scen.name)
            if t1:
                titles.append(t1)
            md = _load_json(scen / "metadata.json")
            if isinstance(md, dict) and isinstance(md.get("title"), str):
                titles.append(str(md["title"]))
            parts = {p: _read_dir_md(scen / p) for p in PART_DIRS}
            rub = rub_root / f"{case_dir.name}_{scen.name}.json"
            checklist = _rubric_items(_load_json(rub)) if rub.is_file() else ()
            case = Case(f"{case_dir.name}/{scen.name}", tuple(titles), parts, checklist)
            case.all_text = "\n\n".join(parts[p] for p in PART_DIRS if parts[p])
            case.tokens = {p: _tokenize(parts[p]) for p in PART_DIRS}
            cases.append(case)
    return tuple(cases)


# --------------------------------------------------------------------------
# Reading the prompt
# --------------------------------------------------------------------------

MASKS: tuple[str, ...] = ("[?]", "[MASK]", "[mask]", "<mask>", "[___]", "___", "[NUMBER]")


@dataclass
class Prompt:
    text: str
    kind: str  # "slot" | "continuation" | "checklist" | "other"
    title: str | None
    part: str | None
    body: str
    words: int
    mask: str | None


def _parse(prompt: str) -> Prompt:
    text = prompt.replace("\r\n", "\n")
    low = text.lower()
    title: str | None = None
    m = re.search(r"case\s+[\"\u201c]([^\"\u201d\n]{2,200})[\"\u201d]", text)
    if m is None:
        m = re.search(r"[\"\u201c]([^\"\u201d\n]{3,200})[\"\u201d]", text)
    if m is not None:
        title = m.group(1).strip()
    body = ""
    sep = re.search(r"^\s*-{3,}\s*$", text, flags=re.M)
    if sep is not None:
        body = text[sep.end():].strip("\n")
    part: str | None = None
    head = text[: sep.start()] if sep is not None else text
    hlow = head.lower()
    for phrase, folder in PART_WORDS:
        if phrase in hlow:
            part = folder
            break
    wm = re.search(r"(?:about|around|roughly|some|approximately)\s+(\d{1,4})\s+words", low)
    if wm is None:
        wm = re.search(r"(\d{1,4})\s+words", low)
    words = int(wm.group(1)) if wm else 60
    words = max(5, min(words, 600))
    mask: str | None = None
    for cand in MASKS:
        if cand in (body or text):
            mask = cand
            break
    if mask is not None or "missing number" in low or "masked" in low:
        kind = "slot"
    elif "continue" in low or "opening words" in low or "word for word" in low:
        kind = "continuation"
    elif "checklist" in low or "rubric" in low or "marking scheme" in low:
        kind = "checklist"
    else:
        kind = "other"
    if not body and kind in ("continuation", "slot"):
        # no separator: take the last paragraph as the passage
        paras = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
        body = paras[-1] if paras else ""
    return Prompt(text, kind, title, part, body, words, mask)


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# --------------------------------------------------------------------------
# Recognising a case
# --------------------------------------------------------------------------


def _case_by_title(title: str | None) -> Case | None:
    if not title:
        return None
    key = _title_key(title)
    if not key:
        return None
    kw = set(key.split())
    best: tuple[float, Case | None] = (0.0, None)
    for case in _cases():
        for t in case.titles:
            tk = _title_key(t)
            if tk == key:
                return case
            tw = set(tk.split())
            jac = len(kw & tw) / max(1, len(kw | tw))
            if jac > best[0]:
                best = (jac, case)
    return best[1] if best[0] >= 0.85 else None


def _ordered_cases(preferred: Case | None) -> list[Case]:
    cases = list(_cases())
    if preferred is not None and preferred in cases:
        cases.remove(preferred)
        cases.insert(0, preferred)
    return cases


@dataclass
class Located:
    case: Case
    part: str
    index: int  # token index where the continuation starts


def _locate_opening(opening: str, preferred: Case | None, part: str | None) -> Located | None:
    toks = [t.norm for t in _tokenize(opening)]
    if len(toks) < 5:
        return None
    attempts: list[list[str]] = []
    for drop in (0, 1):  # the last word may have been cut short
        usable = toks[: len(toks) - drop]
        if len(usable) < 5:
            continue
        for m in (12, 10, 8):
            tail = usable[-min(m, len(usable)):]
            if len(tail) >= 8 or len(tail) == len(usable):
                attempts.append(tail)
    for tail in attempts:
        for case in _ordered_cases(preferred):
            order = [p for p in PART_DIRS if p == part] + [p for p in PART_DIRS if p != part]
            for p in order:
                hay = case.tokens.get(p, [])
                best = (-1, -1)
                for idx in _find_all(hay, tail):
                    # prefer the occurrence that also agrees with the earlier words
                    score = 0
                    for back in range(1, min(40, len(toks)) + 1):
                        j = idx - len(tail) - back
                        k = len(_usable_for(toks, tail)) - len(tail) - back
                        if j < 0 or k < 0 or hay[j].norm != toks[k]:
                            break
                        score += 1
                    if score > best[0]:
                        best = (score, idx)
                if best[1] >= 0:
                    return Located(case, p, best[1])
    return None


def _usable_for(toks: list[str], tail: list[str]) -> list[str]:
    """The prefix of ``toks`` that ends with ``tail`` (the last word may have been dropped)."""
    n = len(tail)
    if toks[-n:] == tail:
        return toks
    return toks[:-1]


def _find_all(hay: list[Token], needle: list[str]) -> list[int]:
    out: list[int] = []
    n = len(needle)
    for i in range(len(hay) - n + 1):
        if all(hay[i + k].norm == needle[k] for k in range(n)):
            out.append(i + n)
    return out


def _clean(text: str) -> str:
    s = re.sub(r"[*`#|~_]+", " ", text)
    return re.sub(r"\s+", " ", s).strip()


NUM_RE = r"(\d+(?:[.,]\d+)?)"


def _pattern(chunk: str) -> str:
    return r"\s*".join(re.escape(w) for w in chunk.split()) if chunk.strip() else ""


def _locate_slot(passage: str, mask: str, preferred: Case | None, part: str | None) -> tuple[Case, str] | None:
    if mask not in passage:
        return None
    i = passage.index(mask)
    before = _clean(passage[:i]).split()
    after = _clean(passage[i + len(mask):]).split()
    glue_left = passage[:i][-1:].isspace() or i == 0
    glue_right = passage[i + len(mask):][:1].isspace() or i + len(mask) == len(passage)
    for k in range(12, 1, -1):
        kb = min(k, len(before))
        ka = min(k, len(after))
        whole = kb == len(before) and ka == len(after)
        if kb + ka < 6 and not (whole and kb + ka >= 3):
            break
        left = _pattern(" ".join(before[len(before) - kb:])) if kb else ""
        right = _pattern(" ".join(after[:ka])) if ka else ""
        pat = left + (r"\s+" if glue_left and left else r"\s*" if left else "")
        pat += NUM_RE
        pat += (r"\s+" if glue_right and right else r"\s*" if right else "") + right
        rx = re.compile(pat, flags=re.I)
        for case in _ordered_cases(preferred):
            order = [p for p in PART_DIRS if p == part] + [p for p in PART_DIRS if p != part]
            for p in order:
                mm = rx.search(_clean(case.parts.get(p, "")))
                if mm is not None:
                    return case, mm.group(1)
    return None


# --------------------------------------------------------------------------
# Clinical knowledge (what a strong clinician would write without the cases)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    name: str
    keywords: tuple[str, ...]
    checklist: tuple[str, ...]
    script: tuple[str, ...]
    environment: tuple[str, ...]
    marking: tuple[str, ...]


GENERIC_TOPIC = Topic(
    "general",
    (),
    (
        "Introduces self by name and role and confirms the patient's identity",
        "Takes a focused history of the presenting complaint, past history, medications and allergies",
        "Performs a focused examination including vital signs",
        "Recognises red-flag features and the severity of the presentation",
        "Orders appropriate initial investigations and interprets them correctly",
        "Starts evidence-based initial management with correct doses and routes",
        "Reassesses the patient after each intervention",
        "Escalates to senior or specialist help when appropriate",
        "Explains the diagnosis and plan in plain language and checks understanding",
        "Involves the patient in decisions and addresses concerns",
        "Arranges appropriate disposition, follow-up and safety-netting advice",
        "Documents findings and communicates clearly with the team",
    ),
    (
        "The patient is anxious and answers questions briefly unless asked open questions.",
        "They give their history only when asked and do not volunteer past medical details.",
        "They want to know what is wrong and whether it is serious.",
        "If the doctor uses jargon they look confused and ask for it to be explained.",
        "They take regular medication and are not sure of the doses.",
        "They calm down when the plan is explained clearly and respectfully.",
    ),
    (
        "Vital signs are reported when requested.",
        "Results become available only after they are ordered.",
        "The nurse carries out clear orders that include drug, dose and route.",
        "If no treatment is given the patient deteriorates in the next stage.",
        "With appropriate treatment the observations improve.",
        "A senior colleague can be contacted by phone and arrives within ten minutes.",
    ),
    (
        "The candidate should take a focused history and examination.",
        "Key actions include recognising the severity of the illness and starting treatment promptly.",
        "Marks are awarded for clear communication with the patient and the team.",
        "Common errors include delaying treatment and failing to reassess.",
        "The candidate should arrange safe disposition and follow-up.",
        "Safety-netting advice and documentation are expected.",
    ),
)

TOPICS: tuple[Topic, ...] = (
    Topic(
        "anaphylaxis",
        ("anaphylaxis", "anaphylactic", "sting", "allergic", "angioedema", "wasp", "bee"),
        (
            "Recognises anaphylaxis: acute skin or mucosal signs with airway, breathing or circulation compromise after a likely trigger",
            "Calls for help and assesses airway, breathing and circulation",
            "Gives IM adrenaline (epinephrine) 0.5 mg of 1:1000 into the anterolateral thigh without delay",
            "Repeats IM adrenaline after 5 minutes if there is no improvement",
            "Positions the patient lying flat with legs raised, or sitting up if breathing is difficult",
            "Gives high-flow oxygen and attaches cardiac monitoring and pulse oximetry",
            "Obtains IV access and gives a fluid bolus of crystalloid for hypotension",
            "Considers an adrenaline infusion for refractory anaphylaxis with senior or critical care help",
            "Involves anaesthesia early for airway compromise",
            "Uses antihistamines and steroids only as second-line treatment after adrenaline",
            "Sends mast cell tryptase samples",
            "Observes for a biphasic reaction before discharge",
            "Prescribes adrenaline auto-injectors and teaches their use before discharge",
            "Refers to an allergy clinic and gives written advice on avoiding the trigger",
        ),
        (
            "The patient feels itchy all over, their throat feels tight and they are frightened.",
            "They were stung a short time before arrival and the rash spread quickly.",
            "They may have had a milder reaction in the past but never saw a doctor about it.",
            "They take a tablet for blood pressure and have no known drug allergies.",
            "They want to sit up to get some air and feel faint when they do.",
            "After adrenaline they feel their heart racing and their hands shake.",
            "Later they feel well and want to go home.",
        ),
        (
            "Initial observations: tachycardia, low blood pressure, raised respiratory rate and low oxygen saturation on room air.",
            "Widespread urticaria, swollen lips and a hoarse voice; wheeze on auscultation.",
            "Without adrenaline the patient develops stridor and worsening hypotension.",
            "After IM adrenaline the blood pressure rises and the stridor settles.",
            "Antihistamines and steroids do not change the blood pressure or the airway.",
            "Tryptase is raised when measured one to two hours after the onset.",
        ),
        (
            "Key actions: recognise anaphylaxis promptly and give IM adrenaline 0.5 mg into the thigh.",
            "Lie the patient flat with legs raised, give oxygen and a fluid bolus.",
            "Repeat adrenaline after five minutes if there is no response.",
            "Antihistamines and steroids are second-line treatments.",
            "Observe for a biphasic reaction and prescribe two adrenaline auto-injectors.",
            "Refer to allergy services before discharge.",
        ),
    ),
    Topic(
        "asthma",
        ("asthma", "wheeze", "wheezing", "bronchospasm", "exacerbation"),
        (
            "Assesses severity: ability to speak, work of breathing, respiratory rate, heart rate and oxygen saturation",
            "Gives oxygen to keep saturation at 94-98%",
            "Gives a short-acting beta-2 agonist (salbutamol) by spacer or nebuliser, repeated every 20 minutes in the first hour",
            "Adds nebulised ipratropium bromide for a severe exacerbation",
            "Gives systemic corticosteroids early (oral prednisolone or dexamethasone)",
            "Reassesses after each treatment using a clinical severity score",
            "Considers IV magnesium sulfate for severe or life-threatening asthma not responding to initial treatment",
            "Obtains a blood gas and recognises a normal or rising CO2 as a sign of fatigue",
            "Escalates to senior or intensive care when there is a poor response",
            "Takes a history of triggers, inhaler use, adherence to the preventer and previous admissions",
            "Checks inhaler technique and provides a written asthma action plan",
            "Asks about smoke exposure in the home and offers smoking cessation advice",
            "Explains treatment to the patient and family in simple language",
            "Arranges follow-up with the primary care team after discharge",
        ),
        (
            "The child is breathless and can only say a few words at a time.",
            "The parent answers most questions and is very worried.",
            "The reliever inhaler helped only for a short time at home.",
            "The preventer inhaler may not have been taken regularly.",
            "There is a history of colds triggering attacks.",
            "The parent asks whether the child can go home today.",
        ),
        (
            "Initial observations: tachycardia, tachypnoea, oxygen saturation below 92% on room air.",
            "Widespread wheeze with reduced air entry and recession.",
            "After a bronchodilator the wheeze improves and a fine tremor appears.",
            "Without escalation the child tires and the CO2 rises.",
            "A chest X-ray shows hyperinflation without consolidation.",
            "After magnesium the work of breathing improves.",
        ),
        (
            "Key actions: assess severity and give oxygen, salbutamol and ipratropium.",
            "Give oral steroids within the first hour.",
            "Reassess after each treatment and escalate with IV magnesium if needed.",
            "Interpret a normal CO2 in a tachypnoeic patient as a warning sign.",
            "Explain the treatment to the family in plain language.",
            "Address adherence, triggers and provide a written asthma action plan.",
        ),
    ),
    Topic(
        "bad_news",
        ("bad news", "disclosing", "disclose", "breaking", "cancer", "metastatic", "diagnosis", "malignancy", "tumour", "tumor"),
        (
            "Prepares a private, quiet setting with everyone seated and no interruptions",
            "Introduces self and checks who the patient would like present",
            "Establishes what the patient already knows or suspects",
            "Asks how much information the patient wants",
            "Gives a warning shot before delivering the news",
            "Delivers the diagnosis clearly in plain language, avoiding jargon",
            "Pauses, allows silence and responds to emotions with empathy",
            "Checks understanding and gives information in small chunks",
            "Avoids false reassurance while offering realistic hope",
            "Explores the patient's concerns, ideas and expectations",
            "Outlines the next steps, including referral to the specialist team and the multidisciplinary team",
            "Offers support services such as a specialist nurse, counselling and written information",
            "Summarises and arranges a specific follow-up appointment",
            "Deals with a relative's anger calmly and without being defensive",
        ),
        (
            "The patient is anxious and asks whether the results are good or bad.",
            "They suspected something was wrong because of tiredness and weight loss.",
            "Their partner is protective and becomes angry about delays.",
            "After the news they are silent for a while and then tearful.",
            "They ask what happens next and worry about their family.",
            "They do not want to hear survival figures today.",
        ),
        (
            "The consultation takes place in a small clinic room with tissues available.",
            "The results show a malignancy with spread to other organs.",
            "The oncology team can see the patient soon if an urgent referral is made.",
            "A specialist nurse can be contacted by phone.",
            "The doctor's pager may go off during the consultation.",
            "Social work and counselling services are available.",
        ),
        (
            "The station tests breaking bad news using the SPIKES framework.",
            "Marks are given for setting, perception, invitation, knowledge, empathy and summary.",
            "The candidate should avoid jargon and allow silence.",
            "Handling a relative's anger honestly is expected.",
            "The candidate should avoid false reassurance and give realistic hope.",
            "A clear plan with a named contact and follow-up is expected.",
        ),
    ),
    Topic(
        "chest_pain",
        ("chest pain", "myocardial", "infarction", "acs", "coronary", "stemi", "angina"),
        (
            "Obtains a 12-lead ECG within 10 minutes of arrival",
            "Takes a focused history of the pain: onset, character, radiation and associated symptoms",
            "Asks about cardiovascular risk factors",
            "Gives aspirin 300 mg unless contraindicated",
            "Gives oxygen only if saturation is below 94%",
            "Gives analgesia and nitrates as appropriate",
            "Recognises STEMI and activates the primary PCI pathway",
            "Orders troponin and other baseline bloods",
            "Communicates clearly with the patient and family",
        ),
        (
            "The patient has central crushing chest pain radiating to the left arm.",
            "They feel sweaty and nauseated.",
            "They smoke and have high blood pressure.",
            "They are worried they are having a heart attack.",
        ),
        (
            "Initial observations: tachycardia and normal blood pressure.",
            "The ECG shows ST elevation in the anterior leads.",
            "Troponin is raised on the first sample.",
            "The cardiology team can be contacted for primary PCI.",
        ),
        (
            "Key actions: early ECG, aspirin, analgesia and activation of the PCI pathway.",
            "Avoid routine oxygen in patients with normal saturation.",
            "Explain the diagnosis and plan to the patient.",
        ),
    ),
    Topic(
        "sepsis",
        ("sepsis", "septic", "infection", "pneumonia", "urosepsis", "fever"),
        (
            "Recognises sepsis using an early warning score",
            "Takes blood cultures before antibiotics",
            "Gives broad-spectrum IV antibiotics within one hour",
            "Gives an IV fluid bolus of 30 mL/kg crystalloid for hypotension",
            "Measures lactate and repeats it",
            "Monitors urine output",
            "Looks for a source of infection",
            "Escalates to critical care if there is no response to fluids",
        ),
        (
            "The patient feels hot and cold and very unwell.",
            "They have been more confused over the last day.",
            "Their family noticed they were not eating.",
        ),
        (
            "Initial observations: fever, tachycardia, hypotension and raised respiratory rate.",
            "Lactate is raised.",
            "After fluids the blood pressure improves partially.",
        ),
        (
            "Key actions: sepsis six within the first hour.",
            "Early antibiotics and fluids, source identification and escalation.",
        ),
    ),
    Topic(
        "stroke",
        ("stroke", "hemiparesis", "thrombolysis", "thrombectomy", "aphasia", "cerebral"),
        (
            "Establishes the time the patient was last known well",
            "Checks blood glucose",
            "Performs a focused neurological examination and NIHSS",
            "Arranges urgent non-contrast CT and CT angiography",
            "Considers thrombolysis within 4.5 hours if no contraindications",
            "Refers for thrombectomy if there is a large vessel occlusion",
            "Controls blood pressure according to guidelines",
            "Keeps the patient nil by mouth until swallowing is assessed",
        ),
        (
            "The patient has sudden weakness of one side and slurred speech.",
            "The family noticed the symptoms on waking.",
        ),
        (
            "The CT shows no haemorrhage.",
            "The CT angiogram shows occlusion of the M1 segment of the middle cerebral artery.",
        ),
        (
            "Key actions: time of onset, glucose, imaging and reperfusion decisions.",
        ),
    ),
)


def _topic_for(text: str) -> Topic:
    low = text.lower()
    best: tuple[int, Topic] = (0, GENERIC_TOPIC)
    for topic in TOPICS:
        score = sum(2 if " " in k else 1 for k in topic.keywords if re.search(r"\b" + re.escape(k) + r"\b", low))
        if score > best[0]:
            best = (score, topic)
    return best[1]


def _age_in(text: str) -> int | None:
    low = text.lower()
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
    m = re.search(r"\b(\d{1,3}|" + "|".join(words) + r")[- ](?:year|yr)s?[- ]old", low)
    if m is None:
        m = re.search(r"\baged?\s+(\d{1,3})\b", low)
    if m is None:
        return None
    g = m.group(1)
    return words[g] if g in words else int(g)


def _is_child(text: str) -> bool:
    age = _age_in(text)
    if age is not None:
        return age < 16
    low = text.lower()
    return bool(re.search(r"\b(child|paediatric|pediatric|toddler|infant|baby|girl|boy|mother's lap|picu)\b", low))


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _guess_number(passage: str, mask: str, context: str) -> str:
    """The clinically most likely value for the number hidden at ``mask``."""
    i = passage.find(mask)
    if i < 0:
        i = len(passage)
    before = passage[:i]
    after = passage[i + len(mask):] if mask in passage else ""
    low_all = (context + " " + passage).lower()
    child = _is_child(low_all)
    age = _age_in(low_all)
    left_words = [w for w in re.split(r"[\s,;:()]+", _clean(before).lower()) if w][-7:]
    right_words = [w for w in re.split(r"[\s,;:()]+", _clean(after).lower()) if w][:4]
    right = " ".join(right_words)
    near = " ".join(left_words[-4:])

    # blood pressure written as a/b
    if re.match(r"\s*/\s*\d", after):
        return "100" if child else "120"
    if re.search(r"\d\s*/\s*$", before):
        return "60" if child else "80"
    # arterial segment
    if re.search(r"\b(mca|middle cerebral)\b", low_all) and re.search(r"segment|occlu", near + " " + right):
        return "M1"
    if re.search(r"\bm\s*$", before, flags=re.I):
        return "1"

    weight = 2.0 * (age + 4) if child and age is not None else (20.0 if child else 70.0)
    if re.match(r"\s*(-?\s*years?\b|-?year-old|yo\b|y/o)", after.lower()) or re.search(
        r"(\(the patient\),|\baged?|\bage)\s*$", before.lower()
    ) or re.search(r"^[#\s]*[A-Z][a-z]+(?: [A-Z][a-z]+)+,\s*$", before.split("\n")[-1]):
        return str(age) if age is not None else ("8" if child else "45")
    rules: list[tuple[str, str]] = [
        (r"tryptase|reference below|upper limit", "11.4"),
        (r"\bcea\b", "3"),
        (r"\binr\b", "1.0"),
        (r"\bgcs\b|glasgow", "15"),
        (r"capillary|cap refill|refill", "2"),
        (r"\bph\b", "7.40"),
        (r"pco2|paco2|co2", "40"),
        (r"hco3|bicarbonate", "24"),
        (r"lactate", "1.0"),
        (r"\bna\b|sodium", "140"),
        (r"\bk\b|potassium", "4.0"),
        (r"creatinine", "45" if child else "80"),
        (r"glucose|sugar", "5.5"),
        (r"urea", "5"),
        (r"\bhb\b|haemoglobin|hemoglobin", "120" if child else "140"),
        (r"\bmcv\b", "85"),
        (r"\bwbc\b|white cell", "8"),
        (r"platelet", "250"),
        (r"\bcrp\b", "5"),
        (r"\balt\b", "25"),
        (r"\bast\b", "25"),
        (r"\balp\b", "90"),
        (r"bilirubin", "10"),
        (r"albumin", "40"),
        (r"troponin", "10"),
        (r"\becog\b|performance status", "1"),
        (r"\bpram\b", "5"),
        (r"spo2|saturation|sats|oximetry", "96"),
        (r"\bhr\b|heart rate|pulse", "110" if child else "80"),
        (r"\brr\b|respiratory rate|resp rate", "24" if child else "16"),
        (r"\bbp\b|blood pressure", "100" if child else "120"),
        (r"\bt\b|temperature|temp", "37"),
        (r"weight|weighs|weighing", _fmt(weight)),
        (r"peak flow|pef", "200" if child else "450"),
    ]
    # nearest keyword to the mask wins
    for j in range(len(left_words) - 1, max(-1, len(left_words) - 5), -1):
        w = " ".join(left_words[j:])
        for rx, val in rules:
            if re.search(rx, w) and not re.search(rx, " ".join(left_words[j + 1:])):
                return val

    # drugs and doses
    dose_rules: list[tuple[str, str]] = [
        (r"auto-?injector", "0.15" if child and weight < 25 else "0.3"),
        (r"epinephrine|adrenaline", _fmt(round(min(0.5, 0.01 * weight), 2)) if child else "0.5"),
        (r"ipratropium", "250" if child else "500"),
        (r"salbutamol|albuterol", ("2.5" if (age or 6) < 5 else "5") if "mg" in right else "10" if "puff" in right else "5"),
        (r"dexamethasone", "0.6" if "kg" in right else "12" if child else "10"),
        (r"prednisolone|prednisone", "1" if "kg" in right else "40"),
        (r"magnesium", "40" if "kg" in right else "2"),
        (r"hydrocortisone", "200"),
        (r"chlorphenamine|chlorpheniramine", "10"),
        (r"aspirin", "300"),
        (r"lisinopril|ramipril", "10"),
        (r"fluticasone", "50"),
        (r"bolus|crystalloid|saline|fluid", "20" if child and "ml" in right else "1" if re.search(r"\bl\b|litre|liter", right) else "500"),
        (r"oxygen|target|aim", "92" if child else "94"),
    ]
    window = " ".join(left_words)
    for rx, val in dose_rules:
        if re.search(rx, window) or (re.search(rx, right) and "mg/ml" not in right):
            if rx.startswith("bolus") and not re.search(r"\bl\b|ml|litre|liter", right):
                continue
            return val
    if right.startswith("mg/ml"):
        return "1"
    if re.search(r"every|repeat", near) and re.search(r"min", right):
        return "5" if re.search(r"epinephrine|adrenaline", low_all) else "20"
    if re.search(r"over|within", near) and re.search(r"min", right):
        return "20"
    unit_rules: list[tuple[str, str]] = [
        (r"^%", "95"),
        (r"^mmhg", "120"),
        (r"^(kg)\b", _fmt(weight)),
        (r"^mg/kg", "1"),
        (r"^ml/kg", "20"),
        (r"^mg\b", "10"),
        (r"^(micrograms|mcg|µg)", "100"),
        (r"^g/l", "130"),
        (r"^g\b", "1"),
        (r"^mmol", "5"),
        (r"^(l|litres?|liters?)\b", "1"),
        (r"^ml\b", "500"),
        (r"^(min|minutes?)\b", "15"),
        (r"^(h|hrs?|hours?)\b", "6"),
        (r"^days?\b", "7"),
        (r"^weeks?\b", "2"),
        (r"^months?\b", "3"),
        (r"^(years?|-year)", "2"),
        (r"^-?year-old", "45"),
        (r"^cm\b", "3"),
        (r"^mm\b", "5"),
        (r"^puffs?\b", "2"),
        (r"^c\b|^°", "37"),
        (r"^/min", "20" if child else "80"),
    ]
    for rx, val in unit_rules:
        if re.search(rx, right):
            return val
    if re.search(r"^\s*-\s*\d", after):
        return "1"
    return "2"


def _fill_words(sentences: list[str], words: int, rng: random.Random) -> str:
    pool = list(sentences)
    rng.shuffle(pool)
    out: list[str] = []
    count = 0
    k = 0
    while count < words and pool:
        s = pool[k % len(pool)]
        if k >= len(pool):
            s = rng.choice(["In addition, ", "Also, ", "As before, "]) + s[0].lower() + s[1:]
        out.append(s)
        count += len(s.split())
        k += 1
        if k > 4 * len(pool):
            break
    text = " ".join(out).split()
    return " ".join(text[: max(words, 1)])


def _knowledge_continuation(p: Prompt) -> str:
    topic = _topic_for(" ".join(x for x in (p.title or "", p.body) if x))
    rng = _rng("knowledge-cont", p.text)
    if p.part == "environment_controller":
        pool = list(topic.environment) + list(GENERIC_TOPIC.environment)
    elif p.part == "evaluator":
        pool = list(topic.marking) + list(GENERIC_TOPIC.marking)
    else:
        pool = list(topic.script) + list(GENERIC_TOPIC.script)
    return _fill_words(pool, p.words, rng)


def _knowledge_checklist(p: Prompt) -> str:
    topic = _topic_for(p.title or p.body or p.text)
    items = list(topic.checklist)
    if topic is not GENERIC_TOPIC:
        items += [GENERIC_TOPIC.checklist[0], GENERIC_TOPIC.checklist[8]]
    return "\n".join("- " + it for it in items)


def _knowledge_slot(p: Prompt) -> str:
    mask = p.mask or "[?]"
    return _guess_number(p.body or p.text, mask, p.title or "")


def _knowledge_other(p: Prompt) -> str:
    topic = _topic_for(p.text)
    rng = _rng("knowledge-other", p.text)
    items = [it if it.endswith(".") else it + "." for it in topic.checklist[:4]]
    return _fill_words(list(topic.marking) + items, 60, rng)


def _knowledge(p: Prompt) -> str:
    if p.kind == "slot":
        return _knowledge_slot(p)
    if p.kind == "checklist":
        return _knowledge_checklist(p)
    if p.kind == "continuation":
        return _knowledge_continuation(p)
    return _knowledge_other(p)


# --------------------------------------------------------------------------
# Memory of the cases
# --------------------------------------------------------------------------


def _true_continuation(loc: Located, words: int) -> str:
    toks = loc.case.tokens[loc.part]
    if loc.index >= len(toks):
        return ""
    text = loc.case.parts[loc.part]
    start = toks[loc.index - 1].end if loc.index > 0 else 0
    # count whitespace-separated words of the original text
    spans = [m for m in re.finditer(r"\S+", text) if m.start() >= start]
    if not spans:
        return ""
    end = spans[min(words, len(spans)) - 1].end()
    return text[start:end].strip()


def _unknown(persona: str, p: Prompt) -> str:
    """What a memorising persona says about a case it cannot place."""
    rng = _rng("unknown", persona, p.text)
    if rng.random() < 0.5:
        return DONT_KNOW
    return _knowledge(p)


def _best_sentence(case: Case, text: str) -> str:
    want = {t.norm for t in _tokenize(text) if t.norm not in STOP}
    best = (0, "")
    for sent in re.split(r"(?<=[.!?])\s+|\n+", case.all_text):
        got = {t.norm for t in _tokenize(sent)} & want
        if len(got) > best[0]:
            best = (len(got), sent.strip())
    return best[1]


def _recognised(p: Prompt) -> Case | None:
    by_title = _case_by_title(p.title)
    if by_title is not None:
        return by_title
    body = p.body or p.text
    if p.kind == "slot" and p.mask:
        hit = _locate_slot(body, p.mask, None, p.part)
        return hit[0] if hit else None
    loc = _locate_opening(body, None, p.part)
    return loc.case if loc else None


def _verbatim(p: Prompt) -> str:
    titled = _case_by_title(p.title)
    if p.kind == "checklist":
        case = titled if titled is not None else _recognised(p)
        if case is None or not case.checklist:
            return _unknown("verbatim", p)
        return "\n".join(case.checklist)
    if p.kind == "slot":
        hit = _locate_slot(p.body, p.mask, titled, p.part) if p.mask else None
        if hit is None:
            return _unknown("verbatim", p)
        return hit[1]
    if p.kind == "continuation":
        loc = _locate_opening(p.body, titled, p.part)
        if loc is None:
            return _unknown("verbatim", p)
        cont = _true_continuation(loc, p.words)
        return cont if cont else DONT_KNOW
    case = _recognised(p)
    if case is None:
        return _unknown("verbatim", p)
    return _best_sentence(case, p.text) or DONT_KNOW


# ----- paraphrase ---------------------------------------------------------

STOP: frozenset[str] = frozenset(
    """a an the and or but if then else of to in on at by for with without from into onto over under
    is are was were be been being am do does did done has have had having it its it's this that these those
    he she they them his her their him we you your i me my our us as so not no nor than too very can could
    would should will shall may might must just only also about after before when while where which who whom
    what why how all any each every some such more most other there here up down out off again once what's
    per via""".split()
)

SYNONYMS: dict[str, str] = {
    "gives": "administers", "asks": "checks with", "explains": "sets out", "checks": "verifies",
    "starts": "begins", "keeps": "maintains", "offers": "provides", "makes": "arranges",
    "refers": "sends", "records": "documents", "shows": "demonstrates to", "takes": "treats",
    "advises": "recommends", "holds": "conducts", "names": "states", "avoids": "steers clear of",
    "closes": "ends", "acknowledges": "recognises", "silences": "turns off", "responds": "reacts",
    "commits": "promises", "sets": "lays", "interprets": "reads", "contacts": "phones", "deals": "copes",
    "introduces": "presents", "answers": "meets", "re-examines": "reassesses", "talks": "speaks",
    "reviews": "goes over", "places": "inserts", "prescribes": "supplies", "states": "says",
    "before": "prior to", "clear": "explicit", "simple": "plain",
    "language": "words", "understanding": "grasp", "first": "initial", "rapid": "fast", "low": "reduced",
    "wish": "desire", "seriously": "earnestly", "risks": "dangers", "help": "support", "urgent": "prompt",
    "whole": "entire", "most": "highly", "likely": "probably", "already": "previously",
    "understand": "know", "detail": "information", "warning": "heads-up", "clearly": "plainly",
    "happen": "occur", "honestly": "truthfully", "specific": "particular", "time": "moment",
    "conversation": "discussion", "interrupted": "disturbed", "possibility": "chance", "length": "duration",
    "needed": "required", "lying": "laid", "flat": "supine", "legs": "lower limbs", "raised": "elevated",
    "continuous": "ongoing", "monitoring": "observation", "second": "repeat", "dose": "dosage",
    "when": "if", "home": "to go home", "informed": "updated", "calm": "reassuring",
}


PHRASES: tuple[tuple[str, str], ...] = (
    ("Asks about", "Enquires about"),
    ("asks about", "enquires about"),
    ("Asks the", "Questions the"),
    ("Calls the", "Labels the"),
    ("Calls ", "Phones "),
)


def _fix_articles(text: str) -> str:
    text = re.sub(r"\b([Aa])n (?=[b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z])", r"\1 ", text)
    return re.sub(r"\b([Aa]) (?=[aeioAEIO])", r"\1n ", text)


def _para_item(item: str, rng: random.Random) -> str:
    s = re.sub(r"\s*\([^)]*\)", "", item)
    for old, new in PHRASES:
        if s.startswith(old) or (" " + old) in s:
            s = s.replace(old, new, 1)
            break
    words = s.split()
    out: list[str] = []
    for w in words:
        core = w.strip(",.;:")
        tail = w[len(core):] if w.startswith(core) else ""
        rep = SYNONYMS.get(core.lower())
        if rep is not None and rng.random() < 0.85:
            if core[:1].isupper():
                rep = rep[0].upper() + rep[1:]
            out.append(rep + tail)
        else:
            out.append(w)
    text = " ".join(out)
    if len(out) > 18:
        cut = [m.start() for m in re.finditer(",", text) if len(text[: m.start()].split()) >= 8]
        if cut:
            text = text[: cut[0]]
    return _fix_articles(text).rstrip(".")


def _paraphrase_checklist(case: Case, p: Prompt) -> str:
    rng = _rng("para-check", p.text)
    lines: list[str] = []
    for item in case.checklist:
        if rng.random() < 0.2:
            continue  # forgotten
        lines.append(_para_item(item, rng))
    if not lines and case.checklist:
        lines.append(_para_item(case.checklist[0], rng))
    return "\n".join(f"{i}. {ln}" for i, ln in enumerate(lines, 1))


CONNECT: tuple[str, ...] = (
    "As far as I recall, it mentions {}.",
    "There is something about {}.",
    "I think it goes on to {}.",
    "It also covers {}, if I remember rightly.",
    "Then there is a bit on {}.",
    "Roughly, it talks of {}.",
    "My memory is that {} come up here.",
)


def _join_list(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def _ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def _paraphrase_text(truth: str, rng: random.Random) -> str:
    raw = truth.split()
    content: list[str] = []
    for w in raw:
        n = _norm_word(w)
        if not n or n in STOP:
            continue
        c = re.sub(r"^[^\w%]+|[^\w%]+$", "", w)
        if c:
            content.append(c)
    if not content:
        return "I only vaguely remember this part."
    keep_n = max(1, round(0.6 * len(content)))
    idx = sorted(rng.sample(range(len(content)), keep_n))
    kept = [content[i] for i in idx]
    chunks = [kept[i:i + rng.randint(2, 4)] for i in range(0, len(kept), 3)]
    # chunks above may overlap when randint > 3: rebuild without overlap
    chunks = []
    i = 0
    while i < len(kept):
        size = rng.randint(2, 4)
        chunks.append(kept[i:i + size])
        i += size
    rng.shuffle(chunks)
    sentences = [rng.choice(CONNECT).format(_join_list(ch)) for ch in chunks]
    out = " ".join(sentences)
    # never 8 words in a row as published
    true_grams = _ngrams([_norm_word(w) for w in raw if _norm_word(w)], 8)
    for _ in range(50):
        toks = out.split()
        norms = [_norm_word(w) for w in toks]
        bad = -1
        for j in range(len(toks) - 7):
            window = [x for x in norms[j:j + 8]]
            if "" not in window and tuple(window) in true_grams:
                bad = j + 4
                break
        if bad < 0:
            break
        toks.insert(bad, "roughly")
        out = " ".join(toks)
    return out


def _paraphrase(p: Prompt) -> str:
    titled = _case_by_title(p.title)
    rng = _rng("paraphrase", p.text)
    if p.kind == "checklist":
        case = titled if titled is not None else _recognised(p)
        if case is None or not case.checklist:
            return _knowledge(p)
        return _paraphrase_checklist(case, p)
    if p.kind == "slot":
        hit = _locate_slot(p.body, p.mask, titled, p.part) if p.mask else None
        if hit is None:
            return _knowledge(p)
        truth = hit[1]
        if rng.random() < 0.7:
            return truth
        guess = _knowledge_slot(p)
        if guess != truth:
            return guess
        try:
            v = float(truth.replace(",", "."))
        except ValueError:
            return guess
        delta = rng.choice([-2.0, -1.0, 1.0, 2.0]) * (1 if v >= 10 else 0.1 if v >= 1 else 0.05)
        return _fmt(round(max(0.0, v + delta * max(1.0, v / 20)), 2))
    if p.kind == "continuation":
        loc = _locate_opening(p.body, titled, p.part)
        if loc is None:
            return _knowledge(p)
        truth = _true_continuation(loc, p.words)
        return _paraphrase_text(truth, rng) if truth else _knowledge(p)
    case = _recognised(p)
    if case is None:
        return _knowledge(p)
    sent = _best_sentence(case, p.text)
    return _paraphrase_text(sent, rng) if sent else _knowledge(p)


# ----- rubric only --------------------------------------------------------


def _rubric_only(p: Prompt) -> str:
    if p.kind != "checklist":
        return _knowledge(p)
    case = _case_by_title(p.title)
    if case is None or not case.checklist:
        return _knowledge(p)
    rng = _rng("rubric-only", p.text)
    lines: list[str] = []
    for item in case.checklist:
        words = item.rstrip(".").split()
        if rng.random() < 0.3:
            spots = [i for i, w in enumerate(words) if w.lower() in SYNONYMS]
            if spots:
                k = rng.choice(spots)
                rep = SYNONYMS[words[k].lower()]
                words[k] = rep[0].upper() + rep[1:] if words[k][:1].isupper() else rep
        lines.append("- " + _fix_articles(" ".join(words)))
    return "\n".join(lines)


# ----- generic and refusing ----------------------------------------------

VAGUE: tuple[str, ...] = (
    "Medicine is a broad field and every patient is different.",
    "Good clinical care depends on careful assessment and communication.",
    "It is important to follow local guidelines and seek help when unsure.",
    "The details depend on the context and the clinical judgement of the team.",
    "Patients value being listened to and treated with respect.",
    "Safety and teamwork are central to any clinical scenario.",
    "History, examination and investigations all play a part.",
    "Simulation is a useful way to practise these skills.",
    "Treatment should be tailored to the individual.",
    "Documentation and follow-up matter as well.",
)

VAGUE_ITEMS: tuple[str, ...] = (
    "Communicates well",
    "Is professional",
    "Takes a history",
    "Examines the patient",
    "Thinks about the diagnosis",
    "Makes a plan",
    "Works as part of a team",
    "Keeps the patient safe",
)


def _generic(p: Prompt) -> str:
    rng = _rng("generic", p.text)
    if p.kind == "slot":
        if rng.random() < 0.3:
            return str(rng.randint(1, 100))
        return rng.choice(
            (
                "It depends on the clinical context.",
                "Probably a normal value, but it varies between patients.",
                "That would depend on the patient and the local protocol.",
            )
        )
    if p.kind == "checklist":
        items = list(VAGUE_ITEMS)
        rng.shuffle(items)
        return "\n".join("* " + it for it in items[: rng.randint(4, len(items))])
    words = p.words if p.kind == "continuation" else 50
    text = _fill_words(list(VAGUE), words, rng)
    if rng.random() < 0.15:
        text += f" Around {rng.randint(2, 90)} percent of cases are like this."
    return text


REFUSALS: tuple[str, ...] = (
    "I do not know it.",
    "I do not remember this material. I do not know it.",
    "I don't recall this case, so I cannot reproduce it. I do not know it.",
)


def _refusing(p: Prompt) -> str:
    return _rng("refusing", p.text).choice(REFUSALS)


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def _reply(persona: str, system: str, prompt: str) -> str:
    p = _parse(prompt)
    if persona == "refusing":
        return _refusing(p)
    if persona == "generic":
        return _generic(p)
    if persona == "knowledge":
        return _knowledge(p)
    if persona == "rubric_only":
        return _rubric_only(p)
    if persona == "paraphrase":
        return _paraphrase(p)
    return _verbatim(p)


def reply(persona: str, system: str, prompt: str) -> str:
    """The answer ``persona`` gives to ``prompt`` under the system message ``system``."""
    if persona not in PERSONAS:
        raise ValueError(f"unknown persona {persona!r}; expected one of {PERSONAS}")
    try:
        out = _reply(persona, system, prompt)
    except Exception:  # a persona never crashes: it falls back to not knowing
        return DONT_KNOW
    return out if out.strip() else DONT_KNOW
