"""Ask the model under test every probe of a scenario and its control."""

from __future__ import annotations

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_medsp.contamination.probes import (
    SHUFFLED,
    Asked,
    ProbePair,
    build_probes,
    system_prompt,
    unpublished_of,
)
from inspect_medsp.contamination.settings import ProbeSettings
from inspect_medsp.data import METADATA_KEY, SampleRecord

STORE_KEY = "medsp_contamination"
"""Where a sample's store keeps its asked probes (``probes``), those it could not have
(``not_probed``) and its control (``control``)."""

REPLY_TOKENS = 600
"""Enough for a continuation of 200 words or a checklist of thirty lines."""


def asked_messages(asked: Asked) -> list[ChatMessage]:
    """The messages of one probe's question: the probe's system message, then its prompt."""
    return [ChatMessageSystem(content=system_prompt()), ChatMessageUser(content=asked.prompt)]


@solver
def ask_probes(  # inspect-evals-lint: ignore[IETS005] -- run by tests/test_contamination.py's tasks
    settings: ProbeSettings, cache: bool = False
) -> Solver:
    """Ask each probe and its control (at temperature 0, so a re-run asks the same) and keep
    the replies in the sample's store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        record = SampleRecord.model_validate(state.metadata[METADATA_KEY])
        unpublished = unpublished_of(state.metadata)
        pairs, missing = build_probes(record, settings, unpublished)
        model = get_model()
        config = GenerateConfig(temperature=0.0, max_tokens=REPLY_TOKENS)

        async def ask(asked: Asked) -> Asked:
            output = await model.generate(asked_messages(asked), config=config, cache=cache)
            return asked.model_copy(update={"reply": output.completion})

        answered: list[ProbePair] = []
        for pair in pairs:
            probe = [await ask(a) for a in pair.probe]
            control = [await ask(a) for a in pair.control]
            answered.append(pair.model_copy(update={"probe": probe, "control": control}))
        state.store.set(
            STORE_KEY,
            {
                "probes": [p.model_dump() for p in answered],
                "not_probed": missing,
                "control": unpublished.id if unpublished is not None else SHUFFLED,
            },
        )
        recalled = ", ".join(p.name for p in answered)
        state.output.completion = f"asked {len(answered)} probes: {recalled}"
        return state

    return solve
