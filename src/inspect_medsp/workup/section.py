"""The report's section "The work-up": cost per encounter per group with its case-clustered
interval, completion against cost (a frontier plot), the curve of items met by turn, the
share of orders not asked for by the rubric, the most common unsupported orders, the paired
cost differences, and its CSV files (``workup.csv``, ``workup_orders.csv``)."""

from __future__ import annotations

import math
from pathlib import Path

from inspect_medsp.report import Analysis, Cell, Page, ReportFile, Section, Table, csv_file
from inspect_medsp.workup.result import Workup
from inspect_medsp.workup.summary import (
    GroupWorkup,
    common_unsupported,
    cost_differences,
    group_rows,
    worked_up,
)

FRONTIER = "workup_frontier.png"
CURVE = "workup_curve.png"

MEANING = (
    "Costs come from the price table named below. The shipped table is relative tiers by "
    "category (a tier of 4 is about twice a tier of 2), not a bill a hospital pays; bring "
    "your own prices with `inspect score LOG --scorer inspect_medsp/medsp_workup -S "
    "prices=FILE --action append --overwrite`. An order the category table cannot place is "
    "uncategorised and unpriced, so a cost with uncategorised orders is a lower bound. An "
    'order "not asked for by the rubric" is one linked to no met rubric item, by the words '
    "of the order and the item (and the grader's quote when it gives one; see "
    "docs/workup.md): the rubric did not ask for it, which is not the same as wrong. Orders "
    "whose link cannot be decided are left out of the share, and an encounter's share is "
    "withheld when fewer than 80% of its orders could be decided."
)


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _cost(row: GroupWorkup) -> str:
    if row.cost_low is None or row.cost_high is None:
        return f"{_num(row.cost)} (no interval: {row.cases} case(s), fewer than 6)"
    return f"{_num(row.cost)} ({_num(row.cost_low)} to {_num(row.cost_high)})"


def _differences(analysis: Analysis) -> list[str]:
    """The paired differences of cost per encounter between groups, as a table."""
    differences = cost_differences(analysis)
    if not differences:
        return []
    out = ["", "Paired differences of cost per encounter (b - a, the scenarios both "
           "worked up; p Holm-adjusted over the pairs):", "",
           "| a | b | scenarios | cases | difference (95% CI) | p (Holm) | mdd |",
           "|---|---|---|---|---|---|---|"]  # fmt: skip
    for d in differences:
        p = d.paired
        interval = f"{_num(p.difference)} ({_num(p.ci_low)} to {_num(p.ci_high)})"
        out.append(f"| {d.group_a} | {d.group_b} | {p.scenarios} | {p.cases} | "
                   f"{interval} | {_num(d.p_holm, 3)} | {_num(p.mdd)} |")  # fmt: skip
    return out


