"""Finish the Trajectory on every way out of an encounter, including the abnormal ones.

Both protocols run their encounter inside :func:`finish_on_exit`. When the solver leaves
through an exception (an Inspect limit, a model or other error, a cancellation) the record gets
an end and a readable reason, and the exception goes on unchanged, so Inspect handles it
exactly as before: a limit goes on to scoring, an error is a sample error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio
from inspect_ai.log import transcript
from inspect_ai.util import LimitExceededError, sample_limits

from inspect_medsp._inspect import TerminateSampleError
from inspect_medsp.record import EndReason, Trajectory

MAX_DETAIL = 300
"""Characters of an error's or limit's own message kept in the end reason."""


@contextmanager
def finish_on_exit(traj: Trajectory) -> Iterator[None]:
    """Record how the encounter ended if the block raises while it is still ``running``.

    The reason reads like ``token limit reached during turn 3 (2 turns completed): <Inspect's
    message>`` or ``RuntimeError during turn 2 (1 turn completed): <the error's message>``. A
    record that already has an end (for example the controller ended it and a limit fired
    afterwards) keeps it. The exception is always re-raised.
    """
    try:
        yield
    except BaseException as exc:
        if traj.end == "running":
            end, what, detail = classify_exit(exc)
            done = traj.turn_count
            reason = (
                f"{what} during turn {done + 1} ({done} turn{'' if done == 1 else 's'} completed)"
            )
            if detail:
                cut = detail if len(detail) <= MAX_DETAIL else detail[: MAX_DETAIL - 1] + "…"
                reason += f": {cut}"
            traj.end = end
            traj.end_reason = reason
            transcript().info(f"encounter cut short ({end}): {reason}")
        raise


def classify_exit(exc: BaseException) -> tuple[EndReason, str, str]:
    """The end value, a short headline and the exception's own message (may be empty) for an
    exception that stopped an encounter."""
    if isinstance(exc, LimitExceededError):
        return "limit", f"{exc.type} limit reached", exc.message
    if isinstance(exc, TerminateSampleError):
        return "cancelled", "the sample was terminated", exc.reason
    if isinstance(exc, Exception):
        return "error", type(exc).__name__, str(exc)
    if isinstance(exc, anyio.get_cancelled_exc_class()):
        limit = _clock_limit_reached()
        if limit is not None:
            return "limit", limit, ""
        return "cancelled", "the sample was cancelled", ""
    return "cancelled", f"the run was stopped ({type(exc).__name__})", ""


def _clock_limit_reached() -> str | None:
    """Which sample time limit a cancellation comes from, if any.

    Inspect enforces the time and working limits by cancelling the sample and raises the
    limit error only outside the solver, so inside it the two look like any cancellation.
    """
    try:
        limits = sample_limits()
    except RuntimeError:
        return None
    for name, limit in (("time", limits.time), ("working", limits.working)):
        if limit.limit is not None and limit.usage >= limit.limit:
            return f"{name} limit of {limit.limit:g} s reached"
    return None
