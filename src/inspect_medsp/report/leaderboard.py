"""The leaderboard (its text, with the paired "vs #1" column, and ``leaderboard.csv``; the
paper's table is written with it) and the comparison on the scenarios every group scored."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.record import KEYS, MedspSample
from inspect_medsp.report.analysis import Analysis
from inspect_medsp.report.files import Cell, Table, csv_file
from inspect_medsp.report.groups import GroupSummary
from inspect_medsp.report.paper_table import paper_files
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, pct, points, seconds, table, with_ci
from inspect_medsp.scoring import MIN_CASES, case_of, mean_ci
from inspect_medsp.stats import OVERALL, Comparison


def shared_macro(samples: Sequence[MedspSample], ids: set[str]) -> dict[str, float]:
    """Macro over ``ids`` from the samples' score values (epochs averaged per scenario)."""
    out: dict[str, float] = {}
    for key in KEYS:
        per_id: dict[str, list[float]] = defaultdict(list)
        for s in samples:
            if s.scored and s.id in ids and key in s.values:
                per_id[s.id].append(s.values[key])
        values = [sum(v) / len(v) for _, v in sorted(per_id.items())]
        if not values:
            continue
        name = "macro" if key == "overall" else f"{key}_macro"
        out[name] = sum(values) / len(values)
        if key == "overall":
            cases = [case_of(sid) for sid, _ in sorted(per_id.items())]
            out["macro_ci_low"], out["macro_ci_high"] = mean_ci(values, cases)
    return out


def set_ranks(analysis: Analysis) -> list[int]:
    """Each group's rank within its case set (the groups come set by set, best first): runs of
    different sets are ranked apart, each set's best group 1."""
    ranks: list[int] = []
    seen: dict[str, int] = defaultdict(int)
    for g in analysis.groups:
        seen[g.case_set.key] += 1
        ranks.append(seen[g.case_set.key])
    return ranks


def leaderboard(page: Page) -> list[str]:
    analysis = page.analysis
    out = ["## Leaderboard", ""]
    # a set of the user's own cases has no published size: nothing is said of published numbers
    published = any(g.published is not None for g in analysis.groups)
    coverage = (
        "Scenarios scored are of the task's published scenarios; a row that scored fewer is "
        "not comparable with the published numbers. "
        if published
        else ""
    )
    out.append(
        "Ordered by macro completion (the mean over scenarios of the share of rubric items "
        "completed); micro is all completed items over all items (each scenario's epochs "
        "averaged first). Both come with 95% intervals: cluster-robust t over cases "
        "(Student's t on cases - 1 degrees of freedom when the cases are of equal size, fewer "
        f"when a few large cases dominate); with fewer than {MIN_CASES} cases "
        "there is no interval, as none would keep its 95% promise. "
        f"Competency columns are macro completion. {coverage}Time / turn is the median time "
        "the clinician took for a turn: a person's thinking time for a human group, the time "
        "of the model's calls for a model."
    )
    out.append("")
    header = ["#", "Clinician", "Strategy", "Judge", "Scenarios scored", "Macro (95% CI)",
              "Micro (95% CI)", *COMPETENCIES, "Time / turn", "Health"]  # fmt: skip
    marks: dict[str, str] = {}
    for members in _by_set(analysis).values():
        marks.update(leader_marks(analysis.comparisons, [g.label for g in members]))
    if marks:
        header.insert(6, "vs #1 (paired)")
    several = len({g.case_set.key for g in analysis.groups}) > 1
    if several:
        header.insert(1, "Case set")
    rows = []
    for rank, g in zip(set_ranks(analysis), analysis.groups, strict=True):
        m = g.metric
        rows.append(
            [
                str(rank),
                esc(g.label),
                esc(g.strategy),
                esc(g.judge),
                # a set of your own cases says so in the title and the label, not on each row
                g.coverage + ("" if g.comparable or g.case_set.custom else " ⚠ not comparable"),
                with_ci(m("macro"), m("macro_ci_low"), m("macro_ci_high")),
                with_ci(m("micro"), m("micro_ci_low"), m("micro_ci_high")),
                *[pct(m(f"{c}_macro")) for c in COMPETENCIES],
                seconds(g.seconds_per_turn),
                f"⚠ {g.flag_words}" if g.flagged else "ok",
            ]
        )
        if marks:
            rows[-1].insert(6, marks.get(g.label, "not compared"))
        if several:
            rows[-1].insert(1, esc(g.case_set.label))
    out += table(header, rows)
    if several:
        out += [
            "Each case set is ranked apart (# counts from 1 in each set, and vs #1 is that "
            "set's leader): a scenario id of one set is not the same case in another.",
            "",
        ]
    if marks:
        out += [
            '"vs #1 (paired)": the difference from the leader on the scenarios both scored '
            "(see Paired differences); ≈ marks a group whose difference from the leader is not "
            "detectable.",
            "",
        ]
    out += [f"- {esc(n)}" for n in analysis.notes]
    if analysis.notes:
        out.append("")
    return out


