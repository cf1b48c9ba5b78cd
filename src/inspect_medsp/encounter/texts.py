"""The encounter's own prompts (``encounter/prompts/*.md``), filled by the package's
template engine (:mod:`inspect_medsp.templates`)."""

from __future__ import annotations

from inspect_medsp import templates
from inspect_medsp.data import SampleRecord

PACKAGE = "inspect_medsp.encounter"
"""The package whose ``prompts/`` folder holds the encounter's templates."""


def render(name: str, **values: object) -> str:
    """Fill the encounter template ``prompts/<name>.md``.

    Raises:
        KeyError: A `$name` in the template has no value given.
    """
    return templates.render(name, PACKAGE, **values)


def patient_opening(record: SampleRecord) -> str:
    """The patient's first message: the script, and a variant's instructions after it (how
    the patient speaks or who answers; only the patient ever receives them)."""
    script = render("patient_script", packet=record.scenario.packets.sp_actor)
    variant = record.variant
    if variant is None or not variant.patient:
        return script
    return f"{script}\n\n{render('patient_persona', instructions=variant.patient)}"
