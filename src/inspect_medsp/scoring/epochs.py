"""Reducing a scenario's epochs: the mean of every value key, plus how stable the epochs were.

The MedSP tasks use :func:`epoch_mean` as their epoch reducer, so ``--epochs N`` gives the
right macro and micro (both read only the reduced value) and a stability figure. Another
reducer (``--epochs-reducer mean``) still gives the right macro and micro; only the stability
keys are then missing.
"""

from __future__ import annotations

import statistics
from typing import Any

from inspect_ai.scorer import Score, ScoreReducer, mean_score, score_reducer

from inspect_medsp.scoring.metrics import EPOCH_SD_KEY, EPOCHS_KEY, FLIPPED_KEY


def _scored(score: Score) -> bool:
    return isinstance(score.value, dict)


def flipped_items(epochs: list[Score]) -> int:
    """Rubric items whose verdict is not the same in every one of ``epochs``."""
    verdicts: dict[int, set[bool]] = {}
    for score in epochs:
        for item in (score.metadata or {}).get("items", []):
            verdicts.setdefault(int(item["number"]), set()).add(bool(item["met"]))
    return sum(len(seen) > 1 for seen in verdicts.values())


@score_reducer(name="epoch_mean")
def epoch_mean() -> ScoreReducer:
    """Mean over a scenario's scored epochs; with two or more, also the standard deviation of
    its overall completion (``epoch_sd``, sample SD) and the number of items whose verdict
    changed between epochs (``flipped_items``). Unscored epochs are left out of the mean; a
    scenario with no scored epoch stays unscored."""
    mean = mean_score()

    def reduce(scores: list[Score]) -> Score:
        reduced = mean(scores)
        scored = [s for s in scores if _scored(s)]
        if len(scored) < 2 or not isinstance(reduced.value, dict):
            return reduced
        overall = [float(s.value["overall"]) for s in scored if isinstance(s.value, dict)]
        extra: dict[str, Any] = {
            EPOCHS_KEY: len(scored),
            EPOCH_SD_KEY: statistics.stdev(overall),
            FLIPPED_KEY: flipped_items(scored),
        }
        if len(scored) < len(scores):
            extra["unscored_epochs"] = len(scores) - len(scored)
        return reduced.model_copy(update={"value": {**reduced.value, **extra}})

    return reduce

