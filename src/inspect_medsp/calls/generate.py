"""The model-call service: ask a model for a reply in a JSON contract, parse it tolerantly,
re-ask with a correction, then degrade visibly.

Every JSON model call of the package returns one :class:`RoleResult`: the encounter's roles
(the clinician, the patient, the environment controller), the strategies, the grader, the
auditor and the specialty classifier each call :func:`generate_json` with their own
:class:`Contract`. The corrective prompts are ``calls/prompts/retry*.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    StopReason,
)
from pydantic import BaseModel

from inspect_medsp.calls.replies import ReplyError, parse_reply, strip_reasoning
from inspect_medsp.record import ReplyOutcome
from inspect_medsp.templates import render
from inspect_medsp.tokens import estimate_tokens

PACKAGE = "inspect_medsp.calls"
"""The package whose ``prompts/`` folder holds the corrective prompts."""

R = TypeVar("R", bound=BaseModel)

DEFAULT_JUDGE = "openai/gpt-5.5"
"""The reference setup's model for the patient, environment and grader roles: the fallback
for a role not given with ``--model-role``."""

MAX_RETRIES = 2
"""Corrective re-asks after a reply that is not the role's JSON or was cut off."""

CUT_OFF = "cut off at the output-token limit"
"""Why an attempt that stopped at the output-token limit (``max_tokens``) was not used."""
STOPPED: dict[StopReason, str] = {
    "model_length": "the prompt no longer fits the model's context window",
    "content_filter": "the provider refused to answer (content filter)",
}
"""Stops that end a role call at once: re-asking cannot help, and the provider's message that
comes with them is never a reply."""


