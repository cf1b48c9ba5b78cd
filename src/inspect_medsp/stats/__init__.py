"""Statistics the report's core and the comparisons share, numpy only and free of rendering:
Student's t distribution (``tdist.py``), case-clustered means and intervals
(``clustered.py``), the case sign-flip permutation test with its inverted interval
(``signflip.py``), the paired test the report uses (``pairtest.py``), what a design can detect
(``power.py``, and ``simpower.py`` by simulating the test), the paired difference of two runs
(``paired.py``) and every pair of groups compared (``pairwise.py``)."""

from inspect_medsp.stats.paired import Paired, Pairing, paired_difference, paired_differences
from inspect_medsp.stats.pairs import (
    NO_POWER,
    NO_SPREAD,
    NOT_DETECTABLE,
    OVERALL,
    TOO_FEW_CASES,
    Comparison,
    correct,
    pairwise,
    scenario_values,
)
from inspect_medsp.stats.power import ALPHA, holm, mdd_factor
from inspect_medsp.stats.signflip import EXACT_CASES, PERMUTATIONS
from inspect_medsp.stats.simpower import SIMULATED_CASES

__all__ = [
    "ALPHA",
    "EXACT_CASES",
    "NOT_DETECTABLE",
    "NO_POWER",
    "NO_SPREAD",
    "OVERALL",
    "PERMUTATIONS",
    "SIMULATED_CASES",
    "TOO_FEW_CASES",
    "Comparison",
    "Paired",
    "Pairing",
    "correct",
    "holm",
    "mdd_factor",
    "paired_difference",
    "paired_differences",
    "pairwise",
    "scenario_values",
]
