"""The base of the package's scripts that stand in for a model (the demo's ``medsp/scripted``
and the contamination probe's personas): a reply's text becomes Inspect's output with token
usage counted as characters / 4 (no tokenizer download), up to 32 calls at once."""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage

from inspect_medsp.calls import LocalModelAPI
from inspect_medsp.tokens import estimate_tokens


class ScriptPlayer(LocalModelAPI):
    """A local provider whose replies are scripted text, metered as a model's would be."""

    def scripted_output(self, text: str, input: list[ChatMessage]) -> ModelOutput:
        """``text`` as this provider's output, with the estimated tokens of ``input`` and
        ``text`` as its usage."""
        output = ModelOutput.from_content(model=f"medsp/{self.model_name}", content=text)
        input_tokens = sum(estimate_tokens(m.text) for m in input)
        output_tokens = estimate_tokens(text)
        output.usage = ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
        )
        return output

    async def count_text_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    def max_connections(self) -> int:
        return 32