@dataclass(frozen=True)
class Contract(Generic[R]):
    """What one role must reply with, and how its unusable reply degrades."""

    role: str
    model: type[R]
    required_any: tuple[str, ...]
    shape: str
    degrade: Callable[[str], R]


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
        degraded: Whether every attempt failed (also when the provider stopped the call).
        errors: Why each failed attempt failed.
        stop_reason: Why the model stopped for the reply used, as Inspect reports it
            (``stop``, ``max_tokens``, ``model_length``, ``content_filter``, ...).
        truncated: Attempts cut off at the output-token limit (each one re-asked, or the
            reply degraded when it was the last).
        provider_message: What the provider sent instead of a reply when it refused or the
            prompt did not fit (``content_filter``, ``model_length``); never the role's words.
        prompt_tokens: The size of the prompt the provider could not take (its reported
            input tokens, else an estimate); 0 otherwise.
    """

    reply: R
    raw: str
    message: ChatMessageAssistant
    output: ModelOutput | None = None
    repairs: list[str] = field(default_factory=list)
    retries: int = 0
    degraded: bool = False
    errors: list[str] = field(default_factory=list)
    stop_reason: StopReason = "stop"
    truncated: int = 0
    provider_message: str = ""
    prompt_tokens: int = 0

    @property
    def attempts(self) -> int:
        """Model calls made for this reply."""
        return self.retries + 1

    @property
    def usage(self) -> ModelUsage | None:
        """Tokens of every attempt together."""
        return self.output.usage if self.output is not None else None

    @property
    def context_exhausted(self) -> bool:
        """Whether the prompt no longer fit the model's context window (``model_length``)."""
        return self.stop_reason == "model_length"

    @property
    def refused(self) -> bool:
        """Whether the provider refused to answer (``content_filter``)."""
        return self.stop_reason == "content_filter"

    @property
    def outcome(self) -> ReplyOutcome:
        """``context`` or ``refused`` when the provider stopped the call, else ``degraded``,
        ``repaired`` or ``clean``."""
        if self.context_exhausted:
            return "context"
        if self.refused:
            return "refused"
        if self.degraded:
            return "degraded"
        return "repaired" if self.repairs or self.retries else "clean"


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

    A reply cut off at the output-token limit (``max_tokens``) is never used, even when what
    is left parses: it is re-asked with the cut-off prompt, and degraded to the role's empty
    reply when it was the last attempt. A call the provider stops (``model_length``,
    ``content_filter``) is not re-asked: the result says so (:func:`stopped_result`) and the
    caller decides what it means for the encounter. ``<think>`` blocks left in a reply's text
    are reasoning, not the reply.

    Returns:
        The result, degraded from the last raw text when every attempt failed (from nothing
        when it was cut off or stopped); its output's usage and time are the sums over all
        attempts.
    """
    scratch = list(history)
    errors: list[str] = []
    output: ModelOutput | None = None
    usage: ModelUsage | None = None
    seconds: float | None = None
    truncated = 0
    for attempt in range(max_retries + 1):
        output = await model.generate(scratch, config=config or GenerateConfig(), cache=cache)
        own = output.usage
        if output.time is not None:
            seconds = output.time if seconds is None else seconds + output.time
        if output.usage is not None:
            usage = output.usage if usage is None else usage + output.usage
        output = output.model_copy(update={"usage": usage, "time": seconds})
        if output.stop_reason in STOPPED:
            errors.append(STOPPED[output.stop_reason])
            size = own.input_tokens if own is not None and own.input_tokens else None
            return stopped_result(contract, output, scratch, attempt, errors, truncated, size)
        text = strip_reasoning(output.completion)
        if output.stop_reason == "max_tokens":
            # a cut-off reply lost what came after the cut: never used, whatever parses
            truncated += 1
            errors.append(CUT_OFF)
            if attempt < max_retries:
                _re_ask(scratch, output, render("retry_cut_off", PACKAGE, shape=contract.shape))
            continue
        try:
            reply, repairs = parse_reply(text, contract.model, contract.required_any)
        except ReplyError as err:
            errors.append(str(err))
            if attempt < max_retries:
                _re_ask(scratch, output, render("retry", PACKAGE, reason=err, shape=contract.shape))
            continue
        return RoleResult(
            reply=reply,
            raw=text,
            message=output.message,
            output=output,
            repairs=repairs,
            retries=attempt,
            errors=errors,
            stop_reason=output.stop_reason,
            truncated=truncated,
        )
    assert output is not None
    return _degraded(contract, output, max_retries, errors, truncated)


def _re_ask(scratch: list[ChatMessage], output: ModelOutput, prompt: str) -> None:
    """The unusable reply and the corrective prompt, appended to the scratch history."""
    scratch.append(output.message)
    scratch.append(ChatMessageUser(content=prompt))


def _degraded(
    contract: Contract[R], output: ModelOutput, retries: int, errors: list[str], truncated: int
) -> RoleResult[R]:
    """The role's reply degraded from the last attempt's text (from nothing when it was cut
    off) after every attempt failed."""
    cut = output.stop_reason == "max_tokens"
    text = strip_reasoning(output.completion)
    return RoleResult(
        reply=contract.degrade("" if cut else text),
        raw=text,
        message=output.message,
        output=output,
        retries=retries,
        degraded=True,
        errors=errors,
        stop_reason=output.stop_reason,
        truncated=truncated,
    )


def stopped_result(
    contract: Contract[R],
    output: ModelOutput,
    prompt: list[ChatMessage],
    retries: int = 0,
    errors: list[str] | None = None,
    truncated: int = 0,
    prompt_tokens: int | None = None,
) -> RoleResult[R]:
    """The result of a call the provider stopped (``model_length`` or ``content_filter``).

    The reply is the role's empty reply and the message an empty assistant message: the
    provider's text is kept only as ``provider_message``, never as the role's words.
    ``prompt_tokens`` is the provider's count of the prompt, if it gave one (else estimated
    from the prompt's characters).
    """
    size = prompt_tokens or estimate_tokens(sum(len(m.text) for m in prompt))
    return RoleResult(
        reply=contract.degrade(""),
        raw="",
        message=ChatMessageAssistant(content="", model=output.model),
        output=output,
        retries=retries,
        degraded=True,
        errors=errors if errors is not None else [STOPPED.get(output.stop_reason, "")],
        stop_reason=output.stop_reason,
        truncated=truncated,
        provider_message=output.completion.strip(),
        prompt_tokens=size if output.stop_reason == "model_length" else 0,
    )
