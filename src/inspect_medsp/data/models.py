"""Typed records for what the benchmark ships: scenarios and their frozen rubrics."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Competency = Literal["PC", "MK", "SBP", "ICS", "PBLI", "PROF"]

COMPETENCIES: tuple[Competency, ...] = ("PC", "MK", "SBP", "ICS", "PBLI", "PROF")
"""The six ACGME core competencies, in the order the rubric files list them."""

COMPETENCY_NAMES: dict[Competency, str] = {
    "PC": "Patient Care",
    "MK": "Medical Knowledge",
    "SBP": "Systems-Based Practice",
    "ICS": "Interpersonal and Communication Skills",
    "PBLI": "Practice-Based Learning and Improvement",
    "PROF": "Professionalism",
}

Role = Literal["examinee", "sp_actor", "environment_controller", "evaluator"]
ROLES: tuple[Role, ...] = ("examinee", "sp_actor", "environment_controller", "evaluator")
"""The four role folders every scenario has, each a private packet."""


class Packets(BaseModel):
    """The four private text packets of one scenario (strike-through already removed)."""

    model_config = ConfigDict(frozen=True)

    examinee: str
    sp_actor: str
    environment_controller: str
    evaluator: str


class Scenario(BaseModel):
    """One executable scenario: ids, its four packets and any metadata it carries."""

    model_config = ConfigDict(frozen=True)

    case_id: str
    scenario: str
    packets: Packets
    metadata: dict[str, str] = Field(default_factory=dict)

    @property
    def id(self) -> str:
        """The sample id, ``<case_id>/<scenarioN>``."""
        return f"{self.case_id}/{self.scenario}"


class RubricItem(BaseModel):
    """One checklist item, numbered within its rubric from 1."""

    model_config = ConfigDict(frozen=True)

    number: int
    competency: Competency
    text: str


class Rubric(BaseModel):
    """A frozen rubric in the reference repository's schema."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    case_id: str
    scenario: str
    scenario_dir: str = ""
    rubric_version: str = "v1"
    PC: list[str]
    MK: list[str]
    SBP: list[str]
    ICS: list[str]
    PBLI: list[str]
    PROF: list[str]

    @property
    def id(self) -> str:
        """The scenario id this rubric marks, ``<case_id>/<scenarioN>``."""
        return f"{self.case_id}/{self.scenario}"

    def by_competency(self) -> dict[Competency, list[str]]:
        """Items of each competency, in file order (empty lists included)."""
        return {c: list(getattr(self, c)) for c in COMPETENCIES}

    def items(self) -> list[RubricItem]:
        """All items, numbered 1..N across competencies in the canonical order."""
        out: list[RubricItem] = []
        for competency, texts in self.by_competency().items():
            for text in texts:
                out.append(RubricItem(number=len(out) + 1, competency=competency, text=text))
        return out

    @property
    def n_items(self) -> int:
        """Total number of items over all competencies."""
        return sum(len(v) for v in self.by_competency().values())


class Substitution(BaseModel):
    """One replacement a cue variant made in one role's packet: how often it was made."""

    model_config = ConfigDict(frozen=True)

    role: Role
    old: str
    new: str
    count: int


class VariantPlay(BaseModel):
    """How one sample's case is played differently from the case as published (a patient
    variant, ``-T variants=``): the patient's extra instructions, and for a cue variant every
    substitution made in the packets. The rubric is never changed."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: Literal["persona", "voice", "cue"]
    changes: str
    """What the variant changes, in one line."""
    patient: str = ""
    """Instructions added to the patient's script (empty for a cue variant)."""
    substitutions: list[Substitution] = Field(default_factory=list)
    """Every replacement made in each role's packet (a cue variant only)."""


BASELINE = "baseline"
"""The name of the case as published among the variants of a run."""

VARIANT_MARK = "@"
"""Separates a variant's name from the scenario id in its sample id."""


def variant_of_id(sample_id: str) -> str:
    """The variant a sample id names (:data:`BASELINE` when it names none)."""
    _, mark, name = sample_id.partition(VARIANT_MARK)
    return name if mark else BASELINE


class SampleRecord(BaseModel):
    """What one Inspect sample carries in its metadata under the key ``medsp``.

    The packets and the rubric travel with the sample so that the encounter and the scorer
    (including re-scoring a saved log) need nothing else; no model ever receives this record
    whole: each role gets only its own packet.
    """

    model_config = ConfigDict(frozen=True)

    scenario: Scenario
    rubric: Rubric
    data_revision: str | None = None
    rubric_revision: str | None = None
    variant: VariantPlay | None = None
    """How this sample plays the case differently (None: the case as published)."""

    @property
    def id(self) -> str:
        """The scenario id, ``<case_id>/<scenarioN>``."""
        return self.scenario.id

    @property
    def variant_name(self) -> str:
        """The variant played: :data:`BASELINE` for the case as published."""
        return BASELINE if self.variant is None else self.variant.name

    @property
    def sample_id(self) -> str:
        """The sample id: the scenario id, and ``@<variant>`` for any variant but the
        baseline (so a baseline sample pairs with a run made without variants)."""
        return self.id if self.variant is None else f"{self.id}{VARIANT_MARK}{self.variant.name}"
