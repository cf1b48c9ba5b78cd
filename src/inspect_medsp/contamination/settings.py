"""The probe's parameters: which probes run, how long the passages are, and the thresholds
that say a scenario is "above the control", each with its default and why.

Every bad value is one line naming the parameter, the value and what it takes
(:func:`checked`), raised before any data is read or any model called.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from inspect_medsp.errors import MedSPParameterError

ProbeKind = Literal["continuation", "checklist", "slot"]
PROBE_KINDS: tuple[ProbeKind, ...] = get_args(ProbeKind)
"""The probes, in the order they run."""


def not_bool(value: Any) -> Any:
    """YAML reads ``true``/``false`` as booleans; they are not numbers here."""
    if isinstance(value, bool):
        raise PydanticCustomError("not_a_number", "a boolean is not a number")
    return value


Count = Annotated[int, BeforeValidator(not_bool)]
Share = Annotated[float, BeforeValidator(not_bool), Field(ge=0, le=1)]

ACCEPTED: dict[str, str] = {
    "probes": "probe names, comma-separated, from " + ", ".join(PROBE_KINDS),
    "opening_words": "a whole number from 5 to 200",
    "following_words": "a whole number from 10 to 200",
    "ngram": "a whole number from 2 to 12",
    "run_margin": "a whole number of at least 1, and at most following_words",
    "ngram_margin": "a number from 0 to 1",
    "content_margin": "a number from 0 to 1",
    "item_share": "a number above 0 and at most 1",
    "checklist_margin": "a number from 0 to 1",
    "slots": "a whole number from 1 to 10",
    "slot_margin": "a number from 0 to 1",
}
"""What each parameter takes, as its error line says."""


class ProbeSettings(BaseModel):
    """How the probe asks and when a scenario counts as recalled."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    probes: list[ProbeKind] = Field(
        default=list(PROBE_KINDS),
        description="The probes to run: continuation (the patient script, environment "
        "materials and marking guide, each continued from its opening words), checklist "
        "(the checklist's items listed from the title) and slot (a masked value guessed).",
    )
    opening_words: Annotated[Count, Field(ge=5, le=200)] = Field(
        default=30,
        description="Words of a passage shown before the model continues it: enough to "
        "name the passage among the case's texts, few enough to leave most of it unshown.",
    )
    following_words: Annotated[Count, Field(ge=10, le=200)] = Field(
        default=40,
        description="Words after the opening that a continuation is compared with.",
    )
    ngram: Annotated[Count, Field(ge=2, le=12)] = Field(
        default=5,
        description="Length of the word n-grams of the overlap measure: five words in a "
        "row rarely repeat between two clinical texts by chance, as single words and pairs "
        "do.",
    )
    run_margin: Annotated[Count, Field(ge=1)] = Field(
        default=8,
        description="Words by which a continuation's longest run in common with the true "
        "text must exceed the control's: eight words in the exact order of the source are "
        "what verbatim-continuation studies take as memory, not style.",
    )
    ngram_margin: Share = Field(
        default=0.1,
        description="Share of the true text's n-grams by which a continuation's overlap "
        "must exceed the control's (both must hold, with run_margin).",
    )
    content_margin: Share = Field(
        default=0.25,
        description="Share of the passage's unshown content words by which a "
        "continuation's content-word recall must exceed the control's: a continuation "
        "above by this alone recalls the passage in its own words (a paraphrase), which "
        "the verbatim run misses. A quarter of the passage's own words, past what the "
        "control's topic vocabulary reaches, is more than general clinical prose shares "
        "with a particular passage.",
    )
    item_share: Annotated[float, BeforeValidator(not_bool), Field(gt=0, le=1)] = Field(
        default=0.6,
        description="Share of a checklist item's content words one line of the reply must "
        "hold for the item to count as recalled.",
    )
    checklist_margin: Share = Field(
        default=0.25,
        description="Share of the checklist by which items recalled must exceed the "
        "knowledge control's (the same question asked of the case's topic alone): what "
        "topic knowledge recalls is counted out by the control, and only a clear excess "
        "counts.",
    )
    slots: Annotated[Count, Field(ge=1, le=10)] = Field(
        default=3,
        description="Values masked per scenario (measured values that occur once in "
        "the case: a number with a unit or a measurement's name).",
    )
    slot_margin: Share = Field(
        default=0.5,
        description="Share of slots by which exact guesses must exceed the knowledge "
        "control's (the same value asked in its own clause, without the case's title, "
        "source and passage): one lucky value of three does not count.",
    )


def _split(value: Any) -> Any:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


def checked(**values: Any) -> ProbeSettings:
    """The settings, checked.

    Raises:
        MedSPParameterError: One line naming every bad parameter and what it takes.
    """
    if "probes" in values:
        values["probes"] = _split(values["probes"])
        unknown = [p for p in values["probes"] if p not in PROBE_KINDS]
        if unknown or values["probes"] == []:
            named = ", ".join(map(str, unknown)) or "nothing"
            raise MedSPParameterError(
                f"task parameter probes: {named} is not a probe; probes takes {ACCEPTED['probes']}"
            )
    try:
        settings = ProbeSettings.model_validate(values)
    except ValidationError as err:
        lines = []
        for error in err.errors():
            name = str(error["loc"][0])
            given = values.get(name)
            lines.append(
                f"task parameter {name}={given!r} is not accepted: {name} takes "
                f"{ACCEPTED.get(name, 'another value')}"
            )
        raise MedSPParameterError("; ".join(dict.fromkeys(lines))) from None
    if settings.run_margin > settings.following_words:
        raise MedSPParameterError(
            f"task parameter run_margin={settings.run_margin} is not accepted: it is longer "
            f"than following_words={settings.following_words}, so no continuation could pass; "
            "lower run_margin or raise following_words"
        )
    return settings
