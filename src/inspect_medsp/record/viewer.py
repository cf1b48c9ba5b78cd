"""How ``inspect view`` shows a MedSP run: one headline per scorer in the samples grid, the rest
one click away (the "Columns" menu), every score column labelled; and each grading of a
scorer named in the transcript's outline (:func:`grading`).

Inspect stores this configuration in the log (``eval.viewer``) and changes nothing else: the
score values, metrics and metadata are the same with or without it. Every task variant, and a
task built on a custom case set, passes :data:`MEDSP_VIEWER` to ``Task(viewer=...)``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from inspect_ai.util import store, subtask
from inspect_ai.viewer import (
    SampleScoreView,
    ScoreColorScale,
    TaskSamplesColumn,
    TaskSamplesView,
    ViewerConfig,
)

from inspect_medsp.record.audit import AUDIT_KEYS, AUDIT_SCORER
from inspect_medsp.record.probes import PROBE_KEYS, PROBE_SCORER, PROBES
from inspect_medsp.record.score import KEYS, SCORER, ScoreValue, Verdict

GRADING_TYPE = "grading"
"""Type of a grading inside a MedSP scorer ("rubric grading", "simulation audit", "probe:
baseline", "probe: removal", ...): the ``type`` of its subtask event."""

T = TypeVar("T")


async def grading(
    name: str,
    work: Callable[[], Awaitable[T]],
    about: Mapping[str, str],
    outcome: Callable[[T], str],
) -> T:
    """Run one grading of a MedSP scorer as an Inspect subtask named ``name``: a span of type
    ``subtask`` holding a subtask event (type :data:`GRADING_TYPE`, input ``about``, output
    ``outcome`` of the result) and the grader's calls.

    Inspect's viewer (0.3.285) builds a sample's scoring phase from its events alone, dropping
    every span inside the ``scorers`` span (the scorer's own, named after it, too); the
    subtask event is an event, so it stays, and the transcript outline shows it as a row of
    this name above the grader's calls, the transcript as a "Subtask: <name>" panel. The
    subtask shares the sample's store, and an error of ``work`` reaches the caller as it was
    raised (the subtask event then says it failed)."""
    results: list[T] = []
    errors: list[Exception] = []

    async def run() -> str:
        try:
            results.append(await work())
        except Exception as err:  # raised again below, in the scorer's own task
            errors.append(err)
            return f"failed ({type(err).__name__})"
        return outcome(results[0])

    await subtask(name, store=store(), type=GRADING_TYPE, input=dict(about))(run)()
    if errors:
        raise errors[0]
    return results[0]


def items_met(verdicts: Sequence[Verdict]) -> str:
    """What a grading found, as its subtask's output: "12 of 17 items met"."""
    return f"{sum(v.met for v in verdicts)} of {len(verdicts)} items met"


RESCORES_LISTED = 3
"""Re-scores (``<scorer>1`` ... ``<scorer>3``) whose columns are listed, hidden, so they do
not crowd the grid; a later one shows as Inspect shows any column it is not told about."""

HEADLINES: tuple[tuple[str, str, str], ...] = (
    (SCORER, "overall", "Completion"),
    (AUDIT_SCORER, "findings", "Audit findings"),
    (AUDIT_SCORER, "invalidating", "Audit invalidating"),
    (PROBE_SCORER, "recital_up", "Recital ✗→✓"),
    (PROBE_SCORER, "injection_up", "Injection ✗→✓"),
    (PROBE_SCORER, "padding_down", "Padding ✓→✗"),
    (PROBE_SCORER, "removal_down", "Removal ✓→✗"),
)
"""The score columns shown by default: ``(scorer, value key, label)``. A run shows those of
the scorers it has (the audit with ``-T audit=true``, the probes once appended)."""

MAX_VISIBLE_SCORES = 8
"""At most this many score columns are visible before the reader asks for more."""

_RUBRIC_EXTRA_LABELS = {
    "context_exhausted": "Clinician window full (1 = yes)",
    "refused_turns": "Clinician turns refused",
    "epochs": "Epochs scored",
    "epoch_sd": "SD of completion over epochs",
    "flipped_items": "Items flipped between epochs",
    "unscored_epochs": "Epochs not scored",
}

_AUDIT_LABELS = {
    "invalidating": "Audit invalidating",
    "flagged": "Audit flagged",
    "findings": "Audit findings",
    "patient_findings": "Audit: patient findings",
    "environment_findings": "Audit: environment findings",
    "invalidating_findings": "Audit: invalidating findings",
    "corrections": "State-rule corrections",
    "unsupported_actions": "Unsupported actions",
    "degraded_replies": "Degraded replies",
}

_PROBE_PARTS = {"up": "✗→✓", "down": "✓→✗", "items": "items re-graded"}


def rubric_keys() -> list[str]:
    """Every key a rubric score value can have, in the order the value stores them."""
    return list(ScoreValue.model_fields)


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
    return _RUBRIC_EXTRA_LABELS.get(key, key)


def probe_label(key: str) -> str:
    """The column label of a probe value key (``removal_down`` → ``Removal ✓→✗``)."""
    probe, _, part = key.rpartition("_")
    return f"{probe.capitalize()} {_PROBE_PARTS[part]}"


def _labels() -> dict[str, str]:
    labels = {key: rubric_label(key) for key in rubric_keys()}
    labels |= _AUDIT_LABELS
    labels |= {key: probe_label(key) for key in PROBE_KEYS}
    for n in range(1, RESCORES_LISTED + 1):
        labels |= {f"{key}_{n}": f"Re-audit {n}: {_AUDIT_LABELS[key]}" for key in AUDIT_KEYS}
        labels |= {f"{key}_{n}": f"Re-probe {n}: {probe_label(key)}" for key in PROBE_KEYS}
    return labels


def score_columns() -> list[TaskSamplesColumn]:
    """Every MedSP score column: the :data:`HEADLINES` visible, every other hidden."""
    shown = {(scorer, key) for scorer, key, _ in HEADLINES}
    everything = [(SCORER, key) for key in rubric_keys()]
    everything += [(AUDIT_SCORER, key) for key in AUDIT_KEYS]
    everything += [(PROBE_SCORER, key) for key in PROBE_KEYS]
    for n in range(1, RESCORES_LISTED + 1):
        everything += [(f"{AUDIT_SCORER}{n}", f"{key}_{n}") for key in AUDIT_KEYS]
        everything += [(f"{PROBE_SCORER}{n}", f"{key}_{n}") for key in PROBE_KEYS]
    headlines = [TaskSamplesColumn.score(scorer, key) for scorer, key, _ in HEADLINES]
    rest = [
        TaskSamplesColumn.score(scorer, key, visible=False)
        for scorer, key in everything
        if (scorer, key) not in shown
    ]
    return headlines + rest


def _color_scales() -> dict[str, ScoreColorScale]:
    scales = {"overall": ScoreColorScale(palette="good-high", min=0, max=1)}
    scales |= {k: ScoreColorScale(palette="good-high", min=0, max=1) for k in KEYS[1:]}
    scales["findings"] = ScoreColorScale(palette="good-low", min=0)
    scales["invalidating"] = ScoreColorScale(palette="good-low", min=0, max=1)
    scales |= {
        f"{probe}_{part}": ScoreColorScale(palette="good-low", min=0)
        for probe in PROBES
        for part in ("up", "down")
    }
    return scales


def medsp_viewer() -> ViewerConfig:
    """The viewer configuration of every MedSP task."""
    return ViewerConfig(
        task_samples_view=TaskSamplesView(
            name="MedSP",
            columns=[
                TaskSamplesColumn(id="sampleId"),
                TaskSamplesColumn(id="target"),  # the scenario's title (see data/dataset.py)
                TaskSamplesColumn(id="epoch"),
                TaskSamplesColumn(id="input"),
                TaskSamplesColumn(id="answer"),
                *score_columns(),
                TaskSamplesColumn(id="tokens"),
                TaskSamplesColumn(id="duration"),
            ],
            compact_scores=False,
            score_labels=_labels(),
            score_color_scales=_color_scales(),
            color_scales_enabled=True,
        ),
        sample_score_view=SampleScoreView(default="grid"),
    )


MEDSP_VIEWER = medsp_viewer()
"""The one :class:`ViewerConfig` of the MedSP tasks."""
