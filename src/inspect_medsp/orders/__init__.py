"""What an order is, by its words alone: its category (the keyword table over the
environment's reading, else the clinician's words) and its cost from a price table (the
shipped relative tiers, ``prices.yaml``, or a user's own). The work-up (``workup/``) scores
with it; the encounter's turn summary marks each order with it."""
