"""Patient variants (``-T variants=``): the same case played by a different patient.

A variant is a small YAML file (:mod:`~inspect_medsp.variants.spec`): a *persona* or *voice*
variant adds instructions to the patient's script, a *cue* variant replaces declared words in
every packet of the cases its table marks eligible. The rubric and the environment's rules
never change. :func:`resolve` reads the variants a run names, :func:`expand` makes one record
per (scenario, variant).
"""

from inspect_medsp.variants.apply import expand, play
from inspect_medsp.variants.library import SUFFIXES, library_files, resolve, shipped
from inspect_medsp.variants.spec import KINDS, VariantSpec, read_variant

__all__ = [
    "KINDS",
    "SUFFIXES",
    "VariantSpec",
    "expand",
    "library_files",
    "play",
    "read_variant",
    "resolve",
    "shipped",
]
