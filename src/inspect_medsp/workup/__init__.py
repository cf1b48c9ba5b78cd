"""The work-up: what the clinician ordered over the encounter, in which category, at what
cost from a price table, whether a met rubric item cites it, and when (``medsp_workup``)."""
