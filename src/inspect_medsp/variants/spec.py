"""A patient variant file: one small YAML file (the shipped library's and a user's own are
the same format), read into a checked :class:`VariantSpec` or refused with one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from inspect_medsp.errors import MedSPParameterError

Kind = Literal["persona", "voice", "cue"]
KINDS: tuple[Kind, ...] = ("persona", "voice", "cue")

FIELDS = (
    "name, kind, role, changes, rationale, and patient (persona, voice; scenarios optional) "
    "or substitutions (cue)"
)
"""What a variant file holds, as said in its error messages."""


class Replacement(BaseModel):
    """One row of a cue variant's substitution table: ``old`` becomes ``new`` wherever it
    occurs in any packet of the case."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    old: str = Field(min_length=1, alias="from")
    new: str = Field(min_length=1, alias="to")


class VariantSpec(BaseModel):
    """A patient variant: what it changes, for which role, why, and how.

    A ``persona`` or ``voice`` variant adds instructions to the patient's script (how the
    patient speaks and discloses, or who answers); a ``cue`` variant replaces declared words
    in every packet of the cases its table lists (those are the cases it runs on). None
    changes a fact, the rubric or the environment's rules.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    kind: Kind
    role: str = Field(min_length=1)
    """Whose materials it changes (``patient``, or ``every packet`` for a cue)."""
    changes: str = Field(min_length=1)
    """What it changes, in one line."""
    rationale: str = Field(min_length=1)
    """Why, in one line, with its source."""
    patient: str = ""
    """The instructions added to the patient's script (persona and voice)."""
    scenarios: list[str] | None = None
    """Persona and voice: the scenario ids or globs it runs on, where the case allows it
    (default: every scenario); a cue runs on the cases its table lists."""
    substitutions: dict[str, list[Replacement]] | None = None
    """A cue's table: per eligible scenario (``<case_id>/<scenarioN>``) or case id, the
    replacements made in every one of its packets."""

    @field_validator("rationale", "changes")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if "\n" in value.strip():
            raise ValueError("must be one line")
        return value.strip()

    @model_validator(mode="after")
    def _kind_has_its_part(self) -> VariantSpec:
        if self.name == "baseline":
            raise ValueError("'baseline' is the case as published: name the variant otherwise")
        if self.kind == "cue":
            if not self.substitutions:
                raise ValueError(
                    "a cue variant needs its substitution table (substitutions: "
                    "<case_id>/<scenarioN>: [{from: ..., to: ...}]), which also says which "
                    "cases it runs on"
                )
            if self.patient.strip():
                raise ValueError("a cue variant changes words by its table only: drop patient")
            if self.scenarios is not None:
                raise ValueError("a cue runs on the cases its table lists: drop scenarios")
            empty = [key for key, rows in self.substitutions.items() if not rows]
            if empty:
                raise ValueError(f"substitutions for {empty[0]} list no replacement")
        else:
            if not self.patient.strip():
                raise ValueError(f"a {self.kind} variant needs patient (its instructions)")
            if self.substitutions:
                raise ValueError(f"a {self.kind} variant has no substitution table")
            if self.scenarios is not None and not self.scenarios:
                raise ValueError("scenarios lists no scenario id or glob (omit it for every one)")
        return self


def read_variant(path: Path) -> VariantSpec:
    """The variant in ``path``.

    Raises:
        MedSPParameterError: One line naming the file and what is wrong with it.
    """
    try:
        raw: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MedSPParameterError(
            f"variant file {path} cannot be read ({exc.strerror or exc})"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise MedSPParameterError(
            f"variant file {path} is not valid YAML{where}: fix it ({FIELDS})"
        ) from None
    if not isinstance(raw, dict):
        raise MedSPParameterError(f"variant file {path} is not a mapping: it holds {FIELDS}")
    try:
        return VariantSpec.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = ".".join(str(p) for p in error.get("loc", ()))
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        field = f" field {loc}" if loc else ""
        raise MedSPParameterError(
            f"variant file {path}{field}: {message} (a variant file holds {FIELDS})"
        ) from None
