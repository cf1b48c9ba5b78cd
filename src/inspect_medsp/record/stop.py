"""A person's stop: what they had typed when they stopped the encounter, and a grading they
may stop.

The person in the clinician's chair (``medsp/human``) can stop at any moment: at a question,
while the models answer their turn, or while the encounter is graded. A stop during the
encounter keeps what the person had typed of the turn under :data:`STOP_KEY` in the sample's
store (the Trajectory holds only whole turns). A stop during grading ends the grading only:
the scorer runs it inside :func:`stoppable_grading` and, when it was stopped, returns the
unscored reason :data:`GRADING_STOPPED` (the encounter is kept, to grade with
``inspect score``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

import anyio
from inspect_ai.util import Store
from pydantic import BaseModel, ConfigDict, Field

STOP_KEY = "medsp_human_stop"
"""Where the sample's store keeps the person's stop (see :class:`PersonStop`)."""
GRADING_STOPPED = "grading_stopped"
"""The unscored reason of an encounter whose grading the person stopped."""

During = Literal["question", "models", "grading"]


class PersonStop(BaseModel):
    """How the person stopped, and what they had typed of the turn they stopped in."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    """The turn the person was in (1-based)."""
    during: During
    """At a question of the turn, while the models answered it, or during grading."""
    how: str
    """``Ctrl-C``, ``typed /stop`` or ``the input ended``."""
    speak: str = ""
    """What the person had typed to say in that turn."""
    actions: list[str] = Field(default_factory=list)
    """The actions they had typed in that turn."""
    sent: bool = False
    """Whether the turn had been sent to the patient and environment (a stop while the models
    answered it): it is then in the clinician's messages, though not a recorded turn."""
    seconds: float | None = None
    """The person's own time in the turn they stopped in (from its question to the stop, or
    to sending it for a stop while the models answered it), which no recorded turn holds;
    None during grading."""
    unsent: str = ""
    """A line the person had typed at a question and not entered (Enter not pressed) when
    they stopped: typed, not sent; kept apart from ``speak`` and ``actions``."""

    def save(self, store: Store) -> None:
        """Keep the stop in the sample's store."""
        store.set(STOP_KEY, self.model_dump())

    @classmethod
    def of(cls, store: Store | dict[str, object] | None) -> PersonStop | None:
        """The stop a sample's store holds, or None."""
        if store is None:
            return None
        value = store.get(STOP_KEY)
        return cls.model_validate(value) if isinstance(value, dict) else None


@dataclass
class GradingRegion:
    """A grading the person may stop."""

    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    stopped: bool = False

    def stop(self) -> None:
        """End the grading now: its model calls are cancelled and the scorer says why."""
        self.stopped = True
        self.scope.cancel()


_GRADINGS: dict[int, GradingRegion] = {}
"""The gradings running now, by the sample store they grade."""


@contextmanager
def stoppable_grading(store: Store) -> Iterator[GradingRegion]:
    """Run a grading of the sample whose store is ``store`` so that the person can stop it
    (:func:`grading_of`); after a stop the block is left at once and ``stopped`` is true."""
    region = GradingRegion()
    _GRADINGS[id(store)] = region
    try:
        with region.scope:
            yield region
    finally:
        _GRADINGS.pop(id(store), None)


def grading_of(store: Store) -> GradingRegion | None:
    """The grading of the sample whose store is ``store``, while it runs."""
    return _GRADINGS.get(id(store))
