"""A probe's reply measured against its truth, the same way for the probe and its control,
and the rule that says the probe is above the control (and the control above the probe, the
same rule the other way round)."""

from __future__ import annotations

from inspect_medsp.contamination.probes import Asked, ProbePair
from inspect_medsp.contamination.result import ProbeOutcome
from inspect_medsp.contamination.settings import ProbeSettings
from inspect_medsp.contamination.text import (
    content_recall,
    first_number,
    items_recalled,
    longest_common_run,
    ngram_overlap,
    reply_lines,
    words,
)


def _continuation(asked: list[Asked], n: int) -> tuple[float, float, float]:
    reply = words(asked[0].reply or "")
    truth = asked[0].truth
    shown = words(asked[0].prompt)
    return (
        float(longest_common_run(reply, truth)),
        ngram_overlap(reply, truth, n),
        content_recall(reply, truth, shown),
    )


def _checklist(asked: list[Asked], share: float) -> float:
    found = items_recalled(reply_lines(asked[0].reply or ""), asked[0].truth, share)
    return sum(found) / len(found) if found else 0.0


def _slot(asked: list[Asked]) -> float:
    exact = [first_number(a.reply or "") == a.truth[0] for a in asked]
    return sum(exact) / len(exact) if exact else 0.0


def _beats(
    first: tuple[float, float, float], second: tuple[float, float, float], s: ProbeSettings
) -> bool:
    """A continuation ``first`` beats ``second``: verbatim (the run and the n-gram overlap
    both by their margins) or in its own words (content-word recall by its margin)."""
    verbatim = first[0] - second[0] >= s.run_margin and first[1] - second[1] >= s.ngram_margin
    return verbatim or first[2] - second[2] >= s.content_margin


def _exceeds(first: float, second: float, margin: float) -> bool:
    return first > second and first - second >= margin


def outcome(pair: ProbePair, settings: ProbeSettings) -> ProbeOutcome:
    """``pair``'s probe and control measured, whether the probe is above the control, and
    whether the control is above the probe by the same rule."""
    if pair.kind == "continuation":
        said = _continuation(pair.probe, settings.ngram)
        other = _continuation(pair.control, settings.ngram)
        n = len(pair.probe[0].truth)
        shown = (
            f"{said[0]:.0f} of {n} words in a row as written (control {other[0]:.0f}), "
            f"{settings.ngram}-gram overlap {said[1]:.2f} (control {other[1]:.2f}), "
            f"content words recalled in any order {said[2]:.2f} (control {other[2]:.2f})"
        )
        return ProbeOutcome(
            name=pair.name,
            kind=pair.kind,
            measure=said[0],
            control=other[0],
            overlap=said[1],
            control_overlap=other[1],
            content=said[2],
            control_content=other[2],
            above=_beats(said, other, settings),
            below=_beats(other, said, settings),
            against=pair.against,
            shown=shown,
        )
    if pair.kind == "checklist":
        measure = _checklist(pair.probe, settings.item_share)
        control = _checklist(pair.control, settings.item_share)
        margin = settings.checklist_margin
        n = len(pair.probe[0].truth)
        shown = (
            f"{round(measure * n)} of {n} items recalled ({pair.against} control "
            f"{round(control * len(pair.control[0].truth))})"
        )
    else:
        measure = _slot(pair.probe)
        control = _slot(pair.control)
        margin = settings.slot_margin
        n = len(pair.probe)
        shown = (
            f"{round(measure * n)} of {n} values exact ({pair.against} control "
            f"{round(control * len(pair.control))})"
        )
    return ProbeOutcome(
        name=pair.name,
        kind=pair.kind,
        measure=measure,
        control=control,
        above=_exceeds(measure, control, margin),
        below=_exceeds(control, measure, margin),
        against=pair.against,
        shown=shown,
    )
