"""The case format: file and folder names, the facts of ``case.yaml``, and how a case maps to
the published layout (role folders, ``metadata.json`` fields, the rubric file)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from inspect_medsp.data import Role

CASE_FILE = "case.yaml"
RUBRIC_FILE = "rubric.yaml"
SCENARIO = "scenario1"
"""A case's first scenario, the one its own packets and rubric make: ``<id>/scenario1``."""
MORE_SCENARIOS = re.compile(r"^scenario([2-9]|[1-9][0-9]+)$")
"""A folder of a further scenario of the case (``scenario2/`` ...), holding its own packet
folders and rubric; the case's facts are shared."""

PACKETS: dict[str, Role] = {
    "examinee": "examinee",
    "patient": "sp_actor",
    "environment": "environment_controller",
    "evaluator": "evaluator",
}
"""Packet folder of the case format -> role folder of the published layout, in reading order."""

PACKET_ROLES: dict[str, str] = {
    "examinee": "the clinician's door note and resources",
    "patient": "the patient's script",
    "environment": "the environment's stages and results",
    "evaluator": "the evaluator's marking guide",
}
"""What each packet folder holds, in words for messages."""

PACKET_SUFFIXES = (".md", ".txt")
"""File endings read as packet text (others are reported by ``check``)."""

Status = Literal["draft", "reviewed"]

CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def strip_comments(text: str) -> str:
    """Remove ``<!-- ... -->`` notes: the author's comments, never shown to any role."""
    return _COMMENT.sub("", text)


def blank_comments(text: str) -> str:
    """``text`` without its ``<!-- ... -->`` notes, each other line where it was (so a line
    number found in it is the line an editor shows)."""
    return _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _as_text(value: object) -> object:
    """YAML reads ``age: 42`` as a number; an age is kept as the author wrote it."""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


Text = Annotated[
    str, BeforeValidator(_as_text), StringConstraints(strip_whitespace=True, min_length=1)
]


class PatientFacts(BaseModel):
    """Who the patient is, as the case file says it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    age: Text
    sex: Text


class CaseFacts(BaseModel):
    """``case.yaml``: the facts of one case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, StringConstraints(pattern=CASE_ID.pattern)]
    title: Text
    specialty: Text
    patient: PatientFacts
    setting: Text
    language: Text
    status: Status
    source: str | None = Field(default=None)
    """Where the case comes from (optional, free text)."""
    names: list[Text] = Field(default_factory=list)
    """The names the case invents for its people (patient, relatives, staff): ``check``
    flags every other name it finds. Read by ``check`` only: ``case.yaml`` reaches no model."""

    def metadata(self) -> dict[str, str]:
        """The sample metadata of the case, with the published layout's field names."""
        meta = {
            "title": self.title,
            "scenario_title": self.title,
            "specialty": self.specialty,
            "department": self.setting,
            "setting": self.setting,
            "patient_age": self.patient.age,
            "patient_gender": self.patient.sex,
            "language": self.language,
            "case_status": self.status,
        }
        if self.source:
            meta["source"] = self.source
        return meta


FIELDS = (
    "id",
    "title",
    "specialty",
    "patient",
    "setting",
    "language",
    "status",
    "source",
    "names",
)
"""The fields of ``case.yaml``, in the order a template writes them."""
