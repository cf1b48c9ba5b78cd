"""Time of the task metrics on a full-benchmark-sized run.

Usage (from the repository root): ``python -m bench.metrics_bench [--scenarios 1638]``

Builds synthetic scores shaped like the real benchmark (1,638 scenarios over 613 cases, each
rubric with 4-30 items spread over the competencies, some without MK or PBLI) and times the
summary metric the task reports (``medsp_summary``, run at every interim refresh) and the full
``macro`` and ``micro`` breakdowns (intervals for every competency) that the report uses.
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
from inspect_medsp.scoring.metrics import macro, medsp_summary, micro, score_value

CASES = 613


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


if __name__ == "__main__":
    main()
