"""The report section "Where the spread comes from": scenario difficulty, encounter-to-encounter
variation (epochs) and grader variation (repeats), per group."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from inspect_medsp.comparisons.spread import VarianceRow
from inspect_medsp.comparisons.variance_split import Components


def _share(parts: Components, part: float) -> str:
    share = parts.share(part)
    return "n/a" if math.isnan(share) else f"{share:.0%}"


def _sd(variance: float) -> str:
    return "n/a" if math.isnan(variance) else f"{math.sqrt(variance) * 100:.1f}"


def _points(low: float, high: float) -> str:
    """An SD (as a fraction) in points: one figure when both ends round alike, else the
    range."""
    a, b = f"{low * 100:.1f}", f"{high * 100:.1f}"
    return f"about {b}" if a == b else f"between {a} and {b}"


def sentence(row: VarianceRow, name: str) -> str:
    """What the split means for reading a difference."""
    v = row.parts
    low, high = row.noise_sd_low, row.noise_sd_macro
    if math.isnan(low):
        low = high
    noise = _points(low, high)
    if not row.encounter_measured:
        grader = f"{_share(v, v.grader)} is grader variation (repeats)"
        pinned = (
            ""
            if noise.startswith("about")
            else f"; a range, as {v.repeats:g} votes per item bound the variance of their "
            "majority but cannot pin it: the truth lies inside (but for the votes' sampling "
            "error), whatever each item's chance of a vote saying met"
        )
        return (
            f"{name}: of the variance of one encounter's completion, {grader}. With one epoch "
            "the encounter-to-encounter variation is not measured: it is inside the rest, so "
            "no share of scenario difficulty is claimed. Re-grading the same "
            f"{v.scenarios} scenarios would move its macro by {noise} points (one SD, from the "
            f"majority vote the score uses{pinned}); re-running them would move it by more, by "
            "an amount only a run with `--epochs 2` or more can tell."
        )
    parts = [f"{_pct(row.scenario_share)} is scenario difficulty"]
    parts.append(f"{_share(v, v.epoch)} encounter-to-encounter variation (epochs)")
    if not math.isnan(v.grader):
        parts.append(f"{_share(v, v.grader)} grader variation (repeats)")
    root2 = math.sqrt(2)
    return (
        f"{name}: of the variance of one encounter's completion, {', '.join(parts)}. Re-running "
        f"the same {v.scenarios} scenarios would move its macro by {noise} points "
        "(one SD) from encounter and grader noise alone, as the score uses them (each "
        "scenario's epochs averaged, each epoch the majority of its grader repeats), and a "
        f"difference between two such runs by {_points(low * root2, high * root2)}."
    )


def _noise_cell(row: VarianceRow) -> str:
    low, high = f"{row.noise_sd_low * 100:.1f}", f"{row.noise_sd_macro * 100:.1f}"
    return high if math.isnan(row.noise_sd_low) or low == high else f"{low} to {high}"


def _pct(share: float) -> str:
    return "n/a" if math.isnan(share) else f"{share:.0%}"


def variance_markdown(rows: Sequence[VarianceRow], escape: Callable[[str], str]) -> list[str]:
    """The section; one sentence per group that has epochs or repeats, a table of all."""
    out = ["## Where the spread comes from", ""]
    split = [r for r in rows if r.split]
    if not split:
        return [
            *out,
            "Each scenario ran once and was graded once, so the spread of per-scenario "
            "completion cannot be split into scenario difficulty, encounter and grader "
            "variation. Run with `--epochs 2` (or more) and/or grade with `-S samples=3` to "
            "see how much of a difference could be sampling or grader noise.",
            "",
        ]
    out += [
        "The variance of per-scenario overall completion split by source (nested "
        "random-effects model, method of moments; a component estimated below 0 is shown as "
        "0): scenario difficulty, encounter-to-encounter variation between epochs, and grader "
        "variation between repeats of one grading. SDs in points; all numbers in "
        "variance.csv. The noise SD of the macro is worked out from what the score uses: the "
        "majority vote of the grader repeats (its variance over a re-grading, item by item) "
        "and each scenario's epochs averaged; with one epoch, encounter noise is not measured, "
        "that SD covers re-grading only, and it is a range: one set of votes per item "
        "bounds the variance of their majority but does not pin it (variance.csv: "
        "noise_sd_macro_low to noise_sd_macro).",
        "",
    ]
    out += [f"- {sentence(r, f'**{escape(r.group)}**')}" for r in split]
    out.append("")
    header = ["Group", "Scenarios", "Epochs", "Repeats", "Scenario SD", "Epoch SD",
              "Grader SD", "Scenario share", "Epoch share", "Grader share",
              "Noise SD of the macro"]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        v = r.parts
        cells = [
            escape(r.group), str(v.scenarios), f"{v.epochs:g}", f"{v.repeats:g}",
            _sd(v.scenario), _sd(v.epoch) if r.encounter_measured else "not measured",
            _sd(v.grader), _pct(r.scenario_share),
            _share(v, v.epoch), _share(v, v.grader), _noise_cell(r),
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return [*out, *lines, ""]
