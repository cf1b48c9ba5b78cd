"""Time of the task metrics on a full-benchmark-sized run.

Usage (from the repository root): ``python -m bench.metrics_bench [--scenarios 1638]``

Builds synthetic scores shaped like the real benchmark (1,638 scenarios over 613 cases, each
rubric with 4-30 items spread over the competencies, some without MK or PBLI) and times the
summary metric the task reports (``medsp_summary``, run at every interim refresh) and the full
``macro`` and ``micro`` breakdowns (intervals for every competency) that the report uses.
It also times the report's paired comparison (:func:`~inspect_medsp.stats.pairs.pairwise`)
of 5 groups over 1,548 scenarios from 613 cases: every pair, overall and per competency, with
bootstrap intervals, permutation p-values, Holm and ``mdd``.
The best of several runs is printed, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import cast

from inspect_ai.scorer import Metric, SampleScore, Score, Value

from inspect_medsp.data.models import COMPETENCIES
from inspect_medsp.record.read import MedspSample, MedspScore, SampleMetadata
from inspect_medsp.record.score import ScoreMetadata, ScoreValue
from inspect_medsp.scoring.metrics import macro, medsp_summary, micro, score_value
from inspect_medsp.stats.pairs import pairwise

CASES = 613
GROUPS = 5
SCORED = 1548


def synthetic_scores(n: int, seed: int = 0) -> list[SampleScore]:
    """``n`` scored scenarios spread over :data:`CASES` cases."""
    rng = random.Random(seed)
    scores: list[SampleScore] = []
    for i in range(n):
        counts: dict[str, tuple[int, int]] = {}
        for competency in COMPETENCIES:
            if competency in ("MK", "PBLI", "PROF") and rng.random() < 0.5:
                continue
            total = rng.randint(1, 8)
            counts[competency] = (rng.randint(0, total), total)
        counts["overall"] = (
            sum(c for c, _ in counts.values()),
            sum(t for _, t in counts.values()),
        )
        sample_id = f"case_{i % CASES}/scenario{i // CASES + 1}"
        scores.append(SampleScore(score=Score(value=score_value(counts)), sample_id=sample_id))
    return scores


def best_ms(metric: Metric, scores: list[SampleScore], repeats: int) -> float:
    """The fastest of ``repeats`` calls, in milliseconds."""
    fn = cast(Callable[[list[SampleScore]], Value], metric)
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(scores)
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def synthetic_groups(
    groups: int, n: int, seed: int = 0
) -> list[tuple[str, list[MedspSample]]]:
    """``groups`` runs over the same ``n`` scenarios (same rubrics, so the same competencies
    per scenario), each completing its own share of the items, as the report holds them."""
    rng = random.Random(seed)
    shapes = synthetic_scores(n, seed)
    out: list[tuple[str, list[MedspSample]]] = []
    for g in range(groups):
        samples = []
        for score in shapes:
            value = score.score.value
            assert isinstance(value, dict)
            counts: dict[str, tuple[int, int]] = {}
            for key in COMPETENCIES:
                if f"{key}_total" in value:
                    total = int(value[f"{key}_total"])
                    counts[key] = (rng.randint(0, total), total)
            counts["overall"] = (
                sum(c for c, _ in counts.values()),
                sum(t for _, t in counts.values()),
            )
            sid = str(score.sample_id)
            samples.append(
                MedspSample(
                    id=sid,
                    metadata=SampleMetadata(case_id=sid.split("/")[0]),
                    score=MedspScore(value=ScoreValue.of(counts), metadata=ScoreMetadata()),
                )
            )
        out.append((f"model-{g}", samples))
    return out


def best_pairwise_ms(groups: list[tuple[str, list[MedspSample]]], repeats: int) -> float:
    """The fastest of ``repeats`` full pairwise comparisons, in milliseconds."""
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        pairwise(groups)
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=1638)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    scores = synthetic_scores(args.scenarios)
    print(f"{args.scenarios} synthetic scenario scores over {CASES} cases")
    metrics = {"medsp_summary": medsp_summary(), "macro": macro(), "micro": micro()}
    for name, metric in metrics.items():
        print(f"{name:>14}: {best_ms(metric, scores, args.repeats):7.1f} ms")
    groups = synthetic_groups(GROUPS, SCORED)
    start = time.perf_counter()
    pairwise(groups)
    first = (time.perf_counter() - start) * 1000
    print(
        f"{'pairwise':>14}: {best_pairwise_ms(groups, args.repeats):7.1f} ms "
        f"({GROUPS} groups, {SCORED} scenarios, {CASES} cases; first call {first:.1f} ms)"
    )


if __name__ == "__main__":
    main()
