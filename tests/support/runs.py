"""In-memory MedSP runs for the report's statistics: one RunLog per group, with chosen
per-scenario completion, so a comparison's true difference is known by construction."""

from __future__ import annotations

from collections.abc import Mapping

from inspect_medsp.report.models import RunLog, SampleResult

ITEMS = 20
"""Rubric items per synthetic scenario (completion is rounded to 1/ITEMS)."""


def sample(sid: str, completion: float, epoch: int = 1, items: int = ITEMS) -> SampleResult:
    """A scored scenario whose overall and PC completion is ``completion``; MK has a third of
    the items and the same completion."""
    met = round(completion * items)
    mk_total = items // 3
    mk_met = round(completion * mk_total)
    return SampleResult(
        id=sid,
        epoch=epoch,
        case_id=sid.split("/")[0],
        scored=True,
        values={
            "overall": met / items,
            "PC": (met - mk_met) / (items - mk_total),
            "MK": mk_met / mk_total,
        },
        counts={
            "overall": (met, items),
            "PC": (met - mk_met, items - mk_total),
            "MK": (mk_met, mk_total),
        },
    )


def run(
    clinician: str,
    completion: Mapping[str, float | list[float]],
    created: str = "2026-01-01T00:00:00",
    items: int = ITEMS,
) -> RunLog:
    """A finished run of ``clinician``: each scenario id's completion (a list: one per epoch)."""
    samples = [
        sample(sid, value, epoch, items)
        for sid, values in completion.items()
        for epoch, value in enumerate(values if isinstance(values, list) else [values], start=1)
    ]
    return RunLog(
        path=f"/logs/{clinician}.eval",
        name=f"{clinician}.eval",
        task="inspect_medsp/medsp100",
        created=created,
        status="success",
        clinician=clinician,
        strategy="off",
        protocol="turns",
        judge="openai/gpt-5.5",
        samples=samples,
    )
