"""Role replies: generate, parse tolerantly, retry with a correction, then degrade visibly.

The patient and the environment controller are Inspect agents (:func:`role_agent`) whose
private history is an :class:`~inspect_ai.agent.AgentState`. The clinician uses the same
:func:`generate_json` on ``state.messages``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
)
from pydantic import BaseModel

from inspect_medsp.encounter.prompts import render
from inspect_medsp.encounter.replies import (
    ClinicianReply,
    EnvironmentReply,
    PatientReply,
    ReplyError,
    parse_reply,
)

R = TypeVar("R", bound=BaseModel)

MAX_RETRIES = 2
"""Corrective re-asks after a reply that is not the role's JSON."""

METADATA_KEY = "medsp_reply"


@dataclass(frozen=True)
class Contract(Generic[R]):
    """What one role must reply with, and how its unusable reply degrades."""

    role: str
    model: type[R]
    required_any: tuple[str, ...]
    shape: str
    degrade: Callable[[str], R]


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
        '[{"raw": "", "interpreted_action": "", "status": "executed|pending|unsupported", '
        '"rationale": ""}], "patient_status": "", "progress_index": 0, "state_label": "", '
        '"should_end": false, "completion_reason": ""}'
    ),
    degrade=lambda raw: EnvironmentReply(),
)


@dataclass
class RoleResult(Generic[R]):
    """A role's reply as used, with how it was obtained."""

    reply: R
    raw: str
    message: ChatMessageAssistant
    repairs: list[str] = field(default_factory=list)
    retries: int = 0
    degraded: bool = False
    errors: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """``clean``, ``repaired`` or ``degraded``."""
        if self.degraded:
            return "degraded"
        return "repaired" if self.repairs or self.retries else "clean"

    def summary(self) -> dict[str, Any]:
        """JSON-ready account kept on the reply message's metadata."""
        return {
            "reply": self.reply.model_dump(mode="json"),
            "repairs": self.repairs,
            "retries": self.retries,
            "degraded": self.degraded,
            "errors": self.errors,
        }


async def generate_json(
    model: Model,
    history: list[ChatMessage],
    contract: Contract[R],
    config: GenerateConfig | None = None,
    max_retries: int = MAX_RETRIES,
    cache: bool | CachePolicy = False,
) -> tuple[RoleResult[R], ModelOutput]:
    """Ask ``model`` for the role's JSON, re-asking up to ``max_retries`` times.

    Retries run on a scratch copy of ``history``: only the reply finally used is returned, for
    the caller to append, so the persistent history stays append-only and cache friendly.

    Args:
        model: The model playing the role.
        history: The role's conversation so far (not modified).
        contract: The role's reply contract.
        config: Generation settings.
        max_retries: Corrective re-asks after an unusable reply.
        cache: Inspect's response cache for the calls (for re-runs).

    Returns:
        The result (degraded from the last raw text when every attempt failed) and the model
        output of the reply used, whose usage is the sum over all attempts.
    """
    scratch = list(history)
    errors: list[str] = []
    output: ModelOutput | None = None
    usage: ModelUsage | None = None
    for attempt in range(max_retries + 1):
        output = await model.generate(scratch, config=config or GenerateConfig(), cache=cache)
        if output.usage is not None:
            usage = output.usage if usage is None else usage + output.usage
            output = output.model_copy(update={"usage": usage})
        text = output.completion
        try:
            reply, repairs = parse_reply(text, contract.model, contract.required_any)
        except ReplyError as err:
            errors.append(str(err))
            if attempt < max_retries:
                scratch.append(output.message)
                scratch.append(
                    ChatMessageUser(content=render("retry", reason=err, shape=contract.shape))
                )
            continue
        return (
            RoleResult(
                reply=reply,
                raw=text,
                message=output.message,
                repairs=repairs,
                retries=attempt,
                errors=errors,
            ),
            output,
        )
    assert output is not None
    text = output.completion
    return (
        RoleResult(
            reply=contract.degrade(text),
            raw=text,
            message=output.message,
            retries=max_retries,
            degraded=True,
            errors=errors,
        ),
        output,
    )


@agent(name="medsp_role")
def role_agent(
    contract: Contract[Any],
    model: Model,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = False,
) -> Agent:
    """A patient or environment-controller agent replying in its role's JSON.

    The agent appends the reply it used to ``state.messages`` and records the parsed reply
    and its repairs on that message's metadata (key ``medsp_reply``).

    Args:
        contract: The role's reply contract (:data:`PATIENT` or :data:`ENVIRONMENT`).
        model: The model playing the role.
        config: Generation settings for the role.
        cache: Inspect's response cache for the role's calls.
    """

    async def execute(state: AgentState) -> AgentState:
        result, output = await generate_json(model, state.messages, contract, config, cache=cache)
        message = result.message.model_copy(update={"metadata": {METADATA_KEY: result.summary()}})
        state.messages.append(message)
        state.output = output
        return state

    return execute


def read_agent_reply(state: AgentState, contract: Contract[R]) -> RoleResult[R]:
    """The reply an agent just gave: from its metadata, or parsed from its text for an agent
    that is not :func:`role_agent` (degraded if it is not the role's JSON)."""
    message = state.messages[-1]
    if not isinstance(message, ChatMessageAssistant):
        return RoleResult(
            reply=contract.degrade(""),
            raw="",
            message=ChatMessageAssistant(content=""),
            degraded=True,
            errors=["the agent gave no reply"],
        )
    meta = (message.metadata or {}).get(METADATA_KEY)
    if isinstance(meta, dict):
        return RoleResult(
            reply=contract.model.model_validate(meta["reply"]),
            raw=message.text,
            message=message,
            repairs=list(meta.get("repairs", [])),
            retries=int(meta.get("retries", 0)),
            degraded=bool(meta.get("degraded", False)),
            errors=list(meta.get("errors", [])),
        )
    try:
        reply, repairs = parse_reply(message.text, contract.model, contract.required_any)
    except ReplyError as err:
        return RoleResult(
            reply=contract.degrade(message.text),
            raw=message.text,
            message=message,
            degraded=True,
            errors=[str(err)],
        )
    return RoleResult(reply=reply, raw=message.text, message=message, repairs=repairs)