def workup_text(page: Page) -> list[str]:
    """The section's Markdown."""
    analysis = page.analysis
    rows = group_rows(analysis)
    tables = sorted({w.prices for g in analysis.groups for _, w in worked_up(g.samples)})
    currencies = sorted({r.currency for r in rows})
    out = ["## The work-up", "", MEANING, ""]
    out += [f"Price table: {', '.join(tables)}; costs in {', '.join(currencies)}.", ""]
    if len(currencies) > 1:
        out += ["**The groups were priced in different currencies: their costs do not "
                "compare.**", ""]  # fmt: skip
    out += [
        "| group | encounters | cost per encounter (95% CI) | uncategorised | orders per "
        "encounter | not asked for by the rubric (of decided orders) | undecided | "
        "unsupported | unpriced | tokens per encounter | completion (macro) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        share = r.not_asked_share
        asked = (
            r.share_withheld or "-"
            if share is None
            else f"{r.not_asked_for} of {r.judged_orders} ({share:.0%})"
        )
        tokens = "-" if r.tokens is None else f"{r.tokens:,.0f}"
        lower = " (lower bound)" if r.uncategorised else ""
        out.append(
            f"| {r.label} | {r.encounters} | {_cost(r)}{lower} | {r.uncategorised} of "
            f"{r.orders_total} ({r.uncategorised_share:.0%}) | {r.orders:.1f} | {asked} | "
            f"{r.undecided} | {r.unsupported} | {r.unpriced} | {tokens} | "
            f"{_num(r.completion, 3)} |"
        )
    out.append("")
    for r in rows:
        linked = ", ".join(f"{n} by {k}" for k, n in sorted(r.linked_by.items())) or "none"
        placed = ", ".join(f"{n} by {k}" for k, n in sorted(r.items_placed.items())) or "none"
        out.append(
            f"- {r.label}: orders linked to a met item: {linked}; {r.undecided} undecided"
            + (f"; share withheld in {r.withheld} encounter(s)" if r.withheld else "")
            + f". Met items placed in a turn: {sum(r.items_placed.values())} of "
            f"{r.items_met} ({placed})"
            + (f"; curve withheld in {r.curves_withheld} encounter(s)" if r.curves_withheld else "")
            + "."
        )
    out.append("")
    for r in rows:
        if r.missing:
            out.append(f"- {r.label}: {r.missing} sample(s) without a work-up (see "
                       "`workup_orders.csv` for those with one).")  # fmt: skip
    for group in analysis.groups:
        for sample in group.samples:
            why = sample.result_unscored(Workup)
            if why is not None:
                out.append(f"- {group.label}, {sample.id}: not worked up ({why})")
    if page.charts:
        out += [
            "",
            f"![Completion against the cost of the work-up, one point per group]({FRONTIER})",
            "",
            f"![Share of rubric items met by the end of each turn, per group]({CURVE})",
            "",
            "Each met item is on the curve at the turn the grader's quote, an order that "
            "serves it or the clinician's words place it; an item nothing places counts "
            "from the last turn only (counts above).",
        ]
    out += _differences(analysis)
    common = common_unsupported(analysis)
    if common:
        out += ["", "Most common orders the environment could not carry out:", ""]
        out += [f"- {order} ({n})" for order, n in common]
    return [*out, ""]


def group_table(analysis: Analysis) -> Table:
    """``workup.csv``: one row per group."""
    columns = [
        "group", "encounters", "without_workup", "currency", "cost_per_encounter",
        "cost_ci_low", "cost_ci_high", "cases", "orders_per_encounter", "not_asked_for",
        "decided_orders", "not_asked_for_share", "share_withheld", "undecided_orders",
        "uncategorised", "unsupported", "unpriced",
        "tokens_per_encounter", "macro_completion", *[f"items_met_turn_{t}" for t in
                                                       range(1, 1 + max(
            (len(r.curve) for r in group_rows(analysis)), default=0))],
    ]  # fmt: skip
    rows: list[list[Cell]] = []
    for r in group_rows(analysis):
        width = len(columns) - 19
        curve: list[Cell] = [*r.curve, *[None] * (width - len(r.curve))]
        rows.append([
            r.label, r.encounters, r.missing, r.currency, r.cost, r.cost_low, r.cost_high,
            r.cases, r.orders, r.not_asked_for, r.judged_orders, r.not_asked_share,
            r.share_withheld, r.undecided, r.uncategorised,
            r.unsupported, r.unpriced, r.tokens, r.completion, *curve,
        ])  # fmt: skip
    return Table(name="workup", columns=columns, rows=rows)


def order_table(analysis: Analysis) -> Table:
    """``workup_orders.csv``: one row per order of every worked-up encounter."""
    columns = [
        "group", "scenario", "epoch", "turn", "order", "reading", "category",
        "category_source", "cost", "currency", "priced_by", "status", "cited_by_items",
        "serves_items", "linked_by", "necessity", "pending_at_end",
    ]  # fmt: skip
    rows: list[list[Cell]] = []
    for group in analysis.groups:
        for sample, result in worked_up(group.samples):
            for o in result.orders:
                cited = " ".join(str(n) for n in o.cited_by)
                rows.append([
                    group.label, sample.id, sample.epoch, o.turn, o.order, o.reading,
                    o.category, o.category_source, o.cost, result.currency, o.priced_by,
                    o.status, cited, " ".join(str(n) for n in o.serves), "+".join(o.linked_by),
                    o.necessity, o.pending_at_end,
                ])  # fmt: skip
    return Table(name="workup_orders", columns=columns, rows=rows)


def _frontier(analysis: Analysis, path: Path) -> Path:
    from inspect_medsp.workup.figures import frontier_chart

    return frontier_chart(analysis, group_rows(analysis), path)


def _curve(analysis: Analysis, path: Path) -> Path:
    from inspect_medsp.workup.figures import curve_chart

    return curve_chart(analysis, group_rows(analysis), path)


def workup_files(analysis: Analysis) -> list[ReportFile]:
    """The section's charts and CSV files (only when some group has a work-up)."""
    if not group_rows(analysis):
        return []
    return [
        ReportFile(name=FRONTIER, kind="chart", rank=900, write=lambda p: _frontier(analysis, p)),
        ReportFile(name=CURVE, kind="chart", rank=901, write=lambda p: _curve(analysis, p)),
        csv_file(group_table(analysis), rank=900),
        csv_file(order_table(analysis), rank=901),
    ]


WORKUP = Section(
    name="workup",
    shows=lambda analysis: bool(group_rows(analysis)),
    text=workup_text,
    files=workup_files,
)
"""The report's section "The work-up"."""
