"""The simulator audit in ``medsp-report``: findings by role, kind and severity, the share of
encounters audited ``invalidating``, macro with and without them, and the flagged encounters.

Read through ``record.read_log`` from each run's ``medsp_simulation_audit`` scores (a run
audited with ``-T audit=true``, or re-scored with ``inspect score --scorer
inspect_medsp/medsp_simulation_audit``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from inspect_medsp.audit.result import Finding, SimulationAudit
from inspect_medsp.record import MedspRun, MedspSample
from inspect_medsp.report import Analysis, Cell, ReportFile, Section, Table, write_csv
from inspect_medsp.scoring import percentile_interval, resampled_sums


class AuditedEncounter(BaseModel):
    """One sample's audit beside its rubric completion."""

    id: str
    epoch: int
    case: str
    completion: float | None = None
    """Overall completion from the rubric score (None: unscored there)."""
    audit: SimulationAudit | None = None
    unaudited: str = ""
    """Why the sample has no audit (``auditor_failed``, ``no_turns``)."""
    variant: str = "baseline"
    """The patient variant the encounter played (``-T variants=``)."""


class RunAudit(BaseModel):
    """One run's audit summary."""

    run: str
    encounters: list[AuditedEncounter] = Field(default_factory=list)
    macro_all: float | None = None
    macro_without: float | None = None
    difference: float | None = None
    difference_ci: tuple[float, float] | None = None

    @property
    def audited(self) -> list[AuditedEncounter]:
        return [e for e in self.encounters if e.audit is not None]

    @property
    def invalidating(self) -> list[AuditedEncounter]:
        return [
            e for e in self.audited if e.audit is not None and e.audit.verdict == "invalidating"
        ]

    def harness(self, count: str) -> int:
        """A harness count (``corrections``, ``unsupported_actions``, ``degraded``) summed
        over the audited encounters."""
        total = 0
        for e in self.audited:
            assert e.audit is not None
            h = e.audit.harness
            total += sum(h.degraded.values()) if count == "degraded" else getattr(h, count)
        return total

    def findings(self) -> Counter[tuple[str, str, str]]:
        """Findings by (role, kind, severity)."""
        return Counter(
            (f.role, f.kind, f.severity) for e in self.audited if e.audit for f in e.audit.findings
        )


def read_audits(run: MedspRun) -> RunAudit | None:
    """The audit of a run's samples (as ``record.read_log`` read them), or None when the run
    was not audited."""
    encounters: list[AuditedEncounter] = []
    for sample in run.samples:
        if not _audited(sample):
            continue
        value = sample.score.value if sample.score is not None else None
        encounters.append(
            AuditedEncounter(
                id=sample.id,
                epoch=sample.epoch,
                case=sample.case_id,
                completion=value.overall if value is not None else None,
                audit=sample.result(SimulationAudit),
                unaudited=sample.result_unscored(SimulationAudit) or "",
                variant=sample.metadata.variant,
            )
        )
    if not encounters:
        return None
    result = RunAudit(run=run.name, encounters=encounters)
    _paired(result)
    return result


def _paired(result: RunAudit) -> None:
    """Macro over audited encounters with a rubric score, and over those not invalidating;
    their difference with a 95% interval that resamples cases (the same resample for both
    macros, so the interval is of the paired difference)."""
    rows = [e for e in result.audited if e.completion is not None]
    if not rows:
        return
    completion = [float(e.completion or 0.0) for e in rows]
    keep = [0.0 if e.audit and e.audit.verdict == "invalidating" else 1.0 for e in rows]
    ones = [1.0] * len(rows)
    kept = [c * k for c, k in zip(completion, keep, strict=True)]
    result.macro_all = sum(completion) / len(rows)
    if sum(keep):
        result.macro_without = sum(kept) / sum(keep)
        result.difference = result.macro_all - result.macro_without
        sums = resampled_sums([completion, ones, kept, keep], [e.case for e in rows])
        with np.errstate(invalid="ignore", divide="ignore"):  # resamples of only invalidating
            paired = sums[:, 0] / sums[:, 1] - sums[:, 2] / sums[:, 3]
        result.difference_ci = percentile_interval(paired)


def findings_table(audits: Sequence[RunAudit]) -> Table:
    rows: list[list[Cell]] = [
        [a.run, role, kind, severity, n]
        for a in audits
        for (role, kind, severity), n in sorted(a.findings().items())
    ]
    return Table(
        name="simulation_findings",
        columns=["run", "role", "kind", "severity", "findings"],
        rows=rows,
    )


def flagged_table(audits: Sequence[RunAudit]) -> Table:
    rows: list[list[Cell]] = []
    for a in audits:
        for e in a.audited:
            assert e.audit is not None
            for f in e.audit.findings:
                rows.append(
                    [
                        a.run,
                        e.id,
                        e.epoch,
                        e.audit.verdict,
                        f.turn,
                        f.role,
                        f.kind,
                        f.severity,
                        f.quote,
                        f.contradicts,
                    ]
                )
    columns = [
        "run",
        "sample",
        "epoch",
        "verdict",
        "turn",
        "role",
        "kind",
        "severity",
        "quote",
        "contradicts",
    ]
    return Table(name="simulation_flagged", columns=columns, rows=rows)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def _finding(f: Finding) -> str:
    against = f.contradicts if f.contradicts == "not in the materials" else f"“{f.contradicts}”"
    return f"turn {f.turn}, {f.role} `{f.kind}` ({f.severity}): “{f.quote}” — against {against}"


