"""How one order reads beside its category and cost: the same words in the work-up's
explanation and in the encounter's turn summary, so ``inspect view`` shows one order one way."""

from __future__ import annotations

from functools import cache

from inspect_medsp.orders.categories import CATEGORY_NAMES, decide
from inspect_medsp.orders.prices import PriceTable, load_prices


def money(cost: float | None, currency: str) -> str:
    """A cost in the table's unit (``2 tier units``, ``1 tier unit``), or ``unpriced``."""
    if cost is None:
        return "unpriced"
    unit = currency.removesuffix("s") if cost == 1 and currency.endswith(" units") else currency
    return f"{cost:g} {unit}"


def category_name(category: str) -> str:
    """A category in words (``laboratory test``)."""
    return CATEGORY_NAMES.get(category, category)


@cache
def shipped_prices() -> PriceTable:
    """The shipped relative-tier table (``prices.yaml``), read once."""
    return load_prices(None)


def mark(order: str, reading: str, table: PriceTable | None = None) -> str:
    """``laboratory test · 2 tier units``: the order's category by the keyword table (over the
    environment's reading, else its words) and its cost from ``table`` (the shipped tiers
    when None), as the work-up decides and prices it without a grading model."""
    prices = table if table is not None else shipped_prices()
    category, _how = decide(reading, order)
    cost, _by = prices.price(order, reading, category)
    return f"{category_name(category)} · {money(cost, prices.currency)}"
