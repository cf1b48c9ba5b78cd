"""The ``medsp`` model provider: ``medsp/scripted`` (the offline demo) and ``medsp/human``.

Inspect registers one class per provider name, so this one class serves both and hands every
call to the model the name asks for: :class:`~inspect_medsp.scripted.provider.ScriptedMedSP`
or :class:`~inspect_medsp.human.provider.HumanClinician` (``human`` or ``human/<name>``, one
group per person in the report); the contamination probe's two scripts (``seen-everything``,
``seen-nothing``) are :class:`~inspect_medsp.scripted.personas.ContaminationPersona`.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_medsp.errors import PrerequisiteError
from inspect_medsp.human import HumanClinician
from inspect_medsp.preflight import PERSON_MODEL as HUMAN
from inspect_medsp.preflight import is_person
from inspect_medsp.scripted import MODEL_NAME as SCRIPTED
from inspect_medsp.scripted import PERSONAS, ContaminationPersona, ScriptedMedSP


def medsp_model(model_name: str, config: GenerateConfig, **model_args: Any) -> ModelAPI:
    """The model ``medsp/<model_name>`` names.

    Raises:
        PrerequisiteError: No such model.
    """
    if model_name == SCRIPTED:
        return ScriptedMedSP(model_name, config=config, **model_args)
    if is_person(f"medsp/{model_name}"):
        return HumanClinician(model_name, config=config, **model_args)
    if model_name in PERSONAS:
        return ContaminationPersona(model_name, config=config, **model_args)
    raise PrerequisiteError(
        f"medsp/{model_name}: the medsp provider has medsp/{SCRIPTED} (the offline demo), "
        f"medsp/{HUMAN} and medsp/{HUMAN}/<name> (a person in the clinician's chair), and "
        f"medsp/{PERSONAS[0]} and medsp/{PERSONAS[1]} (the contamination probe's scripts)"
    )


@modelapi(name="medsp")
class MedSPModels(ModelAPI):
    """Serves ``medsp/scripted`` and ``medsp/human[/<name>]`` (see :func:`medsp_model`)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        config = config or GenerateConfig()
        super().__init__(model_name, base_url, api_key, [], config)
        self.model = medsp_model(model_name, config, **model_args)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        return await self.model.generate(input, tools, tool_choice, config)

    async def count_text_tokens(self, text: str) -> int:
        return await self.model.count_text_tokens(text)

    def max_connections(self) -> int:
        return self.model.max_connections()
