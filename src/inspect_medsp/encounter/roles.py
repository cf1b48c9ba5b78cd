"""The encounter's roles: the reply contracts of the clinician, the patient and the
environment controller, and :func:`role_call`, which plays the patient or the controller on its
own private history through the model-call service (:mod:`inspect_medsp.calls.generate`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model
from pydantic import BaseModel

from inspect_medsp.calls import Contract, RoleResult, generate_json
from inspect_medsp.record import ClinicianReply, EnvironmentReply, PatientReply

R = TypeVar("R", bound=BaseModel)

CLINICIAN: Contract[ClinicianReply] = Contract(
    role="clinician",
    model=ClinicianReply,
    required_any=("speak", "actions", "eos"),
    shape='{"speak": "<what you say aloud>", "actions": ["<action>"], "eos": false}',
    degrade=lambda raw: ClinicianReply(speak=raw.strip(), actions=[], eos=False),
)
PATIENT: Contract[PatientReply] = Contract(
    role="patient",
    model=PatientReply,
    required_any=("speak",),
    shape='{"speak": ["<line>"], "actors_present": {"<name>": "<evidence>"}}',
    degrade=lambda raw: PatientReply(speak=[raw.strip()] if raw.strip() else []),
)
ENVIRONMENT: Contract[EnvironmentReply] = Contract(
    role="environment",
    model=EnvironmentReply,
    required_any=(
        "feedback",
        "events",
        "progress_index",
        "state_label",
        "should_end",
        "patient_status",
    ),
    shape=(
        '{"feedback": [], "events": [], "actors_present": {}, "action_assessments": '
        '[{"action": 1, "interpreted_action": "", "status": "executed|pending|unsupported", '
        '"rationale": ""}], "patient_status": "", "progress_index": 0, "state_label": "", '
        '"should_end": false, "completion_reason": ""}'
    ),
    degrade=lambda raw: EnvironmentReply(),
)


RoleCall = Callable[[list[ChatMessage]], Awaitable[RoleResult[R]]]
"""Plays one role: its reply to the role's conversation so far."""


def role_call(
    contract: Contract[R],
    model: Model,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = False,
) -> RoleCall[R]:
    """The patient or the environment controller: ``model`` replying in the role's JSON.

    Args:
        contract: The role's reply contract (:data:`PATIENT` or :data:`ENVIRONMENT`).
        model: The model playing the role.
        config: Generation settings for the role.
        cache: Inspect's response cache for the role's calls.
    """

    async def call(history: list[ChatMessage]) -> RoleResult[R]:
        return await generate_json(model, history, contract, config, cache=cache)

    return call
