"""The size of every call the probe will make, for ``medsp-estimate medsp_contamination``:
the prompts exactly as they will be sent, the replies as assumed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from inspect_medsp.contamination.probes import build_probes, system_prompt, unpublished_of
from inspect_medsp.contamination.settings import ProbeSettings
from inspect_medsp.contamination.task import TASK_METADATA, medsp_contamination
from inspect_medsp.data import METADATA_KEY, SampleRecord

CHARS_PER_WORD = 6
"""Characters of an English word with the space after it, for a continuation's reply."""

SLOT_REPLY = 8
"""Characters of a slot's reply (a number)."""


class ProbeCall(BaseModel):
    """One call: what the prompt holds and what its reply is assumed to hold, in
    characters."""

    probe: str
    prompt_chars: int
    reply_chars: int


class ProbeCalls(BaseModel):
    """Every call of a probe run."""

    name: str
    scenarios: int
    calls: list[ProbeCall]


def _calls(
    record: SampleRecord, settings: ProbeSettings, unpublished: SampleRecord | None
) -> Iterator[ProbeCall]:
    system = len(system_prompt())
    pairs, _ = build_probes(record, settings, unpublished)
    for pair in pairs:
        for asked in (*pair.probe, *pair.control):
            if pair.kind == "continuation":
                reply = settings.following_words * CHARS_PER_WORD
            elif pair.kind == "checklist":
                reply = sum(len(item) + 3 for item in asked.truth)  # the whole list recited
            else:
                reply = SLOT_REPLY
            yield ProbeCall(
                probe=pair.name, prompt_chars=system + len(asked.prompt), reply_chars=reply
            )


def probe_calls(args: Mapping[str, Any]) -> ProbeCalls:
    """The calls of ``medsp_contamination`` with ``args``, built as ``inspect eval`` builds
    it (so a bad parameter is its own one-line error).

    Raises:
        MedSPDataError: A bad parameter or unavailable data.
    """
    task = medsp_contamination(**args)
    settings = ProbeSettings.model_validate((task.metadata or {})[TASK_METADATA]["settings"])
    calls: list[ProbeCall] = []
    scenarios = 0
    for sample in task.dataset:
        record = SampleRecord.model_validate((sample.metadata or {})[METADATA_KEY])
        scenarios += 1
        calls += _calls(record, settings, unpublished_of(sample.metadata))
    return ProbeCalls(
        name=task.dataset.name or "medsp_contamination", scenarios=scenarios, calls=calls
    )
