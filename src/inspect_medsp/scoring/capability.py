"""The rubric as a capability: its score columns, headline and colour scales."""

from __future__ import annotations

from inspect_medsp.measure import Capability, Column
from inspect_medsp.record import HEADLINE_KEYS, KEYS, SCORER, ScoreValue
from inspect_medsp.scoring.scorer import medsp_rubric

_EXTRA_LABELS = {
    "context_exhausted": "Clinician window full (1 = yes)",
    "refused_turns": "Clinician turns refused",
    "epochs": "Epochs scored",
    "epoch_sd": "SD of completion over epochs",
    "flipped_items": "Items flipped between epochs",
    "unscored_epochs": "Epochs not scored",
}


def rubric_label(key: str) -> str:
    """The column label of a rubric value key."""
    if key == "overall":
        return "Completion"
    if key in KEYS:
        return f"{key} completion"
    for key_ in KEYS:
        if key == f"{key_}_completed":
            return "Items met" if key_ == "overall" else f"{key_} items met"
        if key == f"{key_}_total":
            return "Items" if key_ == "overall" else f"{key_} items"
    return _EXTRA_LABELS.get(key, key)


def _column(key: str) -> Column:
    if key in KEYS:  # completions: higher is better, from 0 to 1
        unit = "share of items met" if key == "overall" else None
        return Column(key, rubric_label(key), palette="good-high", low=0, high=1, unit=unit)
    return Column(key, rubric_label(key))


RUBRIC = Capability(
    name=SCORER,
    scorer=medsp_rubric,
    columns=tuple(_column(key) for key in ScoreValue.model_fields),
    headlines=HEADLINE_KEYS,
)
"""The rubric's completion: always in the eval, the core of the report."""
