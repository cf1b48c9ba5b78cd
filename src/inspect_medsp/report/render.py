"""The report as Markdown, and that Markdown as a self-contained HTML page."""

from __future__ import annotations

import html
from collections.abc import Sequence

from markdown_it import MarkdownIt

from inspect_medsp.data.models import COMPETENCIES, COMPETENCY_NAMES
from inspect_medsp.report.analysis import Analysis, RunHealth
from inspect_medsp.report.models import ROLES

TOP_MISSED = 10
"""Most-missed items listed per group in the text (the CSV has them all)."""

CHART_COMPETENCIES = "competencies.png"
CHART_DISTRIBUTION = "distribution.png"
CSV_FILES = (
    "leaderboard.csv",
    "competencies.csv",
    "missed_items.csv",
    "specialties.csv",
    "health.csv",
    "per_scenario.csv",
)

_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*[]<>|"})


def esc(text: object) -> str:
    """Text from a log made safe for one Markdown line or table cell."""
    return " ".join(str(text).split()).translate(_SPECIAL)


def short(text: str, limit: int = 240) -> str:
    """The text on one line, cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value * 100:.{digits}f}%"


def with_ci(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "n/a"
    if low is None or high is None:
        return pct(value)
    return f"{pct(value)} [{low * 100:.1f}, {high * 100:.1f}]"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def render_markdown(analysis: Analysis, charts: bool = True) -> str:
    """The whole report; numbers are the same as in the CSV files, shown as percentages."""
    out: list[str] = ["# MedSP competency-gap report", ""]
    n_logs = len(analysis.runs)
    out.append(
        f"{n_logs} MedSP log{'s' if n_logs != 1 else ''} in {len(analysis.groups)} "
        f"group{'s' if len(analysis.groups) != 1 else ''} (clinician model, plus strategy, "
        "protocol and judge where the runs differ in them)."
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
    out += _leaderboard(analysis)
    out += _comparison(analysis)
    out += _profile(analysis, charts)
    out += _gaps(analysis)
    out += _specialties(analysis)
    out += _health(analysis)
    out += ["## Files", ""]
    if charts:
        out += [f"- [{name}]({name})" for name in (CHART_COMPETENCIES, CHART_DISTRIBUTION)]
    out += [f"- [{name}]({name})" for name in CSV_FILES]
    out += ["", "Runs read:", ""]
    labels = {h.path: h.label for h in analysis.health}
    out += [
        f"- {esc(labels.get(r.path) or r.label)}: {esc(r.task)}, created {r.created}, "
        f"log `{r.name}`"
        for r in analysis.runs
    ]
    return "\n".join(out) + "\n"


def _leaderboard(analysis: Analysis) -> list[str]:
    out = ["## Leaderboard", ""]
    out.append(
        "Ordered by macro completion (the mean over scenarios of the share of rubric items "
        "completed); micro is all completed items over all items. Both come with 95% "
        "bootstrap intervals and are each log's own `medsp_rubric` metrics unless noted. "
        "Competency columns are macro completion."
    )
    out.append("")
    header = ["#", "Clinician", "Strategy", "Judge", "Scenarios scored", "Macro (95% CI)",
              "Micro (95% CI)", *COMPETENCIES, "Health"]  # fmt: skip
    rows = []
    for rank, g in enumerate(analysis.groups, start=1):
        m = g.metric
        rows.append(
            [
                str(rank),
                esc(g.label),
                esc(g.strategy),
                esc(g.judge),
                str(len(g.scored_ids)),
                with_ci(m("macro"), m("macro_ci_low"), m("macro_ci_high")),
                with_ci(m("micro"), m("micro_ci_low"), m("micro_ci_high")),
                *[pct(m(f"{c}_macro")) for c in COMPETENCIES],
                "⚠ unhealthy run" if g.flagged else "ok",
            ]
        )
    out += table(header, rows)
    out += [f"- {esc(n)}" for n in analysis.notes]
    if analysis.notes:
        out.append("")
    return out


def _comparison(analysis: Analysis) -> list[str]:
    out = ["## Comparison on shared scenarios", ""]
    n = len(analysis.shared_ids)
    if len(analysis.groups) < 2:
        out += ["Only one group: nothing to compare.", ""]
        return out
    same = len({frozenset(g.scored_ids) for g in analysis.groups}) == 1
    scenarios = f"{n} scenario{'' if n == 1 else 's'}"
    if same:
        out.append(f"All {len(analysis.groups)} groups scored the same {scenarios}.")
    else:
        out.append(
            f"The groups scored different scenario sets; {scenarios} "
            f"{'was' if n == 1 else 'were'} scored by all {len(analysis.groups)} groups, "
            "and only those are compared here."
        )
    out.append(
        "Macro below is computed over the shared scenarios from the per-sample score values "
        "(mean of per-scenario completion, the scorer's bootstrap for the interval), so it can "
        "differ from the leaderboard, which covers each run's own scenarios."
    )
    out.append("")
    if n == 0:
        out += ["No scenario was scored by every group.", ""]
        return out
    header = ["Clinician", "Shared scenarios", "Macro (95% CI)", *COMPETENCIES]
    rows = []
    for g in analysis.groups:
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


def _profile(analysis: Analysis, charts: bool) -> list[str]:
    out = ["## Competency profile", ""]
    if charts:
        out += [
            f"![Macro completion per competency and clinician]({CHART_COMPETENCIES})",
            "",
            f"![Per-scenario overall completion per clinician]({CHART_DISTRIBUTION})",
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


def _gaps(analysis: Analysis) -> list[str]:
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


def _specialties(analysis: Analysis) -> list[str]:
    out = ["## Mean overall completion by specialty", ""]
    names = sorted({s.specialty for s in analysis.specialties})
    if not names:
        return [*out, "No scored scenarios.", ""]
    found = {(s.group, s.specialty): s for s in analysis.specialties}
    rows = []
    for name in names:
        cells = []
        for g in analysis.groups:
            s = found.get((g.label, name))
            cells.append("n/a" if s is None else f"{pct(s.mean)} (n={s.n})")
        rows.append([esc(name), *cells])
    out += table(["Specialty", *[esc(g.label) for g in analysis.groups]], rows)
    return out


def _role_cell(h: RunHealth, role: str) -> str:
    rh = h.roles.get(role)
    if rh is None or rh.total == 0:
        return "n/a"
    share = rh.degraded / rh.total
    cell = f"{rh.degraded}/{rh.total} ({share:.0%})"
    if rh.malformed:
        cell += f", {rh.malformed} repaired/retried"
    return cell


def _health(analysis: Analysis) -> list[str]:
    out = ["## Health of the runs", ""]
    out.append(
        "A run is marked unhealthy when any sample errored, when more than 10% of any role's "
        "replies were degraded (unusable after retries), when more than 10% of its rubric "
        "items got no verdict, or when the run did not finish; its score is then not the "
        "model's own."
    )
    out.append("")
    header = ["Run", "Group", "Samples", "Errored", "Unjudged items",
              *[f"Degraded {r}" for r in ROLES], "Ends", "Mean turns", "Verdict"]  # fmt: skip
    rows = []
    for h in analysis.health:
        ends = ", ".join(f"{esc(k)} {v}" for k, v in sorted(h.ends.items()))
        rows.append(
            [
                esc(h.label or h.run),
                esc(h.group),
                str(h.samples),
                str(h.errored),
                f"{h.unjudged} of {h.items}",
                *[_role_cell(h, r) for r in ROLES],
                ends,
                "n/a" if h.mean_turns is None else f"{h.mean_turns:.1f}",
                "⚠ " + esc("; ".join(h.flags)) if h.flags else "ok",
            ]
        )
    out += table(header, rows)
    labels = {h.path: h.label or h.run for h in analysis.health}
    errored = [(r, s) for r in analysis.runs for s in r.samples if s.error is not None]
    if errored:
        out += ["Errored samples:", ""]
        out += [
            f"- {esc(labels.get(run.path, run.label))}: {esc(s.id)} (epoch {s.epoch}): "
            f"{esc(short(s.error or ''))}"
            for run, s in errored
        ]
        out.append("")
    roles = sorted({r for h in analysis.health for r in h.tokens}, key=_role_order)
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
    order = [*ROLES, "grader"]
    return (order.index(role) if role in order else len(order), role)


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #111; }}
table {{ border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }}
th, td {{ border: 1px solid #999; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }}
th {{ background: #eee; }}
img {{ max-width: 100%; }}
code {{ font-size: 0.85rem; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""


def render_html(markdown: str, title: str = "MedSP competency-gap report") -> str:
    """The Markdown report as one HTML page (raw HTML in log text is escaped, not run)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return PAGE.format(title=html.escape(title), body=md.render(markdown))
