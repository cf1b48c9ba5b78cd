"""The report's numbers as flat tables, written as CSV with full precision."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from pydantic import BaseModel

from inspect_medsp.data import CASE_META_FIELDS, COMPETENCIES
from inspect_medsp.record import ROLE_NAMES
from inspect_medsp.report.findings import Analysis

Cell = str | int | float | bool | None


class Table(BaseModel):
    """One CSV file: a name (the file stem), column names and rows."""

    name: str
    columns: list[str]
    rows: list[list[Cell]]

    def column(self, name: str) -> list[Cell]:
        i = self.columns.index(name)
        return [row[i] for row in self.rows]


def leaderboard(analysis: Analysis) -> Table:
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
    for rank, g in enumerate(analysis.groups, start=1):
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


def competencies(analysis: Analysis) -> Table:
    kinds = ["macro", "macro_ci_low", "macro_ci_high", "micro", "micro_ci_low", "micro_ci_high"]
    columns = ["group", "competency", *kinds, "below_overall", "shared_macro"]
    rows: list[list[Cell]] = []
    for g in analysis.groups:
        for c in COMPETENCIES:
            values = [g.metric(f"{c}_{k}") for k in kinds]
            if all(v is None for v in values):
                continue
            rows.append([g.label, c, *values, c in g.below_overall, g.shared.get(f"{c}_macro")])
    return Table(name="competencies", columns=columns, rows=rows)


def missed_items(analysis: Analysis) -> Table:
    columns = [
        "group",
        "competency",
        "text",
        "missed",
        "seen",
        "unjudged",
        "miss_rate",
        "scenarios",
    ]
    rows: list[list[Cell]] = [
        [m.group, m.competency, m.text, m.missed, m.seen, m.unjudged, m.missed / m.seen,
         ";".join(m.scenarios)]
        for m in analysis.missed
    ]  # fmt: skip
    return Table(name="missed_items", columns=columns, rows=rows)


def specialties(analysis: Analysis) -> Table:
    """``mean_overall`` is the macro of specialties.png; ``n`` counts samples (with epochs)."""
    columns = ["group", "specialty", "mean_overall", "ci_low", "ci_high", "n", "scenarios",
               "cases", "small", "source"]  # fmt: skip
    rows: list[list[Cell]] = [
        [s.group, s.specialty, s.mean, s.ci_low, s.ci_high, s.n, s.scenarios, s.cases, s.small,
         s.sources]
        for s in analysis.specialties
    ]  # fmt: skip
    return Table(name="specialties", columns=columns, rows=rows)


def input_length(analysis: Analysis) -> Table:
    """The points of input_length.png."""
    columns = ["group", "bin", "tokens_low_k", "tokens_high_k", "tokens_mean_k", "n", "macro",
               "ci_low", "ci_high"]  # fmt: skip
    rows: list[list[Cell]] = [
        [b.group, b.bin, b.low_k, b.high_k, b.mean_k, b.n, b.macro, b.ci_low, b.ci_high]
        for b in analysis.token_bins
    ]
    return Table(name="input_length", columns=columns, rows=rows)


def case_metadata(analysis: Analysis) -> Table:
    """The points of case_metadata.png."""
    columns = ["group", "field", "category", "n", "scenarios", "cases", "macro", "ci_low",
               "ci_high"]  # fmt: skip
    rows: list[list[Cell]] = [
        [b.group, b.field, b.category, b.n, b.scenarios, b.cases, b.macro, b.ci_low, b.ci_high]
        for b in analysis.breakdowns
    ]
    return Table(name="case_metadata", columns=columns, rows=rows)


def strategy_competency(analysis: Analysis) -> Table:
    """The cells of strategy_competency.png (empty unless the runs differ by strategy)."""
    rows: list[list[Cell]] = [
        [c.group, c.clinician, c.strategy, c.competency, c.macro] for c in analysis.strategy
    ]
    columns = ["group", "clinician", "strategy", "competency", "macro"]
    return Table(name="strategy_competency", columns=columns, rows=rows)


def finite(value: float) -> float | None:
    """NaN (not computable, e.g. one case) as an empty cell."""
    return None if math.isnan(value) else value


ROLE_COUNTS = ("clean", "repaired", "retried", "degraded", "truncated", "context", "refused")
"""A role's reply counts, each a column of ``health.csv``."""


def health(analysis: Analysis) -> Table:
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


def per_scenario(analysis: Analysis) -> Table:
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


def write_csv(table: Table, folder: Path, digits: int | None = None) -> Path:
    """``<folder>/<name>.csv``; floats keep every digit (or are rounded to ``digits``, NaN
    then empty), missing values are empty. The one CSV writer of the package's reports."""
    path = folder / f"{table.name}.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(table.columns)
        for row in table.rows:
            writer.writerow([_csv_cell(v, digits) for v in row])
    return path


def _csv_cell(value: Cell, digits: int | None) -> Cell:
    if value is None:
        return ""
    if not isinstance(value, float):
        return value
    if digits is None:
        return repr(value)
    return "" if math.isnan(value) else repr(round(value, digits))
