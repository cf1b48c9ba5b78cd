"""A probe's reply measured against its truth, the same way for the probe and its control,
and the rule that says the probe is above the control."""

from __future__ import annotations

from inspect_medsp.contamination.probes import Asked, ProbePair
from inspect_medsp.contamination.result import ProbeOutcome
from inspect_medsp.contamination.settings import ProbeSettings
from inspect_medsp.contamination.text import (
    first_number,
    items_recalled,
    longest_common_run,
    ngram_overlap,
    reply_lines,
    words,
)


def _continuation(asked: list[Asked], n: int) -> tuple[float, float]:
    reply = words(asked[0].reply or "")
    truth = asked[0].truth
    return float(longest_common_run(reply, truth)), ngram_overlap(reply, truth, n)


def _checklist(asked: list[Asked], share: float) -> float:
    found = items_recalled(reply_lines(asked[0].reply or ""), asked[0].truth, share)
    return sum(found) / len(found) if found else 0.0


def _slot(asked: list[Asked]) -> float:
    exact = [first_number(a.reply or "") == a.truth[0] for a in asked]
    return sum(exact) / len(exact) if exact else 0.0


def outcome(pair: ProbePair, settings: ProbeSettings) -> ProbeOutcome:
    """``pair``'s probe and control measured, and whether the probe is above the control."""
    if pair.kind == "continuation":
        run, overlap = _continuation(pair.probe, settings.ngram)
        control_run, control_overlap = _continuation(pair.control, settings.ngram)
        above = (
            run - control_run >= settings.run_margin
            and overlap - control_overlap >= settings.ngram_margin
        )
        n = len(pair.probe[0].truth)
        shown = (
            f"{run:.0f} of {n} words in a row as written (control {control_run:.0f}), "
            f"{settings.ngram}-gram overlap {overlap:.2f} (control {control_overlap:.2f})"
        )
        return ProbeOutcome(
            name=pair.name,
            kind=pair.kind,
            measure=run,
            control=control_run,
            overlap=overlap,
            control_overlap=control_overlap,
            above=above,
            shown=shown,
        )
    if pair.kind == "checklist":
        measure = _checklist(pair.probe, settings.item_share)
        control = _checklist(pair.control, settings.item_share)
        above = measure > control and measure - control >= settings.checklist_margin
        n = len(pair.probe[0].truth)
        shown = (
            f"{round(measure * n)} of {n} items recalled (control "
            f"{round(control * len(pair.control[0].truth))})"
        )
    else:
        measure = _slot(pair.probe)
        control = _slot(pair.control)
        above = measure > control and measure - control >= settings.slot_margin
        n = len(pair.probe)
        shown = f"{round(measure * n)} of {n} values exact (control {round(control * n)})"
    return ProbeOutcome(
        name=pair.name, kind=pair.kind, measure=measure, control=control, above=above, shown=shown
    )
