"""The work-up as its score's metadata stores it (``medsp_workup``)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field

from inspect_medsp.record import ActionStatus, ScorerResult

WORKUP_SCORER = "medsp_workup"


class Order(BaseModel):
    """One action the clinician ordered or did, as the work-up reads it."""

    turn: int
    """The turn it was ordered in (from 1)."""
    order: str
    """The clinician's words."""
    reading: str = ""
    """The environment's reading of it (its ``interpreted_action``)."""
    status: ActionStatus
    """How the environment assessed it: ``executed``, ``pending`` or ``unsupported``."""
    category: str
    """Its category (``orders.categories``), or ``unclassified``."""
    category_source: str
    """How the category was decided: ``model``, ``reading``, ``order`` or ``none``."""
    cost: float | None = None
    """Its cost in the table's currency; None when the table prices neither its name nor its
    category (counted in ``unpriced``, never as 0)."""
    priced_by: str = ""
    """``category`` or ``name: <name>`` (the table's entry that priced it); empty when
    unpriced."""
    cited_by: list[int] = Field(default_factory=list)
    """Numbers of the met rubric items whose evidence cites this order."""
    pending_at_end: bool = False
    """Assessed ``pending`` and never carried out by a later order of the same reading."""


class Workup(ScorerResult):
    """What the clinician ordered over the encounter, what it cost, what the rubric asked for
    and when items were met."""

    scorer: ClassVar[str] = WORKUP_SCORER

    orders: list[Order]
    """Every order, in the order given."""
    currency: str
    """The unit of every cost (``tier units`` for the shipped relative tiers)."""
    prices: str
    """The price table used: the shipped ``prices.yaml`` or the user's file."""
    cost: float
    """The sum of the priced orders' costs (unpriced ones are in ``unpriced``)."""
    unpriced: list[str] = Field(default_factory=list)
    """The orders the table could not price, by the clinician's words."""
    by_category: dict[str, int] = Field(default_factory=dict)
    """Orders per category."""
    cost_by_category: dict[str, float] = Field(default_factory=dict)
    """Cost per category (priced orders only)."""
    first_turn: dict[str, int] = Field(default_factory=dict)
    """The turn of each category's first order."""
    not_asked_for: int | None = None
    """Orders no met rubric item cites: not asked for by the rubric, which is not the same
    as wrong. None when the sample has no rubric verdicts to read (see ``necessity``)."""
    necessity: str = ""
    """Why necessity and the curve are not given, when they are not."""
    unsupported: list[str] = Field(default_factory=list)
    """Orders the environment could not carry out (outside its materials)."""
    pending_at_end: list[str] = Field(default_factory=list)
    """Orders still pending at the end of the encounter."""
    items: int = 0
    """Rubric items of the scenario (the curve's denominator)."""
    curve: list[float] = Field(default_factory=list)
    """Share of the rubric's items met, with evidence cited from that turn or earlier, at
    the end of each turn (1, 2, ...): the encounter's information-gathering curve. Empty
    without rubric verdicts."""
    untraced: int = 0
    """Met items whose evidence cites no line of the encounter (not on the curve)."""
    classify: str | None = None
    """The grading model that classified the orders (``-S classify``), if any."""

    @property
    def order_count(self) -> int:
        return len(self.orders)
