"""``medsp-cases draft``: a whole case drafted from a de-identified vignette by a model.

The model replies with one JSON object (:class:`DraftedCase`); the draft is written in the case
format with ``status: draft``, checked, and returned with what a clinician must review.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from inspect_medsp.calls import Contract, generate_json
from inspect_medsp.cases.check import SetCheck, check_set
from inspect_medsp.cases.layout import CASE_ID, CaseFacts
from inspect_medsp.cases.privacy import text_findings
from inspect_medsp.cases.write import refuse_existing, write_case
from inspect_medsp.data import COMPETENCIES, COMPETENCY_NAMES, Competency
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.preflight import SERVE_HERE, away, away_line, place, plain_line
from inspect_medsp.templates import render

PACKAGE = "inspect_medsp.cases"
FIRST_STAGE = "initial_assessment"
"""The label the environment controller gives the first stage."""
DRAFT_TEMPERATURE = 0.2


class Stage(BaseModel):
    """One stage of the environment's materials."""

    model_config = ConfigDict(extra="ignore")

    label: str
    happens: str = ""
    """What happens by itself on entering the stage."""
    findings: str = ""
    """Vital signs and examination findings in the stage."""
    responses: str = ""
    """How the patient responds within the stage to treatment once ordered (and without it)."""


class Result(BaseModel):
    """What one action or test returns, reported only when ordered."""

    model_config = ConfigDict(extra="ignore")

    action: str
    result: str


class Resource(BaseModel):
    """A resource the clinician reads from the start."""

    model_config = ConfigDict(extra="ignore")

    title: str
    text: str


class DraftedCase(BaseModel):
    """The model's draft of a case."""

    model_config = ConfigDict(extra="ignore")

    title: str
    specialty: str
    patient_age: str
    patient_sex: str
    setting: str
    language: str = "en"
    door_note: str
    instructions: str
    resources: list[Resource] = Field(default_factory=list)
    patient_name: str
    names: list[str] = Field(default_factory=list)
    """Every name the draft invents (the patient's, relatives', staff's), declared in
    ``case.yaml`` so ``check`` flags any other."""
    patient_profile: str
    volunteers: list[str]
    only_when_asked: list[str]
    cues: list[str] = Field(default_factory=list)
    stages: list[Stage]
    results: list[Result]
    staff: list[str] = Field(default_factory=list)
    marking_guide: str
    rubric: dict[Competency, list[str]]
    review: list[str] = Field(default_factory=list)
    """What the drafter itself asks the clinician to confirm (facts it had to add)."""


SHAPE = json.dumps(
    {
        "title": "<one line>",
        "specialty": "<specialty>",
        "patient_age": "<age in years, or e.g. 8 months>",
        "patient_sex": "<female|male|...>",
        "setting": "<where the encounter happens>",
        "language": "en",
        "door_note": "<markdown: setting, patient, reason for visit, triage observations>",
        "instructions": "<markdown: the clinician's task and how the encounter runs>",
        "resources": [{"title": "<title>", "text": "<markdown>"}],
        "patient_name": "<invented name>",
        "names": ["<every name you invented: the patient, relatives, staff>"],
        "patient_profile": "<who they are and how they talk>",
        "volunteers": ["<said of their own accord>"],
        "only_when_asked": ["<fact revealed only when asked>"],
        "cues": ["<how they react at a point of the encounter>"],
        "stages": [
            {
                "label": FIRST_STAGE,
                "happens": "<on entering>",
                "findings": "<vital signs, examination>",
                "responses": "<responses to treatment once ordered; course without it>",
            }
        ],
        "results": [{"action": "<test or action>", "result": "<what it returns>"}],
        "staff": ["<name (role): what they do>"],
        "marking_guide": "<markdown: key actions, common errors>",
        "rubric": {c: ["<observable action>"] for c in COMPETENCIES},
        "review": ["<a fact you added that the vignette does not give>"],
    },
    indent=1,
)

