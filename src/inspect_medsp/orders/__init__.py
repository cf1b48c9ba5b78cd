"""What an order is, by its words alone: its category (the keyword table over the
environment's reading, else the clinician's words) and its cost from a price table (the
shipped relative tiers, ``prices.yaml``, or a user's own). The work-up (``workup/``) scores
with it; the encounter's turn summary marks each order with it."""

from inspect_medsp.orders.categories import CATEGORIES, CATEGORY_NAMES, UNCLASSIFIED, decide
from inspect_medsp.orders.marking import category_name, mark, money
from inspect_medsp.orders.phrases import words
from inspect_medsp.orders.prices import PriceTable, load_prices

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "UNCLASSIFIED",
    "PriceTable",
    "category_name",
    "decide",
    "load_prices",
    "mark",
    "money",
    "words",
]
