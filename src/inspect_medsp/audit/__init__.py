"""The simulator audit: an ``auditor`` model reviews the patient and environment turns of a
recorded encounter against their packets (never the rubric)."""
