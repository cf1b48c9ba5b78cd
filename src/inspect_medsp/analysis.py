"""Columns for Inspect's ``samples_df``: one typed column per MedSP score key.

```python
from inspect_ai.analysis import SampleSummary, samples_df
from inspect_medsp.analysis import MedspColumns

df = samples_df("logs/", columns=SampleSummary + MedspColumns)
df.groupby("model")[["medsp_overall", "medsp_PC", "medsp_MK"]].mean()
```

Every column is read from the sample summaries (no full sample is loaded) as the typed
record the report reads (``record.read.summary_sample``: a ``MedspSample``), so it is the
score the log holds: ``medsp_overall`` and
``medsp_PC`` ... ``medsp_PROF`` (completion; empty where the rubric lacks the competency or
the sample is unscored), ``medsp_<key>_completed`` and ``medsp_<key>_total`` (item counts),
``medsp_unscored`` (why the sample has no score, empty when scored), ``medsp_end`` (how the
encounter ended), ``medsp_turns``, ``medsp_grader`` (the model that graded) and
``medsp_specialty``; and for every other registered capability (``measures.capabilities()``)
one column per value key of its newest score, ``medsp_<name>_<key>`` with the scorer's name
less its ``medsp_`` (``medsp_simulation_audit_findings``, ``medsp_grader_probe_removal_down``;
empty where the scorer did not run or could not score the sample). pandas and pyarrow come
with the ``analysis`` extra (``pip install "inspect-medsp[analysis]"``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from inspect_ai.analysis import Column, SampleColumn
from inspect_ai.log import EvalSample, EvalSampleSummary

from inspect_medsp.measure import Capability
from inspect_medsp.measures import capabilities
from inspect_medsp.record import KEYS, SCORER, figures_of, latest, summary_sample, unnumbered

PREFIX = "medsp_"
"""The prefix of every MedSP column."""

Sample = EvalSampleSummary | EvalSample


def _completion(key: str) -> Callable[[Sample], float | None]:
    def read(sample: Sample) -> float | None:
        return summary_sample(sample).values.get(key)

    return read


def _count(key: str, which: int) -> Callable[[Sample], int | None]:
    def read(sample: Sample) -> int | None:
        counts = summary_sample(sample).counts.get(key)
        return counts[which] if counts is not None else None

    return read


def unscored_reason(sample: Sample) -> str:
    """Why the sample has no MedSP score (``encounter_incomplete``, ``grader_failed``,
    ``error`` for a sample that stopped on an error, ``no score``); empty when scored."""
    typed = summary_sample(sample)
    if typed.scored:
        return ""
    if typed.score is not None:
        return str(typed.unscored)
    return "error" if sample.error else "no score"


def _end(sample: Sample) -> str | None:
    return summary_sample(sample).end


def _turns(sample: Sample) -> int | None:
    return summary_sample(sample).turns


def _grader(sample: Sample) -> str | None:
    return summary_sample(sample).grader


def _specialty(sample: Sample) -> str | None:
    return summary_sample(sample).specialty


def _variant(sample: Sample) -> str:
    return summary_sample(sample).metadata.variant


def _measured(capability: Capability, key: str) -> Callable[[Sample], float | None]:
    def read(sample: Sample) -> float | None:
        score = latest(sample.scores or {}, capability.name)
        value = figures_of(score.value, score.metadata) if score is not None else None
        if value is None:
            return None
        got = unnumbered(value, capability.keys).get(key)
        return float(got) if isinstance(got, int | float) and not isinstance(got, bool) else None

    return read


def measured_columns(capabilities: Sequence[Capability]) -> list[Column]:
    """A column per value key of every capability but the rubric's (whose columns are above)."""
    return [
        SampleColumn(
            f"{PREFIX}{c.name.removeprefix(PREFIX)}_{key}",
            path=_measured(c, key),
            type=float,
            full=False,
        )
        for c in capabilities
        if c.name != SCORER
        for key in c.keys
    ]


def medsp_columns() -> list[Column]:
    """The MedSP columns for the capabilities registered now (:data:`MedspColumns` is this,
    made at import)."""
    columns: list[Column] = [
        SampleColumn(f"{PREFIX}{key}", path=_completion(key), type=float, full=False)
        for key in KEYS
    ]
    for key in KEYS:
        columns += [
            SampleColumn(f"{PREFIX}{key}_completed", path=_count(key, 0), type=int, full=False),
            SampleColumn(f"{PREFIX}{key}_total", path=_count(key, 1), type=int, full=False),
        ]
    return [
        *columns,
        SampleColumn(f"{PREFIX}unscored", path=unscored_reason, type=str, full=False),
        SampleColumn(f"{PREFIX}end", path=_end, type=str, full=False),
        SampleColumn(f"{PREFIX}turns", path=_turns, type=int, full=False),
        SampleColumn(f"{PREFIX}grader", path=_grader, type=str, full=False),
        SampleColumn(f"{PREFIX}specialty", path=_specialty, type=str, full=False),
        SampleColumn(f"{PREFIX}variant", path=_variant, type=str, full=False),
        *measured_columns(capabilities()),
    ]


MedspColumns: list[Column] = medsp_columns()
"""The MedSP columns, to add to Inspect's: ``columns=SampleSummary + MedspColumns``."""

__all__ = [
    "MedspColumns",
    "medsp_columns",
    # the function's name (the samples_df column), not the superseded metadata key
    "unscored_reason",  # inspect-evals-lint: ignore[IECQ003] -- a function's name, not a key
]
