"""``--model medsp/scripted`` plays the demo scenarios' roles (the ``medsp`` provider of
:mod:`inspect_medsp.providers` serves it)."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelOutput,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_medsp.scripted.draft import draft_reply
from inspect_medsp.scripted.playback import ScriptPlayer
from inspect_medsp.scripted.recognise import NoScriptError, recognise
from inspect_medsp.scripted.replies import reply

MODEL_NAME = "scripted"
NOTICE = (
    "medsp/scripted is a script, not a model: it replays hand-written replies for the three "
    "bundled demo scenarios"
)
AUTHOR_NOTICE = (
    "medsp/scripted is a script, not a model: it replies with the draft written by hand for "
    "the README's sample vignette"
)
SCRIPTED_TURNS_ONLY = "it plays protocol=turns only; drop -T protocol=tools"
"""Why the scripted demo cannot be the clinician of the tools protocol, and the fix."""
SCRIPTED_KEY = "medsp_scripted"
"""Where each reply's output metadata says it is a script, and which call it played."""


class ScriptedMedSP(ScriptPlayer):
    """Plays the clinician, patient, environment and grader of the demo scenarios from the
    scripts shipped with the package; token usage is characters / 4 (no tokenizer download).
    """

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if tools:
            raise NoScriptError(
                f"medsp/scripted cannot call tools: {SCRIPTED_TURNS_ONLY}"
            )
        drafted = draft_reply(input)
        if drafted is not None:
            text = drafted
            metadata: dict[str, Any] = {SCRIPTED_KEY: {"notice": AUTHOR_NOTICE, "role": "author"}}
        else:
            call = recognise(input)
            text = reply(call, input)
            metadata = {
                SCRIPTED_KEY: {
                    "notice": NOTICE,
                    "role": call.role,
                    "scenario": call.record.id,
                    "turn": call.turn,
                }
            }
        output = self.scripted_output(text, input)
        output.choices[0].message.metadata = dict(metadata)
        output.metadata = metadata
        return output
