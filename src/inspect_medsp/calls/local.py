"""The base of the package's own model providers, which run on this machine (the scripted
demo, the contamination personas, a person at the keyboard): no URL, no key, no model
arguments, Inspect's generation settings kept."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import GenerateConfig, ModelAPI


class LocalModelAPI(ModelAPI):
    """A ``ModelAPI`` made as Inspect makes any provider's, that needs nothing from outside."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
