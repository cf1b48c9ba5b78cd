"""How ``inspect view`` shows a MedSP run, made from the capabilities: their headlines in the
samples grid, every score column labelled and coloured the way its capability says is good.

The sample's header lists a sample's scores in the order the log holds them (the eval's
scorers, then each ``inspect score --action append`` in turn) under their value keys; Inspect
0.3.285 takes neither labels nor units for it (``SampleScoreView`` sets only the view and a
sort by name or value). So the grid follows the header: its score columns come in the order a
run writes them (:func:`header_order`: the rubric, the capabilities the eval can run, then
those only ``inspect score`` adds, each in the registry's order), and each is headed by the
value key the header shows, with its unit (or, for a column without one, its label) in
parentheses.

Inspect's viewer (0.3.285) makes a column of every key of a score's value, shown whatever the
configuration says, so a score's value holds its headlines alone and every other figure sits
in its metadata (``figures``), where the report, ``MedspColumns`` and the Scoring tab read
it: the demo shows 4 score columns (the rubric's completion and the work-up's three), 10
with the audit's two and the four probes (:data:`MAX_SCORE_COLUMNS` bounds them).

Inspect stores this configuration in the log (``eval.viewer``) and changes nothing else: the
score values, metrics and metadata are the same with or without it. Every task variant, and a
task built on a custom case set, passes :func:`medsp_viewer` of the registry's capabilities to
``Task(viewer=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.viewer import (
    SampleScoreView,
    ScoreColorScale,
    TaskSamplesColumn,
    TaskSamplesView,
    ViewerConfig,
)

from inspect_medsp.measure.capability import Capability, Column

RESCORES_LISTED = 3
"""Re-scores (``<scorer>1`` ... ``<scorer>3``) whose columns are listed, hidden, so they do
not crowd the grid; a later one shows as Inspect shows any column it is not told about."""

MAX_SCORE_COLUMNS = 12
"""At most this many score columns in the samples grid of a run with every shipped capability
(before re-scores): the rubric's one, the audit's two, the probes' four and the work-up's three
make ten."""


def heading(column: Column) -> str:
    """The grid's heading of a score column: the value key the sample's header shows, then its
    unit (``cost (price-table units, ...)``), or its label for a column without a unit
    (``recital_up (Recital ✗→✓)``); the key alone when the unit is its own name (``orders``)."""
    if column.unit == column.key:
        return column.key
    return f"{column.key} ({column.unit or column.label})"


def header_order(capabilities: Sequence[Capability]) -> list[Capability]:
    """The capabilities in the order a run's log holds their scores (the sample header's
    order): the first (the rubric, always in the eval), those the eval can run (``in_eval``:
    the audit under ``-T audit=true``, the work-up), then those only ``inspect score`` adds,
    each group in the order given."""
    first = list(capabilities[:1])
    rest = capabilities[1:]
    return (
        first
        + [cap for cap in rest if cap.in_eval is not None]
        + [cap for cap in rest if cap.in_eval is None]
    )


def _labels(capabilities: Sequence[Capability]) -> dict[str, str]:
    labels = {c.key: heading(c) for cap in capabilities for c in cap.columns}
    for n in range(1, RESCORES_LISTED + 1):
        for cap in capabilities:
            if cap.rescore:
                labels |= {
                    f"{c.key}_{n}": f"{c.key}_{n} ({cap.rescore} {n}: {c.unit or c.label})"
                    for c in cap.columns
                }
    return labels


def score_columns(capabilities: Sequence[Capability]) -> list[TaskSamplesColumn]:
    """Every MedSP score column: each capability's headlines (the only keys its score value
    holds; every other figure is in its metadata), then a re-score's, listed hidden."""
    headlines = [
        TaskSamplesColumn.score(cap.name, key) for cap in capabilities for key in cap.headlines
    ]
    return headlines + [
        TaskSamplesColumn.score(f"{cap.name}{n}", f"{key}_{n}", visible=False)
        for n in range(1, RESCORES_LISTED + 1)
        for cap in capabilities
        if cap.rescore
        for key in cap.headlines
    ]


def _color_scales(capabilities: Sequence[Capability]) -> dict[str, ScoreColorScale]:
    return {
        c.key: ScoreColorScale(palette=c.palette, min=c.low, max=c.high)
        for cap in capabilities
        for c in cap.columns
        if c.palette is not None
    }


def medsp_viewer(capabilities: Sequence[Capability]) -> ViewerConfig:
    """The viewer configuration of a MedSP task whose scores are ``capabilities``'."""
    capabilities = header_order(capabilities)
    return ViewerConfig(
        task_samples_view=TaskSamplesView(
            name="MedSP",
            columns=[
                TaskSamplesColumn(id="sampleId"),
                # no target (a TARGET column reads as an answer key); the title leads the input
                TaskSamplesColumn(id="target", visible=False),
                TaskSamplesColumn(id="epoch"),
                TaskSamplesColumn(id="input"),
                TaskSamplesColumn(id="answer"),
                *score_columns(capabilities),
                TaskSamplesColumn(id="tokens"),
                TaskSamplesColumn(id="duration"),
            ],
            compact_scores=False,
            score_labels=_labels(capabilities),
            score_color_scales=_color_scales(capabilities),
            color_scales_enabled=True,
        ),
        # no sort: the header keeps the log's order, which the grid's columns follow
        sample_score_view=SampleScoreView(default="grid"),
    )
