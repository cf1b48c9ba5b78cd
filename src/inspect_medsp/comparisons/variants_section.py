"""The report's "Does care change with the patient?": each patient variant against the
baseline (the case as published) on the same scenarios, within each leaderboard group.

The paired differences are the report's own (:mod:`inspect_medsp.stats.pairs`): a
scenario's completion under the variant less its completion at baseline, clustered by case,
with the permutation and cluster-robust t tests, the mdd, and Holm's correction in two
families per group (the overall rows over the variants; the competency rows over every
variant and competency). Next to them, the rubric items whose verdict flips between the
baseline encounter and the variant's (epoch by epoch), and, where the work-up ran, the
paired difference in orders and cost per encounter (:mod:`.variants_workup`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel

from inspect_medsp.comparisons.differences_text import FEWEST_CASES, cell, p_text, sentence
from inspect_medsp.comparisons.variants_workup import COST, ORDERS, WorkupPairs, workup_pairs
from inspect_medsp.data import BASELINE, VARIANT_MARK
from inspect_medsp.record import KEYS, MedspSample
from inspect_medsp.report import (
    Analysis,
    Cell,
    Page,
    Section,
    Table,
    csv_file,
    esc,
    finite,
    short,
    table,
)
from inspect_medsp.stats import (
    ALPHA,
    OVERALL,
    Comparison,
    Pairing,
    correct,
    paired_differences,
    scenario_values,
)

MOST_FLIPPED = 10
"""Items listed under "flip most often", per group."""


class Flip(BaseModel):
    """One rubric item of one scenario whose verdict differs between the baseline and a
    variant in some epochs."""

    group: str
    variant: str
    scenario: str
    number: int
    competency: str
    text: str
    down: int
    """Epochs met at baseline and missed under the variant."""
    up: int
    """Epochs missed at baseline and met under the variant."""
    epochs: int
    """Epochs compared (both scored)."""


class VariantView(BaseModel):
    """The section's findings for one group."""

    group: str
    variants: list[str]
    rows: list[Comparison]
    """``variant - baseline``: ``group_a`` is ``baseline``, ``group_b`` the variant."""
    flips: list[Flip]
    workup: WorkupPairs
    """Orders and cost per encounter, ``variant - baseline`` (empty rows: no work-up)."""


def variant_of(sample: MedspSample) -> str:
    """The variant a sample played (``baseline`` when its run had none)."""
    return sample.metadata.variant


def scenario_id(sample: MedspSample) -> str:
    """The scenario a sample played, whatever its variant (its id less ``@<variant>``)."""
    meta = sample.metadata
    if meta.case_id and meta.scenario:
        return f"{meta.case_id}/{meta.scenario}"
    return sample.id.partition(VARIANT_MARK)[0]


def by_variant(samples: Sequence[MedspSample]) -> dict[str, list[MedspSample]]:
    """The samples of each variant, each under its scenario's id (so variants pair)."""
    found: dict[str, list[MedspSample]] = {}
    for s in samples:
        found.setdefault(variant_of(s), []).append(s.model_copy(update={"id": scenario_id(s)}))
    return found


def differences(split: dict[str, list[MedspSample]]) -> list[Comparison]:
    """Every variant against the baseline, overall and per competency, Holm-corrected in
    the two families of the module (rows ordered overall first)."""
    base = scenario_values(split.get(BASELINE, []))
    jobs: list[tuple[str, str]] = []
    pairings: list[Pairing] = []
    for variant, samples in split.items():
        if variant == BASELINE:
            continue
        other = scenario_values(samples)
        for key in KEYS:
            ids = sorted(base.values[key].keys() & other.values[key].keys())
            if ids:
                jobs.append((variant, key))
                pairings.append(
                    Pairing(
                        [base.values[key][i] for i in ids],
                        [other.values[key][i] for i in ids],
                        [base.cases[i] for i in ids],
                    )
                )
    overall = sum(key == OVERALL for _, key in jobs)
    sizes = {True: overall, False: len(jobs) - overall}
    alphas = [ALPHA / max(1, sizes[key == OVERALL]) for _, key in jobs]
    found = paired_differences(pairings, alphas=alphas)
    rows = [
        Comparison(group_a=BASELINE, group_b=variant, competency=key, paired=r, p_value=r.p_value)
        for (variant, key), r in zip(jobs, found, strict=True)
    ]
    correct([r for r in rows if r.competency == OVERALL], "the variants' overall rows")
    correct([r for r in rows if r.competency != OVERALL], "every competency row of every variant")
    order = {key: i for i, key in enumerate(KEYS)}
    return sorted(rows, key=lambda r: order[r.competency])


