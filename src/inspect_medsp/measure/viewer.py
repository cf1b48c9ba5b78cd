"""How ``inspect view`` shows a MedSP run, made from the capabilities: their headlines in the
samples grid, every score column labelled and coloured the way its capability says is good.

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

from inspect_medsp.measure.capability import Capability

RESCORES_LISTED = 3
"""Re-scores (``<scorer>1`` ... ``<scorer>3``) whose columns are listed, hidden, so they do
not crowd the grid; a later one shows as Inspect shows any column it is not told about."""

MAX_SCORE_COLUMNS = 12
"""At most this many score columns in the samples grid of a run with every shipped capability
(before re-scores): the rubric's one, the audit's two, the probes' four and the work-up's three
make ten."""


def _labels(capabilities: Sequence[Capability]) -> dict[str, str]:
    labels = {c.key: c.heading for cap in capabilities for c in cap.columns}
    for n in range(1, RESCORES_LISTED + 1):
        for cap in capabilities:
            if cap.rescore:
                labels |= {f"{c.key}_{n}": f"{cap.rescore} {n}: {c.label}" for c in cap.columns}
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
        sample_score_view=SampleScoreView(default="grid"),
    )
