"""Pieces shared by the ``bon`` and ``medagents`` strategies.

A strategy works only from the clinician's own history (the ``state.messages`` the encounter
passes to the policy) plus its own instructions. Everything it does along the way is recorded
in the Trajectory (``strategy`` and ``strategy_log``) and in transcript spans; only the turn
it finally returns enters the clinician's history.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    ModelOutput,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import span

from inspect_medsp.calls import CUT_OFF, STOPPED, RoleResult, stopped_result, strip_reasoning
from inspect_medsp.encounter import CLINICIAN
from inspect_medsp.jsonreply import NotJSONError, extract_json_object
from inspect_medsp.record import (
    CallSpend,
    ClinicianReply,
    Draft,
    StrategySettings,
    StrategyStep,
    Trajectory,
)
from inspect_medsp.templates import render

T = TypeVar("T")

PROMPT_PACKAGE = "inspect_medsp.strategies"


def prompt(name: str, **values: object) -> str:
    """Fill the strategy prompt ``prompts/<name>.md``."""
    return render(name, package=PROMPT_PACKAGE, **values)


def output_tokens(output: ModelOutput | None) -> int:
    """Total tokens one call used (0 when the provider reports no usage)."""
    return output.usage.total_tokens if output is not None and output.usage is not None else 0


def reply_json(reply: ClinicianReply) -> str:
    """A clinician turn as compact JSON, the way it is shown to a selector or a panel."""
    return json.dumps(reply.model_dump(mode="json"), ensure_ascii=False)


def describe_turn(result: RoleResult[ClinicianReply]) -> Draft:
    """A drafted clinician turn for the strategy log."""
    return Draft(reply=result.reply, outcome=result.outcome, retries=result.retries)


_SPEAKERS: dict[str, str] = {
    "system": "Briefing given to the clinician",
    "user": "Message to the clinician",
    "assistant": "The clinician's turn",
    "tool": "Tool result",
}


class ContextFull(Exception):
    """A call of the clinician model found its context window full: the strategy's turn is
    that call's result, and the encounter ends (``context_exhausted``).

    Args:
        result: The stopped call, as a clinician turn.
    """

    def __init__(self, result: RoleResult[ClinicianReply]) -> None:
        super().__init__("the clinician model's context window is full")
        self.result = result


def usable_text(output: ModelOutput, prompt: Sequence[ChatMessage], what: str) -> tuple[str, str]:
    """The text of a strategy call that is not a clinician turn (a choice, a panel, advice, a
    vote), and why it is not usable (empty when it is).

    A provider's message is never the text: a refusal gives ``""``; a reply cut off at the
    token limit is returned whole, with the reason, for the caller to decide (a JSON answer
    is then not used; prose advice is kept and marked).

    Raises:
        ContextFull: The prompt no longer fits the clinician model's window.
    """
    stop = output.stop_reason
    if stop == "model_length":
        raise ContextFull(stopped_result(CLINICIAN, output, list(prompt)))
    if stop in STOPPED:
        transcript().info(f"{what}: {STOPPED[stop]}; the provider's message is not used")
        return "", STOPPED[stop]
    text = strip_reasoning(output.completion)
    if stop == "max_tokens":
        return text, CUT_OFF
    return text, ""


def history_text(history: Sequence[ChatMessage]) -> str:
    """The clinician's conversation as labelled plain text, for an adviser to read."""
    blocks = [
        f"### {_SPEAKERS.get(message.role, message.role)}\n\n{message.text.strip()}"
        for message in history
    ]
    return "\n\n".join(blocks)


def with_instruction(history: Sequence[ChatMessage], text: str) -> list[ChatMessage]:
    """The clinician's history followed by one extra instruction (a scratch copy)."""
    return [*history, ChatMessageUser(content=text)]


def adviser_input(system: str, text: str) -> list[ChatMessage]:
    """A fresh two-message conversation for an adviser."""
    return [ChatMessageSystem(content=system), ChatMessageUser(content=text)]


def read_object(text: str) -> tuple[dict[str, Any] | None, str]:
    """The first JSON object in ``text`` and why there is none (empty when found)."""
    try:
        return extract_json_object(text).data, ""
    except NotJSONError as err:
        return None, str(err)


async def gather_in_spans(
    jobs: Sequence[tuple[str, Callable[[], Awaitable[T]]]], span_type: str
) -> list[T]:
    """Run the jobs concurrently, each in its own named transcript span, keeping their order."""
    results: dict[int, T] = {}

    async def run(index: int, name: str, job: Callable[[], Awaitable[T]]) -> None:
        async with span(name, type=span_type):
            results[index] = await job()

    async with anyio.create_task_group() as group:
        for index, (name, job) in enumerate(jobs):
            group.start_soon(run, index, name, job)
    return [results[i] for i in range(len(jobs))]


@dataclass
class Ledger:
    """Calls and tokens one strategy step spent."""

    calls: int = 0
    tokens: int = 0
    by_call: list[CallSpend] = field(default_factory=list)

    def add(
        self,
        kind: str,
        output: ModelOutput | None,
        index: int | None = None,
        specialty: str | None = None,
    ) -> int:
        """Count one model call (a candidate's ``index``, a specialist's ``specialty``);
        returns its tokens."""
        used = output_tokens(output)
        self.calls += 1
        self.tokens += used
        self.by_call.append(CallSpend(kind=kind, tokens=used, index=index, specialty=specialty))
        return used


def current_turn(state: TaskState) -> int:
    """The number of the turn the clinician is about to take."""
    return Trajectory(store=state.store).turn_count + 1


def record_step(state: TaskState, settings: StrategySettings, step: StrategyStep) -> None:
    """Append ``step`` to the strategy log and add its spend to the per-sample totals in
    ``Trajectory.strategy``."""
    start_record(state, settings)
    traj = Trajectory(store=state.store)
    summary = dict(traj.strategy)
    summary["calls"] = int(summary.get("calls", 0)) + step.calls
    summary["tokens"] = int(summary.get("tokens", 0)) + step.tokens
    traj.strategy = summary
    traj.strategy_log = [*traj.strategy_log, step]


def start_record(state: TaskState, settings: StrategySettings, **extra: str | int | float) -> None:
    """Write the strategy and its settings to ``Trajectory.strategy`` (first turn only)."""
    traj = Trajectory(store=state.store)
    if not traj.strategy:
        traj.strategy = {**settings.model_dump(), "calls": 0, "tokens": 0, **extra}
