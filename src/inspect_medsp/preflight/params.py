"""A scorer's parameters (``-S name=value``) checked when it is made: each bad value is one
line naming the scorer, the parameter, the value given and what it takes."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from inspect_ai.model import GenerateConfig
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from inspect_medsp.preflight.people import is_person

M = TypeVar("M", bound=BaseModel)


def not_bool(value: Any) -> Any:
    """YAML reads ``true``/``false`` as booleans; they are not numbers here."""
    if isinstance(value, bool):
        raise PydanticCustomError("not_a_number", "a boolean is not a number")
    return value


def finite(value: float) -> float:
    if not math.isfinite(value):
        raise PydanticCustomError("not_finite", "not a finite number")
    return value


def _model_name(value: str) -> str:
    provider, _, name = value.partition("/")
    if not provider.strip() or not name.strip():
        raise PydanticCustomError("model_name", "not a provider/model name")
    if is_person(value):
        raise PydanticCustomError(
            "person", "a person plays the clinician only (--model medsp/human)"
        )
    return value


ModelName = Annotated[str, AfterValidator(_model_name)]
"""A model's name, ``provider/model``, and not a person's."""
Count = Annotated[int, BeforeValidator(not_bool)]
"""A whole number (not a boolean)."""
Temperature = Annotated[
    float, BeforeValidator(not_bool), Field(ge=0, le=2), AfterValidator(finite)
]
"""A sampling temperature from 0 to 2."""


class GraderParameters(BaseModel):
    """What every MedSP scorer takes: the fallback model, its settings and the cache."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    judge: ModelName
    config: GenerateConfig | None = None
    cache: bool = False


GRADER_ACCEPTED: dict[str, str] = {
    "judge": "a model name provider/model, e.g. openai/gpt-5.5 (a model, not a person)",
    "config": "generation settings as a mapping, e.g. '{temperature: 0, max_tokens: 8000}'",
    "cache": "true or false",
}
"""What each parameter of :class:`GraderParameters` takes, in words."""


def checked_parameters(
    scorer: str, model: type[M], values: Mapping[str, Any], accepted: Mapping[str, str]
) -> M | str:
    """The parameters validated by ``model``, or the line saying what is wrong.

    Args:
        scorer: The scorer's name, as ``--scorer`` takes it.
        model: The pydantic model of its parameters.
        values: The values it was made with.
        accepted: What each parameter takes, in words.
    """
    try:
        return model.model_validate(dict(values))
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            loc = error.get("loc") or ()
            name = str(loc[0]) if loc else ""
            if name not in accepted:
                lines.append(" ".join(str(error.get("msg", "invalid parameters")).split()))
                continue
            shown = " ".join(repr(values.get(name, error.get("input"))).split())
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            lines.append(f"-S {name}={shown} is not accepted: {name} takes {accepted[name]}")
        return f"scorer {scorer}: " + "; ".join(dict.fromkeys(lines))
