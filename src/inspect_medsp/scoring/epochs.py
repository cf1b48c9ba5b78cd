"""Reducing a scenario's epochs: the mean of every figure, plus how stable the epochs were.

The MedSP tasks use :func:`epoch_mean` as their epoch reducer, so ``--epochs N`` gives the
right macro and micro and a stability figure. A score whose value holds its headline alone
keeps every figure in its metadata's ``figures`` (``record.score.FIGURES``): this reducer
takes the mean of those (Inspect's own reducers keep the first epoch's metadata), and the
reduced value is the headline of the reduced figures. Another reducer (``--epochs-reducer
mean``) would reduce the headline value alone, leaving the figures the metrics read at the
first epoch's (``tests/test_metrics_epochs.py``), so a run that gives one is refused at load
(``runcheck.refuse_reducers``).
"""

from __future__ import annotations

import statistics

from inspect_ai.scorer import Score, ScoreReducer, mean_score, score_reducer

from inspect_medsp.record import FIGURES, ScoreMetadata, ScoreValue


def flipped_items(epochs: list[Score]) -> int:
    """Rubric items whose verdict is not the same in every one of ``epochs``."""
    verdicts: dict[int, set[bool]] = {}
    for score in epochs:
        for item in ScoreMetadata.read(score.metadata).items:
            verdicts.setdefault(item.number, set()).add(item.met)
    return sum(len(seen) > 1 for seen in verdicts.values())


def tidy(score: Score) -> Score:
    """The mean with whole item counts as integers ("12", not "12.0", in the viewer) and each
    completion recomputed from the mean counts to three decimals; counts averaged over epochs
    that differ keep their fraction."""
    value = ScoreValue.read(score.value)
    if value is None:
        return score
    return score.model_copy(update={"value": value.with_whole_counts().rounded().stored()})


def labelled_mean(reduced: Score, epochs: int) -> Score:
    """A mean over two or more epochs says so in its answer and explanation (an audit's
    ``patient_findings`` of 0.5 is half the epochs with a finding, not half a finding); a
    rubric score's answer gives its mean items met."""
    if epochs < 2:
        return reduced
    note = f"mean of {epochs} epochs"
    value = ScoreValue.read(reduced.value)
    items = value.counts("overall") if value is not None else None
    # Inspect's mean keeps no answer; a rubric score's is its mean items ("11.5/17 items")
    said = reduced.answer or (f"{items[0]:g}/{items[1]:g} items" if items else None)
    answer = f"{said} ({note})" if said else note
    explanation = f"Each value is the {note}.\n\n{reduced.explanation or ''}".strip()
    return reduced.model_copy(update={"answer": answer, "explanation": explanation})


def every_figure(score: Score) -> Score:
    """``score`` with every figure as its value (its metadata's ``figures``, when it has
    them), so a reduction reads them as it read the value before version 4."""
    figures = (score.metadata or {}).get(FIGURES)
    if isinstance(figures, dict) and isinstance(score.value, dict):
        return score.model_copy(update={"value": dict(figures)})
    return score


def as_stored(reduced: Score, scores: list[Score]) -> Score:
    """The reduction of ``scores`` as they store it: when they keep their figures in the
    metadata, the reduced figures go there and the value keeps the headline keys."""
    first = next(
        (s for s in scores if isinstance(s.value, dict) and FIGURES in (s.metadata or {})), None
    )
    if first is None or not isinstance(first.value, dict) or not isinstance(reduced.value, dict):
        return reduced
    figures = dict(reduced.value)
    return reduced.model_copy(
        update={
            "value": {key: figures[key] for key in first.value if key in figures},
            "metadata": {**(reduced.metadata or {}), FIGURES: figures},
        }
    )


def with_texts(reduced: Score, scores: list[Score]) -> Score:
    """``reduced`` with each value key that some epoch gives as text (a figure withheld,
    with its reason: the work-up's ``not_asked_for``) as the mean of the epochs that give a
    number, else the first epoch's text: a reason never becomes a 0 in the mean."""
    if not isinstance(reduced.value, dict):
        return reduced
    dicts = [s.value for s in scores if isinstance(s.value, dict)]
    value = dict(reduced.value)
    for key in {k for d in dicts for k, v in d.items() if isinstance(v, str)}:
        numbers = [float(v) for d in dicts if isinstance(v := d.get(key), int | float)]
        texts = [v for d in dicts if isinstance(v := d.get(key), str)]
        value[key] = statistics.fmean(numbers) if numbers else texts[0]
    return reduced.model_copy(update={"value": value})


@score_reducer(name="epoch_mean")
def epoch_mean() -> ScoreReducer:
    """Mean over a scenario's scored epochs; with two or more, also the standard deviation of
    its overall completion (``epoch_sd``, sample SD) and the number of items whose verdict
    changed between epochs (``flipped_items``). Unscored epochs are left out of the mean; a
    scenario with no scored epoch stays unscored."""
    mean = mean_score()

    def reduce(scores: list[Score]) -> Score:
        return as_stored(with_texts(reduce_figures([every_figure(s) for s in scores]), scores),
                         scores)  # fmt: skip

    def reduce_figures(scores: list[Score]) -> Score:
        reduced = labelled_mean(mean(scores), sum(isinstance(s.value, dict) for s in scores))
        values = [v for s in scores for v in [ScoreValue.read(s.value)] if v is not None]
        value = ScoreValue.read(reduced.value)
        if len(values) < 2 or value is None:
            return tidy(reduced)
        scored = [s for s in scores if ScoreValue.read(s.value) is not None]
        stable = value.model_copy(
            update={
                "epochs": len(values),
                "epoch_sd": statistics.stdev(v.completion("overall") or 0.0 for v in values),
                "flipped_items": flipped_items(scored),
                "unscored_epochs": (len(scores) - len(values)) or None,
            }
        )
        return tidy(reduced.model_copy(update={"value": stable.stored()}))

    return reduce