def _by_set(analysis: Analysis) -> dict[str, list[GroupSummary]]:
    sets: dict[str, list[GroupSummary]] = defaultdict(list)
    for g in analysis.groups:
        sets[g.case_set.key].append(g)
    return sets


def leader_marks(rows: Sequence[Comparison], groups: Sequence[str]) -> dict[str, str]:
    """The leaderboard's "vs #1" cell per group: the leader, behind by a detectable margin,
    or not detectably different."""
    if len(groups) < 2:
        return {}
    leader = groups[0]
    marks = {leader: "leader"}
    for r in rows:
        if r.competency != OVERALL or r.group_a != leader:
            continue
        if r.paired.cases < 2 or math.isnan(r.p_value):
            marks[r.group_b] = "not testable"
        elif r.detectable:
            marks[r.group_b] = f"{points(r.paired.difference)} pts"
        else:
            marks[r.group_b] = f"≈ not detectably different ({points(r.paired.difference)} pts)"
    return marks


def comparison(page: Page) -> list[str]:
    analysis = page.analysis
    out = ["## Comparison on shared scenarios", ""]
    n = len(analysis.shared_ids)
    compared = [g for g in analysis.groups if g.label not in analysis.left_out]
    if analysis.left_out:
        out += [
            "Left out, as nothing of theirs was scored (see the health of the runs): "
            + "; ".join(esc(label) for label in analysis.left_out)
            + ".",
            "",
        ]
    if len(compared) < 2:
        what = "group" if not analysis.left_out else "group with scored scenarios"
        out += [f"Only {len(compared)} {what}: nothing to compare.", ""]
        return out
    if len({g.case_set.key for g in compared}) > 1:
        out += [
            "The groups ran different case sets: a scenario id of one set is not the same case "
            "in another, so no scenario is shared across sets. The leaderboard ranks each set "
            "apart, and the paired differences compare groups of the same set only.",
            "",
        ]
        return out
    same = len({frozenset(g.scored_ids) for g in compared}) == 1
    scenarios = f"{n} scenario{'' if n == 1 else 's'}"
    if same:
        out.append(f"All {len(compared)} groups scored the same {scenarios}.")
    else:
        out.append(
            f"The groups scored different scenario sets; {scenarios} "
            f"{'was' if n == 1 else 'were'} scored by all {len(compared)} groups, "
            "and only those are compared here."
        )
    out.append(
        "Macro below is computed over the shared scenarios from the per-sample score values "
        "(mean of per-scenario completion, the scorer's case-clustered t interval), so it can "
        "differ from the leaderboard, which covers each run's own scenarios."
    )
    out.append("")
    if n == 0:
        out += ["No scenario was scored by every group.", ""]
        return out
    header = ["Clinician", "Shared scenarios", "Macro (95% CI)", *COMPETENCIES]
    rows = []
    for g in compared:
        s = g.shared
        rows.append(
            [
                esc(g.label),
                str(n),
                with_ci(s.get("macro"), s.get("macro_ci_low"), s.get("macro_ci_high")),
                *[pct(s.get(f"{c}_macro")) for c in COMPETENCIES],
            ]
        )
    out += table(header, rows)
    return out


def leaderboard_table(analysis: Analysis) -> Table:
    metrics = ["macro", "macro_ci_low", "macro_ci_high", "micro", "micro_ci_low", "micro_ci_high"]
    comps = [f"{c}_macro" for c in COMPETENCIES]
    shared = ["shared_macro", "shared_macro_ci_low", "shared_macro_ci_high"]
    columns = [
        "rank", "group", "case_set", "case_set_kind", "case_set_revision", "clinician",
        "clinician_kind", "strategy", "protocol", "judge", "logs", "scenarios_scored",
        "published_scenarios", "comparable", "not_comparable_because", "samples_errored",
        "samples_unscored", *metrics, *comps, "metrics_source", "shared_scenarios", *shared,
        "health_flagged", "seconds_per_turn",
    ]  # fmt: skip
    rows: list[list[Cell]] = []
    for rank, g in zip(set_ranks(analysis), analysis.groups, strict=True):
        rows.append(
            [
                rank, g.label, g.case_set.label, g.case_set.kind, g.case_set.revision,
                g.clinician, "human" if g.human else "model", g.strategy, g.protocol, g.judge,
                len(g.runs), len(g.scored_ids), g.published, g.comparable, g.not_comparable,
                sum(s.error is not None for s in g.samples),
                sum(s.unscored is not None for s in g.samples),
                *[g.metric(m) for m in metrics], *[g.metric(c) for c in comps], g.source,
                len(analysis.shared_by_set.get(g.case_set.key, []))
                if g.label not in analysis.left_out
                else 0,
                *[g.shared.get(m.removeprefix("shared_")) for m in shared], g.flagged,
                g.seconds_per_turn,
            ]
        )  # fmt: skip
    return Table(name="leaderboard", columns=columns, rows=rows)


LEADERBOARD = Section(
    name="leaderboard",
    text=leaderboard,
    files=lambda a: [csv_file(leaderboard_table(a), 10), *paper_files(a)],
)
SHARED_SCENARIOS = Section(name="shared scenarios", text=comparison)
