"""The coverage bench's rows for the plan's ranges and the grader-agreement interval
(``python -m bench.coverage_bench`` prints them after its main table).

- **Plan.** Pilot pairs (model A, and B about 3 points better) of Q100's shape or the full
  set's, drawn with the coverage bench's item model, go through the plan's own range
  functions (``half_width_range``, ``pair_ranges``); the truth is the plan's projection at the
  model's true spread (``bench.synthetic_logs.plan_truth``). The 10th-90th percentile range
  should hold it 80% of the time.
- **Agreement.** Two graders grade the same items; each flips an item's verdict with a chance
  that varies by case and by item (logit-normal around 5%). The agreement share and its 95%
  interval (``agreement.kappa.agreement``) are checked against the expected share over the
  population of cases and items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from bench.item_model import FULL_SIZES, Q100_SIZES, Model, expand
from bench.synthetic_logs import (
    Population,
    draw_population,
    logit_gap,
    majority,
    plan_truth,
    votes,
)
from inspect_medsp.agreement.kappa import agreement
from inspect_medsp.comparisons.plan_report import half_width_range, pair_ranges
from inspect_medsp.record.read import MedspSample, MedspScore, SampleMetadata
from inspect_medsp.record.score import ScoreMetadata, ScoreValue


class Row(NamedTuple):
    statistic: str
    design: str
    replicates: int
    nominal: float
    coverage: float
    note: str = ""


def _samples(pop: Population, model_votes: Sequence[np.ndarray]) -> list[MedspSample]:
    out = []
    for sid, case, v in zip(pop.ids, pop.cases, model_votes, strict=True):
        met = majority(v)[0]
        value = ScoreValue.of({"overall": (int(met.sum()), len(met))})
        out.append(
            MedspSample(
                id=sid,
                metadata=SampleMetadata(case_id=case),
                score=MedspScore(value=value, metadata=ScoreMetadata()),
            )
        )
    return out


def plan_rows(pilots: int, full_pilots: int, seed: int = 80) -> list[Row]:
    """Coverage of the plan's half-width range (model A) and mdd range (the pair, one epoch)."""
    m = Model()
    shift = logit_gap(m, 3.0)
    truth = plan_truth(m, 0.0, shift)
    rng = np.random.default_rng(seed)
    rows = []
    for design, sizes, n in (
        ("Q100's shape", expand(Q100_SIZES), pilots),
        ("full set's shape", expand(FULL_SIZES), full_pilots),
    ):
        width_in = mdd_in = 0
        for _ in range(n):
            pop = draw_population(sizes, rng, m)
            a = _samples(pop, votes(pop, 0.0, rng, m))
            b = _samples(pop, votes(pop, shift, rng, m))
            width = half_width_range(a, 1)
            mdds, _ = pair_ranges(a, b, 0.03)
            if width is None or 1 not in mdds:
                continue
            width_in += width[0] <= truth.half_width <= width[1]
            mdd_in += mdds[1][0] <= truth.mdd <= mdds[1][1]
        note = f"truth {truth.half_width * 100:.2f} points"
        rows.append(Row("plan: full-set half-width range", design, n, 0.8, width_in / n, note))
        note = f"truth {truth.mdd * 100:.2f} points"
        rows.append(Row("plan: full-set mdd range (pair)", design, n, 0.8, mdd_in / n, note))
    return rows


def _flip_chances(pop: Population, rng: np.random.Generator) -> list[np.ndarray]:
    n_cases = int(pop.case_of.max()) + 1
    case = rng.normal(0, 0.5, n_cases)
    return [
        1 / (1 + np.exp(-(math.log(0.05 / 0.95) + case[pop.case_of[i]] + rng.normal(0, 0.8, k))))
        for i, k in enumerate(pop.items)
    ]


def agreement_truth(m: Model, draws: int = 40, seed: int = 5) -> float:
    """The expected agreement share of two graders over the population of cases and items."""
    rng = np.random.default_rng(seed)
    shares = []
    for _ in range(draws):
        pop = draw_population(expand(FULL_SIZES), rng, m)
        f = np.concatenate(_flip_chances(pop, rng))
        shares.append(float(np.mean(1 - 2 * f * (1 - f))))
    return float(np.mean(shares))


def agreement_rows(replicates: int, seed: int = 81) -> list[Row]:
    """Coverage of the agreement share's 95% interval at few cases and at Q100's shape."""
    m = Model()
    truth = agreement_truth(m)
    full = expand(FULL_SIZES)
    rng = np.random.default_rng(seed)
    rows = []
    for design in ("6 cases", "10 cases", "15 cases", "30 cases", "Q100's shape"):
        covered = given = 0
        for _ in range(replicates):
            q100 = design == "Q100's shape"
            sizes = expand(Q100_SIZES) if q100 else rng.choice(full, int(design.split()[0]))
            pop = draw_population(sizes, rng, m)
            chances = np.concatenate(_flip_chances(pop, rng))
            verdict = rng.random(len(chances)) < 0.6
            first = verdict ^ (rng.random(len(chances)) < chances)
            second = verdict ^ (rng.random(len(chances)) < chances)
            cases = [pop.cases[i] for i, k in enumerate(pop.items) for _ in range(k)]
            found = agreement(np.stack([first, second], axis=1).astype(int), cases)
            low, high = found.agreement_ci
            if math.isnan(low):
                continue
            given += 1
            covered += low <= truth <= high
        rows.append(
            Row(
                "grader agreement share",
                design,
                given,
                0.95,
                covered / given if given else math.nan,
                f"truth {truth:.3f}",
            )
        )
    return rows


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| statistic | design | replicates | nominal | coverage | |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.statistic} | {r.design} | {r.replicates:,} | {r.nominal:.0%} | "
            f"{r.coverage:.1%} | {r.note} |"
        )
    return "\n".join(lines)
