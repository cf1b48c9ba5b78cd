"""What a MedSP scorer spends, measured from the sample's transcript while it grades."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from inspect_ai.log import transcript

from inspect_medsp.record import RoleSpend

SCORERS_SPAN = "scorers"
"""The type of the span Inspect opens around a sample's scorers (once in the eval, once more
for each ``inspect score`` of it)."""


SCORER_SPAN = "scorer"
"""The type of the span Inspect opens around one scorer."""


class Meter:
    """What :func:`metered` measured: filled in when its block ends."""

    def __init__(self) -> None:
        self.usage: dict[str, RoleSpend] = {}
        self.rescored = False

    def stored(self) -> dict[str, Any]:
        """The ``usage`` and ``rescored`` fields of a score's metadata."""
        return {
            "usage": {role: spend.model_dump() for role, spend in self.usage.items()},
            "rescored": self.rescored,
        }


@contextmanager
def metered() -> Iterator[Meter]:
    """Measure the model calls made inside the block, per role (``clinician`` for a call
    without one), from the sample's transcript; and whether this scoring runs after the eval
    (the transcript already holds an earlier scorers span)."""
    events = transcript().events
    start = len(events)
    meter = Meter()
    meter.rescored = sum(_is_scorers_span(e) for e in events) > 1
    try:
        yield meter
    finally:
        meter.usage = spend_of(transcript().events[start:])


def _is_scorers_span(event: Any) -> bool:
    return getattr(event, "event", None) == "span_begin" and event.type == SCORERS_SPAN


def spend_of(events: Any) -> dict[str, RoleSpend]:
    """Calls and tokens per role of the model events among ``events``."""
    usage: dict[str, RoleSpend] = {}
    for event in events:
        if getattr(event, "event", None) != "model":
            continue
        role = event.role or "clinician"
        tokens = event.output.usage if event.output is not None else None
        spend = RoleSpend(calls=1)
        if tokens is not None:
            cached = (tokens.input_tokens_cache_read or 0) + (tokens.input_tokens_cache_write or 0)
            spend = RoleSpend(
                calls=1,
                input_tokens=int(tokens.input_tokens) + int(cached),
                output_tokens=int(tokens.output_tokens),
                total_tokens=int(tokens.total_tokens),
            )
        usage[role] = usage.get(role, RoleSpend()).plus(spend)
    return usage


def rescored_spend(events: Sequence[Any]) -> dict[str, RoleSpend]:
    """Calls and tokens per role of the model events that ``inspect score`` logged: those under
    a scorer span that is not inside the eval's own scorers span (the first one). Inspect
    0.3.285 adds none of them to the sample's or the run's usage (the samples grid's TOKENS
    and the Info tab); each MedSP scorer records its share in its score's metadata (``usage``,
    with ``rescored``)."""
    spans: dict[str, tuple[str | None, str | None]] = {}
    eval_scorers: str | None = None
    later: list[Any] = []
    for event in events:
        kind = getattr(event, "event", None)
        if kind == "span_begin":
            spans[event.id] = (event.parent_id, event.type)
            if event.type == SCORERS_SPAN and eval_scorers is None:
                eval_scorers = event.id
        elif kind == "model" and _appended(event.span_id, spans, eval_scorers):
            later.append(event)
    return spend_of(later)


def _appended(
    span_id: str | None, spans: dict[str, tuple[str | None, str | None]], eval_scorers: str | None
) -> bool:
    """Whether span ``span_id`` lies under a scorer span outside the eval's scorers span."""
    while span_id is not None and span_id in spans:
        parent, kind = spans[span_id]
        if kind == SCORER_SPAN:
            return parent != eval_scorers
        span_id = parent
    return False
