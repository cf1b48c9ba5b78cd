"""The health of the runs: whether each run's score can be read as the clinician's (errors,
unscored samples, unjudged items, degraded replies, how encounters ended, turns and tokens;
worked out here), its text, ``health.csv`` and ``per_scenario.csv``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from inspect_medsp.data import CASE_META_FIELDS, COMPETENCIES
from inspect_medsp.preflight import is_person
from inspect_medsp.record import CLINICIAN, ROLE_NAMES, MedspRun, MedspSample, ReplyHealth
from inspect_medsp.report.analysis import Analysis, RunHealth
from inspect_medsp.report.files import Cell, Table, csv_file
from inspect_medsp.report.groups import Key
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, short, table

DEGRADED_LIMIT = 0.10
"""A run is flagged when more than this share of any role's replies was degraded."""

UNJUDGED_LIMIT = 0.10
"""A run is flagged when more than this share of its rubric items got no verdict."""


def run_health(
    run: MedspRun, group: str, label: str | None = None, scored_elsewhere: set[Key] | None = None
) -> RunHealth:
    """Errors, unjudged items, reply degradations, end reasons, turns and tokens of a run.

    A sample that errored or was not scored here but whose scenario and epoch another run of
    the group scored (``scored_elsewhere``: a re-run of a stopped encounter) is no flag: it
    is listed in ``replaced``.
    """
    replaced = sorted(
        {
            s.id
            for s in run.samples
            if not s.scored and (s.id, s.epoch) in (scored_elsewhere or set())
        }
    )
    roles: dict[str, ReplyHealth] = {role: ReplyHealth() for role in ROLE_NAMES}
    for sample in run.samples:
        for role, h in sample.health.items():
            roles[role] = roles.get(role, ReplyHealth()).plus(h)
    scored = [s for s in run.samples if s.scored]
    turns = [s.turns for s in run.samples if s.turns is not None]
    person = is_person(run.model)  # a person reads no tokens: n/a, never 0
    token_roles = sorted(
        {r for s in run.samples for r in s.tokens if not (person and r == CLINICIAN)}
    )
    n = len(run.samples)
    health = RunHealth(
        run=run.name,
        path=run.path,
        group=group,
        label=label or run.label,
        status=run.status,
        samples=n,
        scored=len(scored),
        errored=sum(s.error is not None and s.id not in replaced for s in run.samples),
        unscored={s.id: s.unscored for s in run.samples if s.unscored and s.id not in replaced},
        replaced=replaced,
        items=sum(s.item_count for s in scored),
        unjudged=sum(s.unjudged for s in scored),
        roles=roles,
        ends=dict(Counter(s.end or "unknown" for s in run.samples)),
        refused_turns=sum(s.refused_turns for s in run.samples),
        refused_encounters=sum(s.refused_turns > 0 for s in run.samples),
        mean_turns=sum(turns) / len(turns) if turns else None,
        tokens={r: sum(s.tokens.get(r, 0) for s in run.samples) / n for r in token_roles},
    )
    if run.status != "success":
        health.flags.append(f"run status is {run.status}")
    if health.errored:
        health.flags.append(f"{health.errored} of {n} samples errored")
    if health.unscored:
        shown = ", ".join(f"{i} ({why})" for i, why in sorted(health.unscored.items()))
        health.flags.append(f"{len(health.unscored)} of {n} samples unscored: {shown}")
    for role in ROLE_NAMES:
        share = health.degraded_share(role)
        if share is not None and share > DEGRADED_LIMIT:
            h = roles[role]
            health.flags.append(f"{role} replies degraded: {h.degraded} of {h.total} ({share:.0%})")
    if health.items and health.unjudged / health.items > UNJUDGED_LIMIT:
        health.flags.append(f"{health.unjudged} of {health.items} rubric items unjudged")
    return health


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


ROLE_COUNTS = ("clean", "repaired", "retried", "degraded", "truncated", "context", "refused")
"""A role's reply counts, each a column of ``health.csv``."""


def health_table(analysis: Analysis) -> Table:
    ends = sorted({e for h in analysis.health for e in h.ends})
    token_roles = _token_roles(analysis)
    columns = ["run", "label", "group", "status", "samples", "scored", "errored", "unscored",
               "items", "unjudged"]  # fmt: skip
    for role in ROLE_NAMES:
        columns += [f"{role}_{k}" for k in ROLE_COUNTS]
        columns.append(f"{role}_degraded_share")
    columns += [f"end_{e}" for e in ends]
    columns += ["context_exhausted", "refused_turns", "refused_encounters"]
    columns += ["mean_turns", *[f"tokens_per_scenario_{r}" for r in token_roles]]
    columns += ["flagged", "flags"]
    rows: list[list[Cell]] = []
    for h in analysis.health:
        row: list[Cell] = [
            h.run, h.label, h.group, h.status, h.samples, h.scored, h.errored,
            len(h.unscored), h.items, h.unjudged,
        ]  # fmt: skip
        for role in ROLE_NAMES:
            rh = h.roles[role]
            row += [getattr(rh, k) for k in ROLE_COUNTS]
            row.append(h.degraded_share(role))
        row += [h.ends.get(e, 0) for e in ends]
        row += [h.context_exhausted, h.refused_turns, h.refused_encounters]
        row += [h.mean_turns, *[h.tokens.get(r) for r in token_roles]]
        row += [bool(h.flags), "; ".join(h.flags)]
        rows.append(row)
    return Table(name="health", columns=columns, rows=rows)


def per_scenario_table(analysis: Analysis) -> Table:
    token_roles = _token_roles(analysis)
    labels = {h.run: h.group for h in analysis.health}
    columns = [
        "group", "run", "id", "epoch", "case_id", "specialty", "scored", "error", "overall",
        *COMPETENCIES, "completed", "total", "unjudged", "end", "turns",
        *[f"tokens_{r}" for r in token_roles],
        "specialty_source", "clinician_input_tokens", *CASE_META_FIELDS,
    ]  # fmt: skip
    rows: list[list[Cell]] = []
    for run in analysis.runs:
        for s in run.samples:
            completed, total = s.counts.get("overall", (None, None))
            rows.append(
                [
                    labels[run.name], run.name, s.id, s.epoch, s.case_id, s.specialty, s.scored,
                    s.error, s.values.get("overall"), *[s.values.get(c) for c in COMPETENCIES],
                    completed, total, s.unjudged if s.scored else None, s.end, s.turns,
                    *[s.tokens.get(r) for r in token_roles],
                    s.specialty_source, s.clinician_input_tokens,
                    *[s.case_meta.get(k) for k in CASE_META_FIELDS],
                ]
            )  # fmt: skip
    return Table(name="per_scenario", columns=columns, rows=rows)


def _token_roles(analysis: Analysis) -> list[str]:
    seen = {r for h in analysis.health for r in h.tokens}
    first = [r for r in (*ROLE_NAMES, "grader") if r in seen]
    return first + sorted(seen - set(first))


HEALTH = Section(
    name="health",
    text=health,
    files=lambda a: [csv_file(health_table(a), 100), csv_file(per_scenario_table(a), 110)],
)
