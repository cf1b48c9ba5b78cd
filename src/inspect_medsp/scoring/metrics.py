"""MedSP metrics: macro (the paper's headline) and micro completion, with bootstrap CIs.

Each metric returns a mapping, which Inspect shows as one entry per key: ``macro``,
``macro_ci_low``, ``macro_ci_high`` and ``<COMP>_macro...`` for each competency present
(likewise ``micro``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from inspect_ai.scorer import Metric, SampleScore, metric

from inspect_medsp.data.models import COMPETENCIES

T = TypeVar("T")

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 1638
KEYS: tuple[str, ...] = ("overall", *COMPETENCIES)


def _counts(score: SampleScore, key: str) -> tuple[int, int] | None:
    counts = (score.score.metadata or {}).get("counts", {}).get(key)
    if not counts:
        return None
    return int(counts["completed"]), int(counts["total"])


def macro_value(rows: Sequence[tuple[int, int]]) -> float:
    """Mean of per-scenario completion."""
    return sum(c / t for c, t in rows) / len(rows)


def micro_value(rows: Sequence[tuple[int, int]]) -> float:
    """All completed items over all items."""
    return sum(c for c, _ in rows) / sum(t for _, t in rows)


def bootstrap_ci(
    rows: Sequence[T],
    statistic: Callable[[Sequence[T]], float],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """95% percentile interval of ``statistic`` over scenarios resampled with replacement."""
    rng = random.Random(seed)
    n = len(rows)
    values = sorted(statistic([rows[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    return values[int(0.025 * (resamples - 1))], values[round(0.975 * (resamples - 1))]


def completion_summary(
    rows_by_key: Mapping[str, Sequence[tuple[int, int]]], kind: str
) -> dict[str, float]:
    """``macro`` or ``micro`` with its interval, overall and per competency.

    Args:
        rows_by_key: ``(completed, total)`` per scenario, under ``overall`` and each
            competency (a scenario appears under a competency only if its rubric has it).
        kind: ``macro`` or ``micro``.
    """
    fn = macro_value if kind == "macro" else micro_value
    out: dict[str, float] = {}
    for key in KEYS:
        rows = rows_by_key.get(key)
        if not rows:
            continue
        name = kind if key == "overall" else f"{key}_{kind}"
        low, high = bootstrap_ci(rows, fn)
        out[name] = fn(rows)
        out[f"{name}_ci_low"] = low
        out[f"{name}_ci_high"] = high
    return out


def _summary(scores: list[SampleScore], kind: str) -> dict[str, float]:
    rows = {key: [c for s in scores if (c := _counts(s, key)) is not None] for key in KEYS}
    return completion_summary(rows, kind)


@metric
def macro() -> Metric:
    """Mean per-scenario completion (the paper's headline), overall and per competency; a
    competency is averaged only over scenarios whose rubric has it."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _summary(scores, "macro")

    return compute


@metric
def micro() -> Metric:
    """All completed items over all items, overall and per competency."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _summary(scores, "micro")

    return compute