def simulation_markdown(audits: Sequence[RunAudit]) -> list[str]:
    """The report's section on the simulator audit (empty when no run was audited)."""
    if not audits:
        return []
    out = [
        "\n## Can the simulation be trusted?\n",
        "The auditor reviewed each encounter's patient and environment turns against their "
        "packets (`medsp_simulation_audit`). Macro without the `invalidating` encounters, and "
        "the paired difference with a 95% interval resampling cases, show whether simulator "
        "errors move the result.\n",
        "| run | audited | not audited | invalidating | minor | faithful | macro % "
        "| macro % without invalidating | difference (pp) | 95% CI "
        "| state-rule corrections | unsupported actions | degraded replies |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for a in audits:
        verdicts = Counter(e.audit.verdict for e in a.audited if e.audit)
        n = len(a.audited)
        share = f"{verdicts['invalidating']} ({_pct(verdicts['invalidating'] / n if n else None)}%)"
        ci = (
            f"[{_pct(a.difference_ci[0])}, {_pct(a.difference_ci[1])}]"
            if a.difference_ci
            else "n/a"
        )
        out.append(
            f"| {a.run} | {n} | {len(a.encounters) - n} | {share} | {verdicts['minor']} | "
            f"{verdicts['faithful']} | {_pct(a.macro_all)} | {_pct(a.macro_without)} | "
            f"{_pct(a.difference)} | {ci} | {a.harness('corrections')} | "
            f"{a.harness('unsupported_actions')} | {a.harness('degraded')} |"
        )
    out += ["", "**Findings by role, kind and severity** (`simulation_findings.csv`):", ""]
    counts = [(a.run, k, n) for a in audits for k, n in sorted(a.findings().items())]
    if counts:
        out += ["| run | role | kind | severity | findings |", "|---|---|---|---|---:|"]
        out += [f"| {run} | {r} | `{k}` | {s} | {n} |" for run, (r, k, s), n in counts]
    else:
        out.append("No findings: every audited encounter is faithful.")
    out += _by_variant(audits)
    flagged = [(a, e) for a in audits for e in a.audited if e.audit and e.audit.findings]
    if flagged:
        out += ["", "**Flagged encounters** (`simulation_flagged.csv`):", ""]
        for a, e in flagged:
            assert e.audit is not None
            out.append(f"- {a.run} · `{e.id}` (epoch {e.epoch}) — **{e.audit.verdict}**")
            out += [f"  - {_finding(f)}" for f in e.audit.findings]
    missing = [(a, e) for a in audits for e in a.encounters if e.audit is None]
    if missing:
        out += ["", "**Not audited** (no verdict; re-run the audit with `inspect score`):", ""]
        out += [f"- {a.run} · `{e.id}` (epoch {e.epoch}): {e.unaudited}" for a, e in missing]
    return out


def _by_variant(audits: Sequence[RunAudit]) -> list[str]:
    """Per patient variant (runs with ``-T variants=`` only): the encounters whose persona
    was not played and those where a fact of the script was changed."""
    if all(e.variant == "baseline" for a in audits for e in a.audited):
        return []
    out = [
        "",
        "**By patient variant**: was the persona played, and did the script's facts hold?",
        "",
        "| run | variant | audited | persona not played | a fact not in the script "
        "| invalidating |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for a in audits:
        variants = dict.fromkeys(e.variant for e in a.audited)
        for variant in variants:
            mine = [e.audit for e in a.audited if e.variant == variant and e.audit]
            kinds = [{f.kind for f in audit.findings} for audit in mine]
            not_played = sum("persona_not_played" in k for k in kinds)
            facts = sum("not_in_script" in k for k in kinds)
            bad = sum(audit.verdict == "invalidating" for audit in mine)
            out.append(f"| {a.run} | {variant} | {len(mine)} | {not_played} | {facts} | {bad} |")
    return out


def _audited(sample: MedspSample) -> bool:
    return (
        sample.result(SimulationAudit) is not None
        or sample.result_unscored(SimulationAudit) is not None
    )


def _audits(analysis: Analysis) -> list[RunAudit]:
    return [a for a in (read_audits(r) for r in analysis.runs) if a is not None]


def _files(analysis: Analysis) -> list[ReportFile]:
    audits = _audits(analysis)
    if not audits:
        return []
    return [
        _own_csv(findings_table(audits), 10),
        _own_csv(flagged_table(audits), 20),
    ]


def _own_csv(table: Table, rank: int) -> ReportFile:
    """A CSV table the section's text names itself (not in the Files list)."""
    return ReportFile(
        name=f"{table.name}.csv", kind="own", rank=rank, write=lambda p: write_csv(table, p.parent)
    )


AUDIT = Section(
    name="simulator audit",
    shows=lambda a: any(_audited(s) for r in a.runs for s in r.samples),
    text=lambda page: simulation_markdown(_audits(page.analysis)),
    files=_files,
)
