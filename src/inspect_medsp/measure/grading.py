"""Each grading of a MedSP scorer as an Inspect subtask named after it, so the transcript's
outline lists it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from inspect_ai.util import store, subtask

from inspect_medsp.record import Verdict

GRADING_TYPE = "grading"
"""Type of a grading inside a MedSP scorer ("rubric grading", "simulation audit", "probe:
baseline", "probe: removal", ...): the ``type`` of its subtask event."""

T = TypeVar("T")


async def grading(
    name: str,
    work: Callable[[], Awaitable[T]],
    about: Mapping[str, str],
    outcome: Callable[[T], str],
) -> T:
    """Run one grading of a MedSP scorer as an Inspect subtask named ``name``: a span of type
    ``subtask`` holding a subtask event (type :data:`GRADING_TYPE`, input ``about``, output
    ``outcome`` of the result) and the grader's calls.

    Inspect's viewer (0.3.285) builds a sample's scoring phase from its events alone, dropping
    every span inside the ``scorers`` span (the scorer's own, named after it, too); the
    subtask event is an event, so it stays, and the transcript outline shows it as a row of
    this name above the grader's calls, the transcript as a "Subtask: <name>" panel. The
    subtask shares the sample's store, and an error of ``work`` reaches the caller as it was
    raised (the subtask event then says it failed)."""
    results: list[T] = []
    errors: list[Exception] = []

    async def run() -> str:
        try:
            results.append(await work())
        except Exception as err:  # raised again below, in the scorer's own task
            errors.append(err)
            return f"failed ({type(err).__name__})"
        return outcome(results[0])

    await subtask(name, store=store(), type=GRADING_TYPE, input=dict(about))(run)()
    if errors:
        raise errors[0]
    return results[0]


def items_met(verdicts: Sequence[Verdict]) -> str:
    """What a grading found, as its subtask's output: "12 of 17 items met"."""
    return f"{sum(v.met for v in verdicts)} of {len(verdicts)} items met"