AUTHOR: Contract[DraftedCase] = Contract(
    role="author",
    model=DraftedCase,
    required_any=("door_note", "stages", "rubric"),
    shape=SHAPE,
    degrade=lambda raw: DraftedCase.model_construct(),
)


def draft_messages(vignette: str) -> list[ChatMessage]:
    """The drafting conversation: the conventions, then the vignette."""
    return [
        ChatMessageSystem(content=render("draft_system", PACKAGE, shape=SHAPE)),
        ChatMessageUser(content=render("draft_request", PACKAGE, vignette=vignette.strip())),
    ]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_")[:40] or "resource"


def _bullets(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def case_files(draft: DraftedCase) -> dict[str, list[tuple[str, str]]]:
    """The packet files of a draft, in the case format's layout and conventions."""
    examinee = [
        ("01_door_note.md", f"# Door note\n\n{draft.door_note.strip()}"),
        ("02_instructions.md", f"# Your task\n\n{draft.instructions.strip()}"),
    ]
    for n, resource in enumerate(draft.resources, start=3):
        examinee.append(
            (f"{n:02d}_{_slug(resource.title)}.md", f"# {resource.title}\n\n{resource.text}")
        )
    patient = [
        f"# {draft.patient_name}, {draft.patient_age}",
        draft.patient_profile.strip(),
        "## What they say of their own accord",
        _bullets(draft.volunteers),
        "## Only when asked",
        _bullets(draft.only_when_asked),
    ]
    if draft.cues:
        patient += ["## Cues", _bullets(draft.cues)]
    table = ["| index | label | moves on when |", "|---|---|---|"]
    sections: list[str] = []
    for i, stage in enumerate(draft.stages):
        last = i == len(draft.stages) - 1
        moves = "last stage: the case ends when the clinician ends it" if last else (
            "the clinician ends the stage"
        )
        table.append(f"| {i} | {stage.label} | {moves} |")
        parts = [f"## {i} {stage.label}"]
        parts += [f"Happens by itself: {stage.happens}"] if stage.happens else []
        parts += [stage.findings] if stage.findings else []
        parts += [f"Responses, once ordered: {stage.responses}"] if stage.responses else []
        sections.append("\n".join(parts))
    stages = "# Stages (in order)\n\n" + "\n".join(table) + "\n\n" + "\n\n".join(sections)
    results = "# Results (report only when ordered)\n\n" + _bullets(
        [f"**{r.action}:** {r.result}" for r in draft.results]
    )
    if draft.staff:
        results += "\n\n# Staff and services\n\n" + _bullets(draft.staff)
    return {
        "examinee": examinee,
        "patient": [("01_patient.md", "\n\n".join(patient))],
        "environment": [("01_stages.md", stages), ("02_results.md", results)],
        "evaluator": [("marking_guide.md", f"# Marking guide\n\n{draft.marking_guide.strip()}")],
    }


def conventions(draft: DraftedCase) -> tuple[DraftedCase, list[str]]:
    """The draft held to MedSP's conventions where it strayed, with a review point for each."""
    notes: list[str] = []
    if draft.stages and draft.stages[0].label != FIRST_STAGE:
        notes.append(
            f"The first stage was labelled '{draft.stages[0].label}' and is now "
            f"'{FIRST_STAGE}': check the stage still reads right."
        )
        first = draft.stages[0].model_copy(update={"label": FIRST_STAGE})
        draft = draft.model_copy(update={"stages": [first, *draft.stages[1:]]})
    empty = [c for c in COMPETENCIES if not draft.rubric.get(c)]
    if empty:
        named = ", ".join(f"{c} ({COMPETENCY_NAMES[c]})" for c in empty)
        notes.append(f"The rubric has no items under {named}: add one where the case allows.")
    return draft, notes


def review_points(draft_notes: list[str], model_points: list[str]) -> list[str]:
    """What a clinician must review: the fixed points, then the drafter's own."""
    fixed = files(PACKAGE).joinpath("prompts", "draft_review.md").read_text(encoding="utf-8")
    points = [line.strip() for line in fixed.splitlines() if line.strip()]
    return [*draft_notes, *(f"From the drafter: {p}" for p in model_points), *points]


class Drafted(BaseModel):
    """A drafted case as written: its folder, its check and what to review."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    folder: Path
    check: SetCheck
    review: list[str]


async def draft_case(vignette: str, model: str, out: Path, source: str) -> Drafted:
    """Draft a case from ``vignette`` with ``model`` and write it to ``out``.

    Args:
        vignette: The de-identified clinical vignette.
        model: The model to draft with (``provider/model``).
        out: The case folder to write (its name becomes the case's id).
        source: Where the vignette came from, for ``case.yaml``.

    Raises:
        MedSPDataError: ``out`` is taken or not a usable id, the provider failed (one line
            naming its error), or the model gave no usable case.
    """
    if not CASE_ID.match(out.name):
        raise MedSPDataError(
            f"--out {out}: the folder name '{out.name}' becomes the case's id and may hold "
            "only letters, digits, '_', '-' or '.'; choose another name"
        )
    refuse_existing(out)
    if not vignette.strip():
        raise MedSPDataError(f"{source}: the vignette is empty; write the case's story in it")
    try:
        result = await generate_json(
            get_model(model),  # inspect-evals-lint: ignore[IEBP001] -- a command, not an eval
            draft_messages(vignette),
            AUTHOR,
            GenerateConfig(temperature=DRAFT_TEMPERATURE),
        )
    except Exception as err:  # the provider's error: one line naming it, no traceback
        reason = plain_line(getattr(err, "message", None) or err) or type(err).__name__
        raise MedSPDataError(
            f"--model {model}: the provider failed ({type(err).__name__}: {reason}); "
            "nothing was written: check the model's name, key and endpoint, then draft again"
        ) from None
    if result.degraded:
        why = "; ".join(result.errors[-1:]) or "no usable reply"
        raise MedSPDataError(
            f"{model} gave no usable case after {result.attempts} attempts ({why}); try "
            "again, or another model"
        )
    draft, notes = conventions(result.reply)
    facts = _facts(draft, out.name, f"drafted by {model} from {source}")
    write_case(out, facts, case_files(draft), draft.rubric)
    return Drafted(folder=out, check=check_set(out), review=review_points(notes, draft.review))


def vignette_refusal(text: str, where: str, model: str) -> str | None:
    """The one line refusing to send a vignette with likely identifiers to ``model`` when
    it connects off this machine (or cannot be placed); None otherwise."""
    findings = text_findings(text, where)
    if not findings:
        return None
    placed = [place("drafter", model)]
    if not away(placed):
        return None
    n = len(findings)
    return (
        f"{where}: {n} likely identifier{'' if n == 1 else 's'} in the vignette (first: "
        f"{findings[0]}), and it would go off this machine to {away_line(placed)}: remove "
        f"them (the vignette must be de-identified), {SERVE_HERE}, or pass --identifiers "
        "allow to send it as it is"
    )


def _facts(draft: DraftedCase, case_id: str, source: str) -> CaseFacts:
    """The draft's facts with ``status: draft``.

    Raises:
        MedSPDataError: The draft left a fact empty.
    """
    try:
        return CaseFacts.model_validate(
            {
                "id": case_id,
                "title": draft.title,
                "specialty": draft.specialty,
                "patient": {"age": draft.patient_age, "sex": draft.patient_sex},
                "setting": draft.setting,
                "language": draft.language or "en",
                "status": "draft",
                "source": source,
                "names": list(dict.fromkeys([draft.patient_name, *draft.names])),
            }
        )
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise MedSPDataError(
            f"the drafted case's fact '{where}' is not usable ({first['msg'].lower()}); "
            "draft again, or write that fact into the vignette"
        ) from None
