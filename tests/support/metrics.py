"""A log's full metrics (macro and micro with intervals, overall and per competency), checked
against the short summary the log itself carries."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import pytest
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.scorer import Metric, SampleScore, Score, Value

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.scoring.metrics import macro, micro


def scored(sample: EvalSample, scorer: str = "medsp_rubric") -> Score:
    """The sample's score from ``scorer`` (the sample must have been scored)."""
    assert sample.scores is not None, f"sample {sample.id} has no scores"
    return sample.scores[scorer]


def compute(metric: Metric, scores: list[SampleScore]) -> dict[str, float]:
    """Call a metric the way Inspect does, on sample scores."""
    result = cast(Callable[[list[SampleScore]], Value], metric)(scores)
    assert isinstance(result, dict)
    return {key: float(value) for key, value in result.items()}


def summary_of(log: EvalLog) -> dict[str, float]:
    """The log's own metrics: the short summary shown in the terminal and the viewer."""
    assert log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def metrics_of(log: EvalLog) -> dict[str, float]:
    """Macro and micro with intervals, overall and per competency, over the log's scored
    samples (one epoch); the log's own summary must agree with them."""
    assert log.samples is not None
    scores = [
        SampleScore(score=s.scores["medsp_rubric"], sample_id=s.id)
        for s in log.samples
        if s.scores and isinstance(s.scores["medsp_rubric"].value, dict)
    ]
    full = {**compute(macro(), scores), **compute(micro(), scores)}
    summary = summary_of(log)
    assert summary["scenarios"] == len(scores)
    for name in ("macro", "macro_ci_low", "macro_ci_high", "micro"):
        # NaN: too few cases for an interval, in both
        assert summary[name] == pytest.approx(full[name], rel=0, abs=0, nan_ok=True), name
    shown = {k for k in summary if k in COMPETENCIES}
    assert shown == {k.removesuffix("_macro") for k in full if k.endswith("_macro")}
    for key in shown:
        assert summary[key] == full[f"{key}_macro"], key
    return full
