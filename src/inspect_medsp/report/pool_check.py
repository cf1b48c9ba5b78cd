"""Whether the logs pooled into one group belong together: the warning the report raises when
they were run with different numbers of epochs, or when their scores disagree beyond noise
(each log against the others, on the scenarios both scored: the report's paired test)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

from inspect_medsp.record import MedspRun
from inspect_medsp.report.text import points
from inspect_medsp.stats import ALPHA, OVERALL, paired_difference, scenario_values


def _epochs(run: MedspRun) -> int:
    """The run's epochs: the most scored epochs of any of its scenarios (0: none scored)."""
    counts = Counter(s.id for s in run.samples if s.scored)
    return max(counts.values(), default=0)


def pooling_warning(label: str, runs: Sequence[MedspRun]) -> str:
    """The warning for a group pooling ``runs`` (empty when they agree and match)."""
    if len(runs) < 2:
        return ""
    problems: list[str] = []
    epochs = {run.name: _epochs(run) for run in runs}
    if len({e for e in epochs.values() if e}) > 1:
        problems.append(
            "were run with different numbers of epochs ("
            + ", ".join(f"{name} {n}" for name, n in epochs.items())
            + ")"
        )
    values = [(run.name, scenario_values(run.samples)) for run in runs]
    for (name_a, a), (name_b, b) in itertools.combinations(values, 2):
        ids = sorted(a.values[OVERALL].keys() & b.values[OVERALL].keys())
        if len(ids) < 2:
            continue
        found = paired_difference(
            [a.values[OVERALL][i] for i in ids],
            [b.values[OVERALL][i] for i in ids],
            [a.cases[i] for i in ids],
        )
        if not math.isnan(found.p_value) and found.p_value < ALPHA:
            problems.append(
                f"disagree beyond noise on the {len(ids)} scenarios both scored: {name_a} "
                f"{found.a:.3f} against {name_b} {found.b:.3f} (difference "
                f"{points(found.difference)} points [{points(found.ci_low)}, "
                f"{points(found.ci_high)}], p = {found.p_value:.3f})"
            )
    if not problems:
        return ""
    return (
        f"{label}: the {len(runs)} logs pooled into this group {'; and '.join(problems)}. "
        "Its numbers mix them: give the logs separately, or find out why they differ."
    )
