"""The paired differences in words: one sentence per pair, a table per competency and the
method (the leaderboard's mark for groups not told apart from the leader is the core's)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.report import points
from inspect_medsp.scoring import MIN_CASES, TOO_FEW
from inspect_medsp.stats import (
    EXACT_CASES,
    NO_POWER,
    NO_SPREAD,
    NOT_DETECTABLE,
    OVERALL,
    PERMUTATIONS,
    SIMULATED_CASES,
    TOO_FEW_CASES,
    Comparison,
)

CHART_DIFFERENCES = "differences.png"

ROUGH_MDD_CASES = 15
"""Below this many cases an ``mdd`` is said to be a rough guide: it rests on the spread of so
few cases that a true difference of its size is found less often than 80%."""
OWN_MDD_POWER: dict[int, float] = {6: 0.27, 8: 0.63, 10: 0.68, 15: 0.66}
"""The lowest power measured at a printed ``mdd`` (in the true difference's direction) by case
count, over three simulations: the tuning one (``python -m bench.coverage_bench``, "power at
each run's own mdd": 59%, 74%, 77% and 72% at 6, 8, 10 and 15 cases) and the two written blind
(``python -m bench.heldout_checks --only mdd [--simulation heldout_simulation2]``: at the mean
printed ``mdd`` in each direction and at each pair's own; set 1, 150 pairs: 27-60% at 6 cases,
71-80% at 8, 72-85% at 10, 77-81% at 12; set 2, 60 pairs: 39-62% at 6, 63-72% at 8, 68-82% at
10, 66-85% at 12). A comparison below :data:`ROUGH_MDD_CASES` cases prints the figure of the
nearest count at or above its own. docs/statistics.md has the tables."""


def own_power(cases: int) -> float:
    """The measured power at a printed ``mdd`` for ``cases`` cases (see
    :data:`OWN_MDD_POWER`); NaN from :data:`ROUGH_MDD_CASES` cases up."""
    if cases >= ROUGH_MDD_CASES:
        return math.nan
    return next((OWN_MDD_POWER[n] for n in sorted(OWN_MDD_POWER) if n >= cases), math.nan)


FEWEST_CASES = MIN_CASES
"""Below this many cases there is no interval and no ``mdd`` (and the exact two-sided
permutation test cannot reach p < 0.05)."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def p_text(row: Comparison) -> str:
    """``p = 0.012`` (``p < 0.001`` when smaller), saying when Holm-adjusted."""
    if math.isnan(row.p_value):
        return "p n/a"
    shown = "p < 0.001" if row.p_value < 0.001 else f"p = {row.p_value:.3f}"
    return f"{shown}, Holm-adjusted over {row.family_size}" if row.corrected else shown


def interval_text(row: Comparison) -> str:
    """``[-7.0, -1.2]``, or why there is none."""
    d = row.paired
    if math.isnan(d.ci_low):
        return f"(no interval: {TOO_FEW})"
    clipped = " (clipped to what a difference can be)" if d.clipped else ""
    return f"[{points(d.ci_low)}, {points(d.ci_high)}]{clipped}"


def detect_text(row: Comparison) -> str:
    """What the comparison could detect, or why that cannot be said."""
    d = row.paired
    if row.mdd_note == NOT_DETECTABLE:
        zero = d.cases - d.nonzero_cases
        zeros = f", {zero} of them with no difference at all" if zero else ""
        holm_part = f" after Holm over {row.family_size}" if row.corrected else ""
        return (
            f"no difference is detectable with this design: with {d.cases} cases{zeros}, "
            f"the smallest p-value the test can reach{holm_part} is {row.reachable_p:.3f}"
        )
    if row.mdd_note == NO_SPREAD:
        return (
            "the paired differences do not vary between cases, so what this comparison "
            "could detect cannot be estimated"
        )
    if row.mdd_note == NO_POWER:
        level = f"5% over {row.family_size}" if row.corrected else "5%"
        return (
            f"at {level} this design's test finds no true difference with 80% power, so what "
            "it could detect is not given"
        )
    if row.mdd_note == TOO_FEW_CASES or math.isnan(d.mdd):
        return f"with fewer than {FEWEST_CASES} cases what it could detect is not estimated"
    if d.cases < ROUGH_MDD_CASES:
        power = own_power(d.cases)
        return (
            f"this comparison can detect {points(d.mdd)} points in either direction (80% "
            f"power if its {d.cases} cases are typical of the next {d.cases}; worked out from "
            f"fewer than {ROUGH_MDD_CASES} cases that is a rough guide: in simulation a true "
            f"difference of this size, either way, is found as little as {power:.0%} of the "
            "time)"
        )
    return f"this comparison can detect {points(d.mdd)} points (80% power)"


def sentence(row: Comparison, name_a: str, name_b: str) -> str:
    """One plain sentence on ``b - a``: who is ahead and by how much, or that no difference is
    detectable and what the comparison could have detected (or that it could detect none)."""
    d = row.paired
    over = f"over {_plural(d.scenarios, 'shared scenario')} from {_plural(d.cases, 'case')}"
    if d.cases < 2:
        return (
            f"{name_b} vs {name_a}: {points(row.paired.difference)} points {over}; one case says "
            "nothing about case-to-case spread, so no interval or test."
        )
    if row.detectable:
        ahead, behind = (name_a, name_b) if row.paired.difference < 0 else (name_b, name_a)
        size = abs(row.paired.difference)
        low, high = sorted((abs(row.paired.ci_low), abs(row.paired.ci_high)))
        return (
            f"{ahead} is ahead of {behind} by {points(size)} points [{points(low)}, "
            f"{points(high)}] ({p_text(row)}) {over}."
        )
    d = row.paired
    excludes = not math.isnan(d.ci_low) and (d.ci_low > 0 or d.ci_high < 0)
    unadjusted = (
        f" The 95% interval leaves out 0 but is not adjusted for the {row.family_size} "
        "comparisons of its family; after Holm the difference is not detectable."
        if excludes and row.corrected
        else ""
    )
    return (
        f"{name_b} vs {name_a}: no difference detectable: {points(d.difference)} points "
        f"{interval_text(row)} ({p_text(row)}) {over}; {detect_text(row)}.{unadjusted}"
    )


def cell(row: Comparison | None) -> str:
    """``-4.1 [-7.0, -1.2] ✱`` (✱: detectable) for the per-competency table."""
    if row is None:
        return "n/a"
    mark = " ✱" if row.detectable else ""
    d = row.paired
    if math.isnan(d.ci_low):
        return f"{points(d.difference)} (no interval: < {FEWEST_CASES} cases){mark}"
    clipped = " (clipped)" if d.clipped else ""
    return f"{points(d.difference)} [{points(d.ci_low)}, {points(d.ci_high)}]{clipped}{mark}"


def differences_markdown(
    rows: Sequence[Comparison],
    groups: Sequence[str],
    escape: Callable[[str], str],
    charts: bool = True,
) -> list[str]:
    """The report section "Paired differences" (``groups`` in leaderboard order; ``escape``
    makes a label safe for Markdown)."""
    out = ["## Paired differences", ""]
    if len(groups) < 2:
        return [*out, "Only one group: nothing to compare.", ""]
    overall = [r for r in rows if r.competency == OVERALL]
    if not overall:
        return [*out, "No two groups scored a scenario in common: nothing to compare.", ""]
    n_pairs = len(overall)
    method = (
        "Each pair of groups is compared on the scenarios both scored, each run's epochs "
        "averaged per scenario: the difference is b - a in macro completion (percentage "
        "points). Cases are the unit (scenarios of one case are not independent), and two "
        "tests ask whether the difference is 0: a paired permutation test (the sign of each "
        f"case's summed difference flipped at random, {PERMUTATIONS:,} times; every sign "
        f"pattern when there are at most {EXACT_CASES} cases; where a Holm step needs a "
        "smaller p-value than the random flips resolve, the exact sign-flip distribution, "
        "computed on a fine lattice) and a cluster-robust t test "
        "(Student's t on cases - 1 degrees of freedom, fewer when a few large cases "
        "dominate). The p-value is the larger of the two, "
        "and the 95% interval joins the two tests' inverted intervals, so before any "
        "correction a difference is detectable (p < 0.05) exactly when its interval leaves "
        "out 0 (interval ends in double precision, ties counted alike by both); an interval "
        "end beyond -100 or 100 points is clipped there and said to be; the intervals are "
        "not adjusted for multiplicity, so a Holm-corrected row "
        "whose interval leaves out 0 can still be not detectable. With fewer than "
        f'{MIN_CASES} cases there is no interval. "Can detect" is the minimum detectable '
        "difference (mdd): the true difference this comparison finds with 80% power. Up to "
        f"{SIMULATED_CASES} cases it is simulated with the test itself: comparisons drawn "
        "from the observed cases (whole cases, centred, shifted by the true difference) are "
        "tested, each with its mirror image, and mdd is the smallest shift detected in its "
        "own direction in 80% of them (the same whichever group is a, and the same power "
        "either way); above, it comes from "
        "the case-to-case spread of the paired differences and t quantiles on the t test's "
        "degrees of freedom. It is left out when no difference is detectable with this design (the "
        "smallest p-value the test can reach, after Holm and with cases of no difference "
        "counting for nothing, is 0.05 or more) or when the differences do not vary. "
        + (
            f"Multiplicity: the overall rows are the primary comparison, Holm-corrected over "
            f"the {n_pairs} pairs; "
            if n_pairs > 1
            else "Multiplicity: the overall row is the primary comparison (one pair: no "
            "correction); "
        )
        + "the competency rows are Holm-corrected together, over every competency and pair, "
        "and their mdd is at the level Holm's first step asks (5% over the family's size)."
    )
    out += [method, ""]
    names = {g: f"**{escape(g)}**" for g in groups}
    out += [f"- {sentence(r, names[r.group_a], names[r.group_b])}" for r in overall]
    out.append("")
    if charts:
        out += [f"![Paired differences b - a per pair and competency]({CHART_DIFFERENCES})", ""]
    found = {(r.group_a, r.group_b, r.competency): r for r in rows}
    keys = [OVERALL, *[c for c in COMPETENCIES if any(r.competency == c for r in rows)]]
    header = ["b vs a", *[("Overall" if k == OVERALL else k) for k in keys]]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in overall:
        cells = [cell(found.get((r.group_a, r.group_b, k))) for k in keys]
        lines.append(f"| {escape(r.group_b)} vs {escape(r.group_a)} | " + " | ".join(cells) + " |")
    out += [
        "Difference b - a in points with its 95% interval, per competency (✱: detectable; "
        "competency stars are Holm-corrected over every competency and pair, the intervals "
        "are not, so a competency interval that leaves out 0 may carry no ✱; all numbers in "
        "comparisons.csv):",
        "",
        *lines,
        "",
    ]
    return out
