"""The text of the core's sections (see ``core_sections.py``): the head, the leaderboard, the
comparison on shared scenarios, the profile, gaps, the paper's views, the health of the runs
and the Files list."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from inspect_medsp.data import COMPETENCIES, COMPETENCY_NAMES, sets_named
from inspect_medsp.record import CLINICIAN, ROLE_NAMES, MedspSample
from inspect_medsp.report.files import (
    CHART_BREAKDOWNS,
    CHART_COMPETENCIES,
    CHART_DISTRIBUTION,
    CHART_RADAR,
    CHART_SPECIALTIES,
    CHART_STRATEGY,
    CHART_TOKENS,
)
from inspect_medsp.report.findings import Analysis, RunHealth
from inspect_medsp.report.section import Page, listed
from inspect_medsp.report.text import esc, pct, points, seconds, short, table, with_ci
from inspect_medsp.report.views import SMALL_SPECIALTY, Breakdown, TokenBin, bin_ranges
from inspect_medsp.scoring import MIN_CASES
from inspect_medsp.stats import OVERALL, Comparison

TOP_MISSED = 10
"""Most-missed items listed per group in the text (the CSV has them all)."""


def head(page: Page) -> list[str]:
    """The title, what was read, the warnings and the inputs that could not be read."""
    analysis = page.analysis
    sets = sets_named([g.case_set for g in analysis.groups])
    title = f"Competency-gap report: {sets}" if sets else "MedSP competency-gap report"
    out: list[str] = [f"# {esc(title)}", ""]
    n_logs = len(analysis.runs)
    out.append(
        f"{n_logs} MedSP log{'s' if n_logs != 1 else ''} in {len(analysis.groups)} "
        f"group{'s' if len(analysis.groups) != 1 else ''} (clinician model, plus strategy, "
        "protocol, judge and case set where the runs differ in them)."
    )
    out.append("")
    if analysis.flags:
        out += ["## Warnings", ""]
        out += [f"- ⚠ {esc(f)}" for f in analysis.flags]
        out.append("")
    if analysis.problems:
        out += ["## Inputs that could not be reported", ""]
        out += [f"- {esc(p.line())}" for p in analysis.problems]
        out.append("")
    return out


def files_and_runs(page: Page) -> list[str]:
    """The Files list (every section's files) and the runs read."""
    analysis = page.analysis
    out = ["## Files", "", *listed(page.files, page.charts)]
    out += ["", "Runs read:", ""]
    labels = {h.path: h.label for h in analysis.health}
    out += [
        f"- {esc(labels.get(r.path) or r.label)}: {esc(r.task)}, created {r.created}, "
        f"log `{r.name}`"
        for r in analysis.runs
    ]
    return out


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
    marks = leader_marks(analysis.comparisons, [g.label for g in analysis.groups])
    if marks:
        header.insert(6, "vs #1 (paired)")
    rows = []
    for rank, g in enumerate(analysis.groups, start=1):
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
    out += table(header, rows)
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


def profile(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    out = ["## Competency profile", ""]
    if charts:
        out += [
            f"![Macro completion per competency and clinician]({CHART_COMPETENCIES})",
            "",
            f"![Per-scenario overall completion per clinician]({CHART_DISTRIBUTION})",
            "",
            f"![Competency radar per clinician]({CHART_RADAR})",
            "",
        ]
    header = ["Competency", *[esc(g.label) for g in analysis.groups]]
    rows = []
    for c in COMPETENCIES:
        cells = [
            with_ci(
                g.metric(f"{c}_macro"),
                g.metric(f"{c}_macro_ci_low"),
                g.metric(f"{c}_macro_ci_high"),
            )
            for g in analysis.groups
        ]
        rows.append([f"{c} ({COMPETENCY_NAMES[c]})", *cells])
    out += table(header, rows)
    return out


def gaps(page: Page) -> list[str]:
    analysis = page.analysis
    out = ["## Gaps", ""]
    for g in analysis.groups:
        out += [f"### {esc(g.label)}", ""]
        overall = g.metric("macro")
        if overall is None:
            out += ["No scored scenarios.", ""]
            continue
        if g.below_overall:
            weak = ", ".join(f"**{c}** {pct(g.metric(f'{c}_macro'))}" for c in g.below_overall)
            out.append(f"Competencies below its own overall macro ({pct(overall)}): {weak}.")
        else:
            out.append(f"No competency is below its own overall macro ({pct(overall)}).")
        out.append("")
        missed = [m for m in analysis.missed if m.group == g.label and (m.missed or m.unjudged)]
        if not missed:
            out += ["Every rubric item seen was completed.", ""]
            continue
        out.append(
            f"Most often missed rubric items (top {min(TOP_MISSED, len(missed))} of "
            f"{len(missed)}; all in missed_items.csv):"
        )
        out.append("")
        rows = [
            [
                m.competency,
                esc(m.text),
                f"{m.missed} of {m.seen}" + (f" (+{m.unjudged} unjudged)" if m.unjudged else ""),
                esc(", ".join(m.scenarios[:3]) + (" …" if len(m.scenarios) > 3 else "")),
            ]
            for m in missed[:TOP_MISSED]
        ]
        out += table(["Competency", "Item", "Missed", "Scenarios"], rows)
    return out


def _cell(c: Breakdown | TokenBin | None) -> str:
    """Macro [interval] (n=scenarios for a breakdown, samples for a token bin)."""
    if c is None:
        return "n/a"
    count = c.scenarios if isinstance(c, Breakdown) else c.n
    return f"{with_ci(c.macro, c.ci_low, c.ci_high)} (n={count})"


def _sources(analysis: Analysis) -> list[str]:
    """Where each group's specialty labels came from, one line per group."""
    lines = []
    for g in analysis.groups:
        counts = analysis.specialty_sources.get(g.label, {})
        parts = []
        for source, n in sorted(counts.items()):
            what = "scenarios" if n != 1 else "scenario"
            if source == "data":
                parts.append(f"{n} {what} from the data's own metadata")
            elif source == "none":
                parts.append(f"{n} {what} without a specialty (unspecified)")
            else:
                parts.append(f"{n} {what} classified by {source}")
        lines.append(f"- {esc(g.label)}: {esc('; '.join(parts) or 'no scenarios')}")
    return [*lines, ""]


def specialties(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    out = ["## Completion by specialty", ""]
    names = sorted({s.specialty for s in analysis.specialties})
    if not names:
        return [*out, "No scored scenarios.", ""]
    out += ["Where the specialty labels came from:", "", *_sources(analysis)]
    if charts:
        out += [f"![Macro completion by specialty per clinician]({CHART_SPECIALTIES})", ""]
    out.append(
        "Macro completion with its 95% case-clustered t interval and the number of scored "
        "scenarios. "
        f"Specialties with fewer than {SMALL_SPECIALTY} scenarios are marked ⚠ (shaded in the "
        "figure): their intervals are wide and the numbers are easily moved by one scenario."
    )
    out.append("")
    found = {(s.group, s.specialty): s for s in analysis.specialties}
    rows = []
    for name in names:
        cells = []
        small = False
        for g in analysis.groups:
            s = found.get((g.label, name))
            small = small or (s is not None and s.small)
            cells.append(
                "n/a" if s is None else f"{with_ci(s.mean, s.ci_low, s.ci_high)} (n={s.scenarios})"
            )
        rows.append([esc(name) + (" ⚠" if small else ""), *cells])
    out += table(["Specialty", *[esc(g.label) for g in analysis.groups]], rows)
    return out


def input_length(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    out = ["## Completion by encounter length", ""]
    if not analysis.token_bins and all(g.human for g in analysis.groups):
        return [
            *out,
            "A person in the clinician's chair reads no tokens: there is no input length to "
            "bin by (n/a).",
            "",
        ]
    if not analysis.token_bins:
        return [
            *out,
            "The logs record no model usage per sample, so the clinician's input length is "
            "unknown.",
            "",
        ]
    out.append(
        "The clinician's input tokens per encounter (every call of the model under test, "
        "cached input included: the sample's model usage less the other roles' usage), each "
        "group in bins of equal counts of its own encounters (groups that read very different "
        "amounts, such as a best-of-N strategy and `off`, are not cut into shared bins); "
        "macro completion per bin with its 95% interval."
    )
    out.append("")
    if charts:
        out += [f"![Completion by the clinician's input length]({CHART_TOKENS})", ""]
    rows: list[list[str]] = []
    for g in analysis.groups:
        mine = sorted((b for b in analysis.token_bins if b.group == g.label), key=lambda b: b.bin)
        if not mine:
            continue
        ranges = bin_ranges([b.low_k for b in mine] + [mine[-1].high_k])
        rows += [[esc(g.label), f"{r}k", _cell(b)] for b, r in zip(mine, ranges, strict=True)]
    out += table(["Group", "Input tokens", "Macro completion"], rows)
    missing = sum(
        s.scored and s.clinician_input_tokens is None
        for g in analysis.groups
        if not g.human
        for s in g.samples
    )
    if missing:
        out += [f"{missing} scored samples have no usage record and are not in this view.", ""]
    if any(g.human for g in analysis.groups):
        out += ["A person in the clinician's chair reads no tokens: their column is n/a.", ""]
    return out


def strategy(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    if not analysis.strategy:
        return []
    out = ["## Strategy by competency", ""]
    if charts:
        out += [f"![Macro completion by strategy and competency]({CHART_STRATEGY})", ""]
    columns = list(dict.fromkeys(c.competency for c in analysis.strategy))
    found = {(c.group, c.competency): c.macro for c in analysis.strategy}
    first = {c.group: c for c in analysis.strategy}
    rows = [
        [esc(g), esc(c.strategy), *[pct(found.get((g, k))) for k in columns]]
        for g, c in first.items()
    ]
    out += table(["Group", "Strategy", *columns], rows)
    return out


def case_metadata(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    if not analysis.breakdowns:
        return []
    out = ["## Completion by case metadata", ""]
    out.append(
        "From the case metadata the scenarios carry (phase1_scenarios_meta.json): macro "
        "completion with its 95% interval and the number of scored scenarios per category. "
        "Scenarios without the field are counted under (not given)."
    )
    out.append("")
    if charts:
        out += [f"![Completion by case metadata]({CHART_BREAKDOWNS})", ""]
    found = {(b.group, b.field, b.category): b for b in analysis.breakdowns}
    for field in dict.fromkeys(b.field for b in analysis.breakdowns):
        out += [f"### By {field}", ""]
        cats = dict.fromkeys(b.category for b in analysis.breakdowns if b.field == field)
        rows = [
            [esc(c), *[_cell(found.get((g.label, field, c))) for g in analysis.groups]]
            for c in cats
        ]
        out += table([field.capitalize(), *[esc(g.label) for g in analysis.groups]], rows)
    return out


def _role_cell(h: RunHealth, role: str) -> str:
    rh = h.roles.get(role)
    if rh is None or rh.total == 0:
        return "n/a"
    share = rh.degraded / rh.total
    cell = f"{rh.degraded}/{rh.total} ({share:.0%})"
    if rh.malformed:
        cell += f", {rh.malformed} repaired/retried"
    if rh.truncated:
        cell += f", {rh.truncated} cut off"
    return cell


def health(page: Page) -> list[str]:
    analysis = page.analysis
    out = ["## Health of the runs", ""]
    out.append(
        "A run is marked unhealthy when any sample errored or could not be scored, when more "
        "than 10% of any role's "
        "replies were degraded (unusable after retries), when more than 10% of its rubric "
        "items got no verdict, or when the run did not finish; its score is then not the "
        "model's own. \"Clinician's provider\" says what the clinician model's provider did: "
        "encounters that ended because its context window was full (`context_exhausted`) and "
        "turns its content filter refused are graded, as the model's own limit and behaviour, "
        "and cut the score; replies cut off at the output-token limit were re-asked."
    )
    if any(g.human for g in analysis.groups):
        out[-1] += (
            " A person's run (`human: <name>`) is marked incomplete instead: an encounter was "
            "stopped or could not be graded, so its score covers only the others; an "
            "encounter re-run and scored in another log of the same group is no mark. A "
            "person reads no tokens: their clinician tokens are n/a."
        )
    out.append("")
    header = ["Run", "Group", "Samples", "Errored", "Unscored", "Unjudged items",
              *[f"Degraded {r}" for r in ROLE_NAMES], "Ends", "Clinician's provider", "Mean turns",
              "Verdict"]  # fmt: skip
    rows = []
    for h in analysis.health:
        ends = ", ".join(f"{esc(k)} {v}" for k, v in sorted(h.ends.items()))
        rows.append(
            [
                esc(h.label or h.run),
                esc(h.group),
                str(h.samples),
                str(h.errored),
                str(len(h.unscored)),
                f"{h.unjudged} of {h.items}",
                *[_role_cell(h, r) for r in ROLE_NAMES],
                ends,
                esc(h.provider_stops() or "nothing"),
                "n/a" if h.mean_turns is None else f"{h.mean_turns:.1f}",
                "⚠ " + esc("; ".join(h.flags)) if h.flags else "ok",
            ]
        )
    out += table(header, rows)
    labels = {h.path: h.label or h.run for h in analysis.health}
    lists: list[tuple[str, Callable[[MedspSample], str | None]]] = [
        ("Errored samples:", lambda s: short(s.error) if s.error else None),
        ("Samples not scored (left out of the numbers, never counted as 0):", lambda s: s.unscored),
    ]
    for title, why in lists:
        found = [(run, s, text) for run in analysis.runs for s in run.samples if (text := why(s))]
        if found:
            out += [title, ""]
            out += [
                f"- {esc(labels.get(run.path, run.label))}: {esc(s.id)} (epoch {s.epoch}): "
                f"{esc(text)}"
                for run, s, text in found
            ]
            out.append("")
    people = {g.label for g in analysis.groups if g.human}
    roles = sorted(
        {r for h in analysis.health for r in h.tokens}
        | ({CLINICIAN} if any(h.group in people for h in analysis.health) else set()),
        key=_role_order,
    )
    if roles:
        out += [
            "Mean tokens per scenario, by role (the clinician is the model without a role):",
            "",
        ]
        rows = [
            [
                esc(h.label or h.run),
                *[f"{h.tokens[r]:,.0f}" if r in h.tokens else "n/a" for r in roles],
            ]
            for h in analysis.health
        ]
        out += table(["Run", *[esc(r) for r in roles]], rows)
    return out


def _role_order(role: str) -> tuple[int, str]:
    order = [*ROLE_NAMES, "grader"]
    return (order.index(role) if role in order else len(order), role)


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
