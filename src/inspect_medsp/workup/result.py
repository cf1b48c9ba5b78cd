"""The work-up as its score's metadata stores it (``medsp_workup``)."""

from __future__ import annotations

from typing import ClassVar, Literal

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
    """Its category (``orders.categories``), or ``uncategorised`` (``unclassified`` in older
    logs)."""
    category_source: str
    """How the category was decided: ``model``, ``reading``, ``order`` or ``none``."""
    cost: float | None = None
    """Its cost in the table's currency; None when the table prices neither its name nor its
    category (counted in ``unpriced``, never as 0)."""
    priced_by: str = ""
    """``category`` or ``name: <name>`` (the table's entry that priced it); empty when
    unpriced."""
    cited_by: list[int] = Field(default_factory=list)
    """Numbers of the met rubric items whose quoted evidence traces to this order (empty
    under a grader that quotes nothing)."""
    serves: list[int] = Field(default_factory=list)
    """Numbers of the met rubric items this order serves (``workup/link.py``: by the items'
    words and the order's, and by the grader's quote when there is one)."""
    linked_by: list[str] = Field(default_factory=list)
    """The signals that linked it: ``quote`` and/or ``words`` (or ``model`` under ``-S
    link``)."""
    necessity: Literal["linked", "not_linked", "undecided", "unknown"] = "unknown"
    """``linked`` to a met item, ``not_linked`` to any (not asked for by the rubric),
    ``undecided`` (its words share too little to say; left out of the share), or ``unknown``
    (no rubric verdicts, or a log written before the linker)."""
    pending_at_end: bool = False
    """Assessed ``pending`` and answered by nothing later: no later order of the same reading
    carried out, and no later result, reading or state event of the environment about it."""


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
    """Decided orders linked to no met rubric item: not asked for by the rubric, which is
    not the same as wrong. None when the sample has no rubric verdicts to read or too few of
    its orders could be decided (see ``necessity``)."""
    necessity: str = ""
    """Why the share of orders not asked for is not given, when it is not (one line)."""
    orders_linked: int = 0
    """Orders linked to a met item."""
    orders_undecided: int = 0
    """Orders whose link could not be decided (left out of the share)."""
    linked_by: dict[str, int] = Field(default_factory=dict)
    """Linked orders per signal (``quote``, ``words``, ``model``; an order linked by two
    counts under each)."""
    items_met: int = 0
    """Met rubric items."""
    items_placed: dict[str, int] = Field(default_factory=dict)
    """Met items placed in a turn, per signal: ``quote`` (the grader's quote traced to a
    line), ``order`` (an order that serves it), ``words`` (the clinician's words)."""
    items_unplaced: int = 0
    """Met items no signal placed in a turn: on the curve from the last turn only."""
    curve_note: str = ""
    """Why the curve is not given, or what it rests on when some items are unplaced."""
    uncategorised: list[str] = Field(default_factory=list)
    """Orders the category table could not place, by the clinician's words."""
    unsupported: list[str] = Field(default_factory=list)
    """Orders the environment could not carry out (outside its materials)."""
    pending_at_end: list[str] = Field(default_factory=list)
    """Orders still pending at the end of the encounter."""
    items: int = 0
    """Rubric items of the scenario (the curve's denominator)."""
    curve: list[float] = Field(default_factory=list)
    """Share of the rubric's items met by the end of each turn (1, 2, ...), each met item at
    the turn the grader's quote, an order that serves it or the clinician's words place it
    (``items_placed``); an item nothing places counts from the last turn only
    (``items_unplaced``). Empty without rubric verdicts, or when fewer than half the met
    items could be placed (``curve_note`` says so)."""
    untraced: int = 0
    """Met items whose evidence quotes no line of the encounter (every met item under a
    grader that quotes nothing)."""
    classify: str | None = None
    """The grading model that classified the orders (``-S classify``), if any."""
    link: str | None = None
    """The grading model that linked the orders to the items they serve (``-S link``), if
    any; orders it left out were linked by their words."""

    @property
    def order_count(self) -> int:
        return len(self.orders)