def flips(group: str, split: dict[str, list[MedspSample]]) -> list[Flip]:
    """The items whose verdict differs between a scenario's baseline encounter and its
    variant encounter of the same epoch, most flips first."""
    base = {(s.id, s.epoch): s for s in split.get(BASELINE, []) if s.scored}
    found: dict[tuple[str, str, int], Flip] = {}
    for variant, samples in split.items():
        if variant == BASELINE:
            continue
        for s in samples:
            b = base.get((s.id, s.epoch))
            if b is None or not s.scored:
                continue
            met = {i.number: i.met for i in b.items}
            for item in s.items:
                if item.number not in met:
                    continue
                key = (variant, s.id, item.number)
                flip = found.setdefault(
                    key,
                    Flip(group=group, variant=variant, scenario=s.id, number=item.number,
                         competency=item.competency, text=item.text, down=0, up=0, epochs=0),
                )  # fmt: skip
                flip.epochs += 1
                if met[item.number] and not item.met:
                    flip.down += 1
                elif item.met and not met[item.number]:
                    flip.up += 1
    flipped = [f for f in found.values() if f.down or f.up]
    return sorted(flipped, key=lambda f: (-(f.down + f.up), f.variant, f.scenario, f.number))


def views(analysis: Analysis) -> list[VariantView]:
    """The section's findings, for each group that ran a variant besides the baseline."""
    out: list[VariantView] = []
    for g in analysis.groups:
        split = by_variant([*g.samples, *g.variant_samples])
        variants = [v for v in split if v != BASELINE]
        if not variants:
            continue
        out.append(
            VariantView(
                group=g.label,
                variants=variants,
                rows=differences(split),
                flips=flips(g.label, split),
                workup=workup_pairs(split),
            )
        )
    return out


def _verdict(row: Comparison) -> str:
    """One plain sentence on a variant's overall difference."""
    said = sentence(row, BASELINE, row.group_b)
    if row.detectable:
        way = "lower" if row.paired.difference < 0 else "higher"
        return f"**Care changed** with {row.group_b}: completion is {way}. {said}"
    return said


def markdown(page: Page) -> list[str]:
    """The section's text."""
    found = views(page.analysis)
    lines = [
        "## Does care change with the patient?",
        "",
        "Each patient variant against `baseline` (the case as published) on the same "
        "scenarios: the paired difference of completion (variant - baseline, in points), "
        "clustered by case, with its 95% interval, p-value and what the design can detect "
        "(mdd); p-values are Holm-adjusted over the variants (overall) and over every "
        "variant and competency. The rubric and the environment are the same for every "
        "variant. (The leaderboard and every other section read the baseline encounters "
        "alone; the variants are compared here only.)",
        "",
    ]
    if not found:
        return [*lines, "No run here played a variant besides the baseline.", ""]
    for view in found:
        lines += [f"### {esc(view.group)}", ""]
        overall = [r for r in view.rows if r.competency == OVERALL]
        lines += [f"- {_verdict(r)}" for r in overall]
        missing = [v for v in view.variants if v not in {r.group_b for r in overall}]
        lines += [
            f"- {esc(v)}: no scenario was scored both at baseline and under it; nothing to pair."
            for v in missing
        ]
        lines.append("")
        keys = [k for k in KEYS if k != OVERALL]
        cells = {(r.group_b, r.competency): r for r in view.rows}
        body = [
            [esc(r.group_b), cell(r), p_text(r), *(cell(cells.get((r.group_b, k))) for k in keys)]
            for r in overall
        ]
        lines += table(["variant", "overall", "p", *keys], body)
        lines.append(
            "✱: told apart from 0 at 5% after Holm. A competency shows n/a when its rubrics "
            "have no items in these scenarios."
        )
        lines.append("")
        counts = {
            v: sum(f.down + f.up for f in view.flips if f.variant == v) for v in view.variants
        }
        lines.append(
            "Items flipped (verdict differs from the baseline encounter of the same epoch): "
            + "; ".join(f"{esc(v)} {n}" for v, n in counts.items())
            + "."
        )
        lines.append("")
        if view.flips:
            lines += table(
                ["variant", "scenario", "item", "met → missed", "missed → met"],
                [
                    [esc(f.variant), esc(f.scenario),
                     f"{f.competency} {f.number}: {esc(short(f.text, 90))}",
                     f"{f.down} of {f.epochs}", f"{f.up} of {f.epochs}"]
                    for f in view.flips[:MOST_FLIPPED]
                ],
            )  # fmt: skip
        lines += _workup_lines(view)
    return lines


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.2f}"


def _workup_cell(row: Comparison | None) -> str:
    """``+1.50 [0.20, 2.80] ✱, p = 0.012, mdd 1.10`` for the work-up table."""
    if row is None:
        return "n/a"
    d = row.paired
    mark = " ✱" if row.detectable else ""
    interval = f"(no interval: < {FEWEST_CASES} cases)" if math.isnan(d.ci_low) else (
        f"[{_number(d.ci_low)}, {_number(d.ci_high)}]")  # fmt: skip
    mdd = f"mdd {abs(d.mdd):.2f}" if not math.isnan(d.mdd) else f"mdd {row.mdd_note}"
    return f"{_number(d.difference)} {interval}{mark}, {p_text(row)}, {mdd}"


