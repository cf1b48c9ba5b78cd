"""Scripted role models: ``mockllm/model`` with a ``custom_outputs`` callable per role."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo

Reply = str | dict[str, Any] | ModelOutput


@dataclass
class Script:
    """Replies handed out in order; every input the model received is kept for inspection."""

    replies: Sequence[Reply] | Callable[[list[ChatMessage]], Reply]
    calls: list[list[ChatMessage]] = field(default_factory=list)
    configs: list[GenerateConfig] = field(default_factory=list)
    repeat_last: bool = True
    delay: float = 0.0
    """Seconds each reply takes (an awaited sleep, so other tasks run and limits can fire)."""

    def listed(self) -> list[dict[str, Any]]:
        """The scripted replies, for a script given as a list of JSON objects."""
        assert not callable(self.replies), "a script given as a function lists no replies"
        listed = [r for r in self.replies if isinstance(r, dict)]
        assert len(listed) == len(self.replies), "a script of JSON objects"
        return listed

    def __call__(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        self.calls.append(list(input))
        self.configs.append(config)
        if callable(self.replies):
            reply = self.replies(input)
        else:
            i = len(self.calls) - 1
            if i >= len(self.replies) and not self.repeat_last:
                raise AssertionError(f"script ran out after {len(self.replies)} replies")
            reply = self.replies[min(i, len(self.replies) - 1)]
        if isinstance(reply, ModelOutput):
            output = reply
        else:
            text = reply if isinstance(reply, str) else json.dumps(reply)
            output = ModelOutput.from_content(model="mockllm", content=text)
        if output.usage is None:
            output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    def texts(self) -> list[str]:
        """Every message text this model received, across all calls."""
        return [m.text for call in self.calls for m in call]

    async def _slow(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        await anyio.sleep(self.delay)
        return self(input, tools, tool_choice, config)

    def model(self) -> Model:
        """A mockllm model driven by this script."""
        outputs = self._slow if self.delay else self
        return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


def clinician(speak: str, actions: list[str] | None = None, eos: bool = False) -> dict[str, Any]:
    return {"speak": speak, "actions": actions or [], "eos": eos}


def patient(*lines: str, present: dict[str, str] | None = None) -> dict[str, Any]:
    return {"speak": list(lines), "actors_present": present or {}}


def environment(
    index: int,
    label: str,
    *,
    feedback: list[str] | None = None,
    events: list[str] | None = None,
    status: str = "stable",
    assessments: list[dict[str, str]] | None = None,
    end: bool = False,
    reason: str = "",
) -> dict[str, Any]:
    return {
        "feedback": feedback or [],
        "events": events or [],
        "actors_present": {},
        "action_assessments": assessments or [],
        "patient_status": status,
        "progress_index": index,
        "state_label": label,
        "should_end": end,
        "completion_reason": reason,
    }


def executed(raw: str, meaning: str = "") -> dict[str, str]:
    return {
        "raw": raw,
        "interpreted_action": meaning or raw,
        "status": "executed",
        "rationale": "covered by the materials",
    }
