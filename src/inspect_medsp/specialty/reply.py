"""The classifier's reply contract: one paper label and a one-line reason."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from inspect_medsp.calls import Contract
from inspect_medsp.record import SPECIALTIES
from inspect_medsp.specialty.labels import canonical


class SpecialtyReply(BaseModel):
    """``{"specialty": "<label>", "reason": "<one sentence>"}``; spellings are normalised."""

    model_config = ConfigDict(extra="ignore")

    specialty: str
    reason: str = ""

    @field_validator("specialty", mode="before")
    @classmethod
    def _label(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        label = canonical(value)
        if label is None:
            raise ValueError(f"{value!r} is not one of the labels")
        return label

    @field_validator("reason", mode="before")
    @classmethod
    def _one_line(cls, value: Any) -> Any:
        if value is None:
            return ""
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        return " ".join(str(value).split())


SPECIALTY: Contract[SpecialtyReply] = Contract(
    role="specialty classifier",
    model=SpecialtyReply,
    required_any=("specialty",),
    shape=(
        '{"specialty": "<exactly one of: ' + "; ".join(SPECIALTIES) + '>", '
        '"reason": "<one sentence>"}'
    ),
    degrade=lambda raw: SpecialtyReply.model_construct(specialty="", reason=""),
)
"""Used with :func:`inspect_medsp.calls.generate.generate_json` (re-asks, then degrades)."""