def _workup_lines(view: VariantView) -> list[str]:
    """The work-up's paired differences, and the encounters that had no work-up result."""
    pairs = view.workup
    lines: list[str] = []
    missing = {v: n for v, n in pairs.without.items() if n}
    if not pairs.rows and not missing:
        return lines
    lines += [
        "Work-up (variant - baseline per encounter, on the scenarios worked up under both; "
        "p Holm-adjusted over the variants, one family for orders and one for cost):",
        "",
    ]
    if pairs.rows:
        cells = {(r.group_b, r.competency): r for r in pairs.rows}
        named = list(dict.fromkeys(r.group_b for r in pairs.rows))
        currency = ", ".join(pairs.currencies)
        lines += table(
            ["variant", "scenarios", "orders per encounter", f"cost per encounter ({currency})"],
            [
                [esc(v), str(cells[(v, ORDERS)].paired.scenarios),
                 _workup_cell(cells.get((v, ORDERS))), _workup_cell(cells.get((v, COST)))]
                for v in named
            ],
        )  # fmt: skip
        if len(pairs.currencies) > 1:
            lines += ["**The encounters were priced in different currencies: the cost "
                      "differences do not compare.**", ""]  # fmt: skip
    else:
        lines += ["No scenario was worked up both at baseline and under a variant; nothing "
                  "to pair.", ""]  # fmt: skip
    if missing:
        lines += [
            "Encounters without a work-up result (a log from before the work-up, "
            "`-T workup=false`, or not scored), left out of these pairs and never counted as "
            "0: "
            + "; ".join(f"{esc(v)} {n} of {pairs.encounters[v]}" for v, n in missing.items())
            + ".",
            "",
        ]
    return lines


WORKUP_COLUMNS = [
    f"{m}_{k}" for m in (ORDERS, COST)
    for k in ("scenarios", "baseline", "variant_value", "difference", "ci_low", "ci_high",
              "p_value", "mdd")
] + ["cost_currency", "without_workup"]  # fmt: skip
"""``variants.csv``'s work-up columns (filled on the overall rows)."""


def _workup_cells(view: VariantView, row: Comparison) -> list[Cell]:
    if row.competency != OVERALL:
        return [None] * len(WORKUP_COLUMNS)
    cells: list[Cell] = []
    found = {(r.group_b, r.competency): r for r in view.workup.rows}
    for measure in (ORDERS, COST):
        w = found.get((row.group_b, measure))
        if w is None:
            cells += [None] * 8
            continue
        d = w.paired
        cells += [d.scenarios, d.a, d.b, d.difference, finite(d.ci_low), finite(d.ci_high),
                  finite(w.p_value), finite(d.mdd)]  # fmt: skip
    return [*cells, ", ".join(view.workup.currencies), view.workup.without.get(row.group_b, 0)]


def variant_table(analysis: Analysis) -> Table:
    """Each variant against the baseline, per group, overall and per competency
    (``difference = variant - baseline``; ``p_value`` Holm-adjusted in ``holm_family``,
    ``p_raw`` not; ``mdd`` empty when ``mdd_note`` says why), with the items flipped; the
    overall rows carry the work-up's paired differences in orders and cost per encounter
    (``orders_*``, ``cost_*``; empty without a work-up on both sides) and the encounters of
    the variant without a work-up result (``without_workup``)."""
    columns = ["group", "variant", "competency", "scenarios", "cases", "baseline",
               "variant_value", "difference", "ci_low", "ci_high", "p_value", "mdd", "p_raw",
               "holm_family", "mdd_note", "items_flipped_down", "items_flipped_up",
               *WORKUP_COLUMNS]  # fmt: skip
    rows: list[list[Cell]] = []
    for view in views(analysis):
        for c in view.rows:
            d = c.paired
            mine = [f for f in view.flips if f.variant == c.group_b]
            if c.competency != OVERALL:
                mine = [f for f in mine if f.competency == c.competency]
            rows.append(
                [view.group, c.group_b, c.competency, d.scenarios, d.cases, d.a, d.b,
                 d.difference, finite(d.ci_low), finite(d.ci_high), finite(c.p_value),
                 finite(d.mdd), finite(d.p_value), c.family, c.mdd_note,
                 sum(f.down for f in mine), sum(f.up for f in mine),
                 *_workup_cells(view, c)]
            )  # fmt: skip
    return Table(name="variants", columns=columns, rows=rows)


def _shows(analysis: Analysis) -> bool:
    return any(g.variant_samples for g in analysis.groups)


VARIANTS = Section(
    name="patient variants",
    shows=_shows,
    text=markdown,
    # written only for runs with variants, so the report of any other run is unchanged
    files=lambda a: [csv_file(variant_table(a), 85)] if _shows(a) else [],
)
"""The section, registered in ``full_report.py`` after the paired differences."""
