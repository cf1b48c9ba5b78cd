"""``medsp-cases show CASE --role R``: what one role of a run reads of a case, message by
message, as the run sends it (the role's instructions, then its materials).

The patient reads its script, the environment its stages and results, the clinician its door
note and resources, and the grader the checklist and (in a run) the record of the encounter,
which does not exist before the run and is shown as a marker. Nothing else of the case
reaches a model: ``case.yaml`` and the marking guide reach none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from inspect_medsp.cases.layout import CASE_FILE, MORE_SCENARIOS
from inspect_medsp.cases.load import record_of
from inspect_medsp.cases.read import read_case
from inspect_medsp.encounter import render
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.record import INITIAL_LABEL, INITIAL_STATUS, render_checklist
from inspect_medsp.templates import render as render_template

ShownRole = Literal["patient", "environment", "clinician", "grader"]
ROLES: tuple[ShownRole, ...] = ("patient", "environment", "clinician", "grader")
GRADER_PROMPTS = "inspect_medsp.scoring"
"""The package whose ``prompts/`` folder holds the grader's templates."""
RECORD = "[the record of the encounter: written during the run]"
"""What stands for the encounter's record in the grader's request."""


def role_messages(case: Path, role: ShownRole) -> list[tuple[str, str]]:
    """The messages ``role`` opens its conversation with, as (kind, text), for the case's
    first scenario (``case``) or a further one (``case/scenario2``).

    Raises:
        MedSPDataError: ``case`` is not a case folder, or has a problem that stops a run.
    """
    further = MORE_SCENARIOS.match(case.name) and (case.parent / CASE_FILE).is_file()
    read = read_case(case.parent if further else case)
    stopping = [p for p in read.problems if p.stops_a_run]
    if read.facts is None or read.rubric is None or stopping:
        first = stopping[0].line() if stopping else f"{case}: not a case folder"
        raise MedSPDataError(f"{first} (medsp-cases check {case} lists every problem)")
    scenario = next((s for s in read.scenarios if s.folder == case), read)
    record = record_of(scenario)
    packets = record.scenario.packets
    if role == "patient":
        return [
            ("system", render("patient_system")),
            ("user", render("patient_script", packet=packets.sp_actor)),
        ]
    if role == "environment":
        return [
            ("system", render("environment_system")),
            ("user", render("environment_materials", packet=packets.environment_controller)),
        ]
    if role == "clinician":
        opening = render(
            "clinician_opening",
            materials=packets.examinee,
            state_label=INITIAL_LABEL,
            patient_status=INITIAL_STATUS,
        )
        return [("system", render("clinician_system")), ("user", opening)]
    request = render_template(
        "grader_request",
        GRADER_PROMPTS,
        checklist=render_checklist(record.rubric),
        record=RECORD,
        n_items=len(record.rubric.items()),
    )
    return [("system", render_template("grader_system", GRADER_PROMPTS)), ("user", request)]


def shown(messages: list[tuple[str, str]]) -> str:
    """The messages as ``show`` prints them: each under a ``[kind]`` line."""
    return "\n\n".join(f"[{kind}]\n{text}" for kind, text in messages) + "\n"
