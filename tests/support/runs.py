"""In-memory MedSP runs for the report's statistics: one MedspRun per group, with chosen
per-scenario completion, so a comparison's true difference is known by construction."""

from __future__ import annotations

from collections.abc import Mapping

from inspect_medsp.record import ScoreMetadata, ScoreValue, TaskMetadata
from inspect_medsp.record.read import MedspRun, MedspSample, MedspScore, SampleMetadata

ITEMS = 20
"""Rubric items per synthetic scenario (completion is rounded to 1/ITEMS)."""


def sample(sid: str, completion: float, epoch: int = 1, items: int = ITEMS) -> MedspSample:
    """A scored scenario whose overall and PC completion is ``completion``; MK has a third of
    the items and the same completion."""
    met = round(completion * items)
    mk_total = items // 3
    mk_met = round(completion * mk_total)
    value = ScoreValue.of(
        {
            "overall": (met, items),
            "PC": (met - mk_met, items - mk_total),
            "MK": (mk_met, mk_total),
        }
    )
    return MedspSample(
        id=sid,
        epoch=epoch,
        metadata=SampleMetadata(case_id=sid.split("/")[0]),
        score=MedspScore(value=value, metadata=ScoreMetadata()),
    )


def run(
    clinician: str,
    completion: Mapping[str, float | list[float]],
    created: str = "2026-01-01T00:00:00",
    items: int = ITEMS,
) -> MedspRun:
    """A finished run of ``clinician``: each scenario id's completion (a list: one per epoch)."""
    samples = [
        sample(sid, value, epoch, items)
        for sid, values in completion.items()
        for epoch, value in enumerate(values if isinstance(values, list) else [values], start=1)
    ]
    return MedspRun(
        path=f"/logs/{clinician}.eval",
        task="inspect_medsp/medsp100",
        created=created,
        status="success",
        model=clinician,
        task_metadata=TaskMetadata(judge="openai/gpt-5.5", strategy={"strategy": "off"}),
        samples=samples,
    )
