"""The JSON each role must reply with, and lenient coercion of near-misses.

Each model has a ``before`` validator that turns common type slips (a string where a list
belongs, ``"true"`` for a boolean, a list of names for a mapping) into the contract's types.
Whether coercion was needed is found by validating strictly first (see :func:`parse_reply`).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from inspect_medsp.jsonreply import NotJSONError, extract_json_object

ActionStatus = Literal["executed", "pending", "unsupported"]
_TRUE = {"true", "yes", "y", "1", "done", "complete", "completed"}


def _as_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v if isinstance(v, str) else str(v) for v in value if v is not None]
    return value


def _as_bool(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower() in _TRUE
    if isinstance(value, int | float):
        return bool(value)
    return value


def _as_str(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if isinstance(value, int | float | bool):
        return str(value)
    return value


def _as_optional_str(value: Any) -> Any:
    return None if value is None else _as_str(value)


def _as_mapping(value: Any) -> Any:
    if value is None:
        return {}
    if isinstance(value, list):
        return {str(v): "" for v in value}
    if isinstance(value, dict):
        return {str(k): "" if v is None else str(v) for k, v in value.items()}
    return value


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ClinicianReply(_Reply):
    """One clinician turn: words said aloud, non-verbal actions, end-of-stage flag."""

    speak: str = ""
    actions: list[str] = Field(default_factory=list)
    eos: bool = False

    _speak = field_validator("speak", mode="before")(_as_str)
    _actions = field_validator("actions", mode="before")(_as_list)
    _eos = field_validator("eos", mode="before")(_as_bool)


class PatientReply(_Reply):
    """The patient side's lines (``Name: words`` for a companion) and who is present."""

    speak: list[str] = Field(default_factory=list)
    actors_present: dict[str, str] = Field(default_factory=dict)

    _speak = field_validator("speak", mode="before")(_as_list)
    _actors = field_validator("actors_present", mode="before")(_as_mapping)


class ActionAssessment(_Reply):
    """How the environment controller read one clinician action."""

    raw: str = ""
    interpreted_action: str = ""
    status: ActionStatus = "unsupported"
    rationale: str = ""

    _texts = field_validator("raw", "interpreted_action", "rationale", mode="before")(_as_str)

    @field_validator("status", mode="before")
    @classmethod
    def _status(cls, value: Any) -> Any:
        if isinstance(value, str):
            v = value.strip().lower()
            return v if v in ("executed", "pending", "unsupported") else "unsupported"
        return value


class EnvironmentReply(_Reply):
    """The environment controller's in-story output and its bookkeeping."""

    feedback: list[str] = Field(default_factory=list)
    events: list[str] = Field(default_factory=list)
    actors_present: dict[str, str] = Field(default_factory=dict)
    action_assessments: list[ActionAssessment] = Field(default_factory=list)
    patient_status: str | None = None
    progress_index: int | None = None
    state_label: str | None = None
    should_end: bool = False
    completion_reason: str = ""

    _lists = field_validator("feedback", "events", mode="before")(_as_list)
    _actors = field_validator("actors_present", mode="before")(_as_mapping)
    _texts = field_validator("patient_status", "state_label", mode="before")(_as_optional_str)
    _reason = field_validator("completion_reason", mode="before")(_as_str)
    _end = field_validator("should_end", mode="before")(_as_bool)

    @field_validator("progress_index", mode="before")
    @classmethod
    def _index(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value.strip())
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    @field_validator("action_assessments", mode="before")
    @classmethod
    def _assessments(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, dict):
            return [value]
        return value


R = TypeVar("R", bound=BaseModel)


class ReplyError(ValueError):
    """A reply that is not the role's JSON, with a short reason for the corrective prompt."""


def parse_reply(
    text: str, model: type[R], required_any: tuple[str, ...] = ()
) -> tuple[R, list[str]]:
    """Parse ``text`` into ``model``.

    Args:
        text: The raw reply.
        model: The reply contract.
        required_any: Keys of which at least one must be present for the reply to count as
            this role's JSON (empty: any object counts).

    Returns:
        The reply and its repairs (``code fence``, ``prose around JSON``, ``truncated``,
        ``wrong types``); an empty list means the reply was clean.

    Raises:
        ReplyError: No object, a required key missing, or values that cannot be coerced.
    """
    try:
        extracted = extract_json_object(text)
    except NotJSONError as err:
        raise ReplyError(str(err)) from err
    if required_any and not any(k in extracted.data for k in required_any):
        raise ReplyError(f"none of the expected keys ({', '.join(required_any)})")
    repairs = list(extracted.repairs)
    try:
        value = model.model_validate(extracted.data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReplyError(f"field '{where}': {first['msg']}") from err
    if _coerced(extracted.data, value.model_dump()):
        repairs.append("wrong types")
    return value, repairs


def _coerced(raw: Any, clean: Any) -> bool:
    """Whether validation changed any value the reply gave (keys it did not give are ignored)."""
    if isinstance(raw, dict) and isinstance(clean, dict):
        return any(_coerced(v, clean[k]) for k, v in raw.items() if k in clean)
    if isinstance(raw, list) and isinstance(clean, list):
        if len(raw) != len(clean):
            return True
        return any(_coerced(a, b) for a, b in zip(raw, clean, strict=True))
    return type(raw) is not type(clean) or raw != clean
