"""How ``inspect view`` shows a MedSP run, made from the capabilities: their headlines in the
samples grid, the rest one click away (the "Columns" menu), every score column labelled and
coloured the way its capability says is good.

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

MAX_VISIBLE_SCORES = 12
"""At most this many score columns are visible before the reader asks for more (the rubric's
one, the audit's two, the probes' four and the work-up's three: ten)."""


def _labels(capabilities: Sequence[Capability]) -> dict[str, str]:
    labels = {c.key: c.label for cap in capabilities for c in cap.columns}
    for n in range(1, RESCORES_LISTED + 1):
        for cap in capabilities:
            if cap.rescore:
                labels |= {f"{c.key}_{n}": f"{cap.rescore} {n}: {c.label}" for c in cap.columns}
    return labels


def score_columns(capabilities: Sequence[Capability]) -> list[TaskSamplesColumn]:
    """Every MedSP score column: the headlines visible, every other hidden."""
    headlines = [(cap.name, key) for cap in capabilities for key in cap.headlines]
    everything = [(cap.name, key) for cap in capabilities for key in cap.keys]
    for n in range(1, RESCORES_LISTED + 1):
        everything += [
            (f"{cap.name}{n}", f"{key}_{n}")
            for cap in capabilities
            if cap.rescore
            for key in cap.keys
        ]
    shown = set(headlines)
    return [TaskSamplesColumn.score(scorer, key) for scorer, key in headlines] + [
        TaskSamplesColumn.score(scorer, key, visible=False)
        for scorer, key in everything
        if (scorer, key) not in shown
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
                TaskSamplesColumn(id="target"),  # the scenario's title (see data/dataset.py)
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
