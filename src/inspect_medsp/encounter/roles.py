"""Role replies: generate, parse tolerantly, retry with a correction, then degrade visibly.

Every role call returns one :class:`RoleResult`. The patient and the environment controller
are :func:`role_call` s on their own private histories; the clinician, the strategies, the
grader and the specialty classifier call :func:`generate_json` on theirs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

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

from inspect_medsp.encounter.replies import ReplyError, parse_reply
from inspect_medsp.encounter.texts import render
from inspect_medsp.record.replies import ClinicianReply, EnvironmentReply, PatientReply

R = TypeVar("R", bound=BaseModel)

DEFAULT_JUDGE = "openai/gpt-5.5"
"""The reference setup's model for the patient, environment and grader roles: the fallback
for a role not given with ``--model-role``."""

MAX_RETRIES = 2
"""Corrective re-asks after a reply that is not the role's JSON."""


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
    """One role call: the reply as used and how it was obtained.

    Attributes:
        reply: The role's reply (degraded from ``raw`` when no attempt was usable).
        raw: The text of the reply used.
        message: The assistant message to append to the role's history.
        output: The model output of the reply used, its usage and time summed over every
            attempt (None for a move that no model generated, such as a tool call's).
        repairs: What the tolerant parser fixed in the reply used.
        retries: Corrective re-asks before the reply used (``attempts - 1``).
        degraded: Whether every attempt failed.
        errors: Why each failed attempt failed.
    """

    reply: R
    raw: str
    message: ChatMessageAssistant
    output: ModelOutput | None = None
    repairs: list[str] = field(default_factory=list)
    retries: int = 0
    degraded: bool = False
    errors: list[str] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        """Model calls made for this reply."""
        return self.retries + 1

    @property
    def usage(self) -> ModelUsage | None:
        """Tokens of every attempt together."""
        return self.output.usage if self.output is not None else None

    @property
    def outcome(self) -> Literal["clean", "repaired", "degraded"]:
        """``clean``, ``repaired`` or ``degraded``."""
        if self.degraded:
            return "degraded"
        return "repaired" if self.repairs or self.retries else "clean"


RoleCall = Callable[[list[ChatMessage]], Awaitable[RoleResult[R]]]
"""Plays one role: its reply to the role's conversation so far."""


async def generate_json(
    model: Model,
    history: list[ChatMessage],
    contract: Contract[R],
    config: GenerateConfig | None = None,
    max_retries: int = MAX_RETRIES,
    cache: bool | CachePolicy = False,
) -> RoleResult[R]:
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
        The result, degraded from the last raw text when every attempt failed; its output's
        usage and time are the sums over all attempts.
    """
    scratch = list(history)
    errors: list[str] = []
    output: ModelOutput | None = None
    usage: ModelUsage | None = None
    seconds: float | None = None
    for attempt in range(max_retries + 1):
        output = await model.generate(scratch, config=config or GenerateConfig(), cache=cache)
        if output.time is not None:
            seconds = output.time if seconds is None else seconds + output.time
        if output.usage is not None:
            usage = output.usage if usage is None else usage + output.usage
        output = output.model_copy(update={"usage": usage, "time": seconds})
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
        return RoleResult(
            reply=reply,
            raw=text,
            message=output.message,
            output=output,
            repairs=repairs,
            retries=attempt,
            errors=errors,
        )
    assert output is not None
    return RoleResult(
        reply=contract.degrade(output.completion),
        raw=output.completion,
        message=output.message,
        output=output,
        retries=max_retries,
        degraded=True,
        errors=errors,
    )


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
