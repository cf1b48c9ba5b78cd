"""Step 1: the stored result and the scorer, on the kit (no model is asked)."""

from __future__ import annotations

from typing import Any, ClassVar

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from inspect_medsp.measure import Kit
from inspect_medsp.record import ScorerResult


class ClinicianOrders(ScorerResult):
    """What the clinician ordered over the recorded encounter."""

    scorer: ClassVar[str] = "clinician_orders"

    orders: int
    """Actions the clinician ordered or did, over every turn."""
    unsupported: int
    """Of those, the ones the environment could not carry out (outside its materials)."""
    turns: int
    """Turns the encounter played."""


KIT = Kit(ClinicianOrders.scorer, verb="counted")
HEADLINES = ("unsupported",)
"""The figure the samples grid shows; both are in the score's metadata."""


@scorer(metrics={"*": [mean()]}, name=ClinicianOrders.scorer)
def clinician_orders(**unknown: Any) -> Scorer:
    """Count the clinician's orders and those the environment could not carry out."""
    KIT.check_none(unknown)

    async def count(state: TaskState, target: Target) -> Score:
        encounter = KIT.read(state)
        if isinstance(encounter, Score):
            return encounter
        traj = encounter.trajectory
        if not traj.turns:
            return KIT.unscored("no_turns", "the encounter has no recorded turns", {})
        actions = traj.action_log
        result = ClinicianOrders(
            orders=len(actions),
            unsupported=sum(a.status == "unsupported" for a in actions),
            turns=traj.turn_count,
        )
        figures = {"orders": result.orders, "unsupported": result.unsupported}
        value, stored = KIT.headlined(figures, HEADLINES, encounter.number)
        return Score(value=value, metadata=result.model_dump() | stored)

    return count
