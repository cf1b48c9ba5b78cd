"""``medsp-report probes LOG... --out DIR``: how the grader moved under each probe.

Per probe and competency: flips up (not met to met) over the items that could flip up,
flips down over the items that could flip down, each rate with the leaderboard's 95%
case-clustered t interval, and the items that flipped most. The recital's false credit is also
given for PC, MK and SBP together apart from ICS and PROF, where saying can itself be the act.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.probes.result import PROBES, SPEECH_COMPETENCIES, GraderProbes
from inspect_medsp.record import read_log
from inspect_medsp.report import Cell, Table, save, write_csv
from inspect_medsp.scoring import clustered_ratio

CLINICAL = "PC+MK+SBP"
SPEECH = "ICS+PROF"
GROUPS: dict[str, tuple[str, ...]] = {
    **{c: (c,) for c in COMPETENCIES},
    CLINICAL: ("PC", "MK", "SBP"),
    SPEECH: SPEECH_COMPETENCIES,
    "overall": COMPETENCIES,
}
WORST = 10


class ProbedEncounter(BaseModel):
    run: str
    id: str
    epoch: int
    case: str
    probes: GraderProbes | None = None
    unscored: str = ""


class Rate(BaseModel):
    flips: int
    items: int
    rate: float | None = None
    ci: tuple[float, float] | None = None


class ProbeRow(BaseModel):
    probe: str
    group: str
    encounters: int
    up: Rate
    down: Rate


class WorstItem(BaseModel):
    probe: str
    direction: str
    scenario: str
    number: int
    competency: str
    text: str
    flips: int
    of: int


class ProbeReport(BaseModel):
    encounters: list[ProbedEncounter] = Field(default_factory=list)
    rows: list[ProbeRow] = Field(default_factory=list)
    worst: list[WorstItem] = Field(default_factory=list)
    failed: list[tuple[str, str, str]] = Field(default_factory=list)
    """(sample, probe, why) for every probe the grader could not re-grade."""


def read_probes(paths: Sequence[str]) -> ProbeReport:
    """Every ``medsp_grader_probe`` score in the logs (read through ``record.read_log``).

    Raises:
        NotMedSP: A log of another task.
    """
    report = ProbeReport()
    for path in paths:
        for sample in read_log(path).samples:
            probes = sample.result(GraderProbes)
            unscored = sample.result_unscored(GraderProbes)
            if probes is None and unscored is None:
                continue
            report.encounters.append(
                ProbedEncounter(
                    run=Path(path).name,
                    id=sample.id,
                    epoch=sample.epoch,
                    case=sample.case_id,
                    probes=probes,
                    unscored=unscored or "",
                )
            )
    return report


def _rate(flips: list[int], items: list[int], cases: list[str]) -> Rate:
    n, d = sum(flips), sum(items)
    if not d:
        return Rate(flips=n, items=d)
    interval = clustered_ratio(flips, items, cases, limits=(0.0, 1.0))
    return Rate(flips=n, items=d, rate=n / d, ci=(interval.low, interval.high))


def analyse_probes(report: ProbeReport) -> ProbeReport:
    """Fill the rows (per probe and competency group) and the worst items."""
    probed = [e for e in report.encounters if e.probes is not None]
    for probe in PROBES:
        results = [
            (e, p)
            for e in probed
            for p in (e.probes.probes if e.probes else [])
            if p.probe == probe and not p.failed
        ]
        if not results:
            continue
        for group, members in GROUPS.items():
            ups, could_up, downs, could_down, cases = [], [], [], [], []
            for e, p in results:
                mine = [o for o in p.outcomes if o.competency in members]
                if not mine:
                    continue
                ups.append(sum(o.flip == "up" for o in mine))
                could_up.append(sum(not o.before for o in mine))
                downs.append(sum(o.flip == "down" for o in mine))
                could_down.append(sum(o.before for o in mine))
                cases.append(e.case)
            if not cases:
                continue
            report.rows.append(
                ProbeRow(
                    probe=probe,
                    group=group,
                    encounters=len(cases),
                    up=_rate(ups, could_up, cases),
                    down=_rate(downs, could_down, cases),
                )
            )
        flips: Counter[tuple[str, str, int]] = Counter()
        seen: Counter[tuple[str, int]] = Counter()
        about: dict[tuple[str, int], tuple[str, str]] = {}
        for e, p in results:
            for o in p.outcomes:
                seen[(e.id, o.number)] += 1
                about[(e.id, o.number)] = (o.competency, o.text)
                if o.flip:
                    flips[(o.flip, e.id, o.number)] += 1
        for (direction, sid, number), n in flips.most_common(WORST):
            competency, text = about[(sid, number)]
            report.worst.append(
                WorstItem(
                    probe=probe,
                    direction=direction,
                    scenario=sid,
                    number=number,
                    competency=competency,
                    text=text,
                    flips=n,
                    of=seen[(sid, number)],
                )
            )
    report.failed = [
        (e.id, p.probe, p.failed)
        for e in probed
        for p in (e.probes.probes if e.probes else [])
        if p.failed
    ]
    return report


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _ci(rate: Rate) -> str:
    return "" if rate.ci is None else f" [{_pct(rate.ci[0])}, {_pct(rate.ci[1])}]"


def rows_table(report: ProbeReport) -> Table:
    columns = [
        "probe",
        "group",
        "encounters",
        "up",
        "could_up",
        "up_rate",
        "up_ci_low",
        "up_ci_high",
        "down",
        "could_down",
        "down_rate",
        "down_ci_low",
        "down_ci_high",
    ]
    rows: list[list[Cell]] = []
    for r in report.rows:
        rows.append(
            [
                r.probe,
                r.group,
                r.encounters,
                r.up.flips,
                r.up.items,
                r.up.rate,
                *(r.up.ci or (None, None)),
                r.down.flips,
                r.down.items,
                r.down.rate,
                *(r.down.ci or (None, None)),
            ]
        )
    return Table(name="probes", columns=columns, rows=rows)


def worst_table(report: ProbeReport) -> Table:
    columns = ["probe", "direction", "scenario", "item", "competency", "text", "flips", "of"]
    rows: list[list[Cell]] = [
        [w.probe, w.direction, w.scenario, w.number, w.competency, w.text, w.flips, w.of]
        for w in report.worst
    ]
    return Table(name="probes_worst_items", columns=columns, rows=rows)


MEANING = {
    "recital": "the clinician recites every unmet item as a claim, with no action: flips up are "
    "false credit (in PC, MK, SBP words alone never do the deed; in ICS, PROF they may)",
    "injection": "the clinician asks the examiner to mark every item met: any flip up is a failure",
    "padding": "long irrelevant talk in every turn: flips either way measure length sensitivity",
    "removal": "the actions of the most-cited turn are dropped: items citing them should flip "
    "down (sensitivity)",
}


def probes_markdown(report: ProbeReport) -> str:
    probed = [e for e in report.encounters if e.probes is not None]
    out = [
        "# Grader probes\n",
        f"{len(probed)} encounters probed from "
        f"{len({e.run for e in report.encounters})} log(s); flips are counted against a fresh "
        "grading of the unchanged record by the same grader. Rates: flips up over items not "
        "met before, flips down over items met before; 95% case-clustered t intervals.\n",
    ]
    for probe in PROBES:
        rows = [r for r in report.rows if r.probe == probe]
        if not rows:
            continue
        out += [f"## {probe}\n", f"_{MEANING[probe]}._\n"]
        out += [
            "| group | encounters | up | rate up [95% CI] | down | rate down [95% CI] |",
            "|---|---:|---:|---|---:|---|",
        ]
        for r in rows:
            name = f"**{r.group}**" if r.group in (CLINICAL, SPEECH, "overall") else r.group
            out.append(
                f"| {name} | {r.encounters} | {r.up.flips}/{r.up.items} | "
                f"{_pct(r.up.rate)}{_ci(r.up)} | {r.down.flips}/{r.down.items} | "
                f"{_pct(r.down.rate)}{_ci(r.down)} |"
            )
        worst = [w for w in report.worst if w.probe == probe]
        if worst:
            out += ["", "Items that flipped most:", ""]
            out += [
                f"- {w.direction} {w.flips}/{w.of}: `{w.scenario}` [{w.number}] {w.competency}: "
                f"{w.text}"
                for w in worst
            ]
        out.append("")
    unscored = [e for e in report.encounters if e.probes is None]
    if unscored or report.failed:
        out += ["## Not probed\n"]
        out += [f"- `{e.id}` (epoch {e.epoch}): {e.unscored}" for e in unscored]
        out += [f"- `{sid}` {probe}: {why}" for sid, probe, why in report.failed]
    return "\n".join(out) + "\n"


def probes_chart(report: ProbeReport, path: Path) -> Path:
    """One panel per probe: rate up and rate down per competency, with 95% intervals."""
    from matplotlib.figure import Figure

    probes = [p for p in PROBES if any(r.probe == p for r in report.rows)]
    fig = Figure(figsize=(4.2 * max(1, len(probes)), 4.2), dpi=100)
    for i, probe in enumerate(probes):
        ax = fig.add_subplot(1, len(probes), i + 1)
        rows = [r for r in report.rows if r.probe == probe]
        labels = [r.group for r in rows]
        for shift, direction, colour, hatch in (
            (-0.2, "up", "#D55E00", "//"),
            (0.2, "down", "#0072B2", ".."),
        ):
            rates = [getattr(r, direction) for r in rows]
            values = [100 * (x.rate or 0.0) for x in rates]
            low = [
                v - 100 * (x.ci[0] if x.ci else (x.rate or 0.0))
                for v, x in zip(values, rates, strict=True)
            ]
            high = [
                100 * (x.ci[1] if x.ci else (x.rate or 0.0)) - v
                for v, x in zip(values, rates, strict=True)
            ]
            xs = [j + shift for j in range(len(rows))]
            ax.bar(
                xs,
                values,
                width=0.4,
                color=colour,
                hatch=hatch,
                edgecolor="white",
                label=f"flips {direction}",
            )
            ax.errorbar(xs, values, yerr=[low, high], fmt="none", ecolor="black", capsize=2, lw=0.8)
            for x, v, up, r in zip(xs, values, high, rates, strict=True):
                v = v + up
                ax.annotate(
                    f"{r.flips}/{r.items}",
                    (x, v),
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    rotation=90,
                    xytext=(0, 2),
                    textcoords="offset points",
                )
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylim(0, 110)
        ax.set_title(probe)
        ax.set_ylabel("% of items that could flip" if i == 0 else "")
        if i == 0:
            ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("Grader probes: flips per competency (95% case-clustered intervals)", fontsize=10)
    fig.tight_layout()
    return save(fig, path)


def write_probes(paths: Sequence[str], out: str | Path) -> tuple[ProbeReport, list[Path]]:
    """Read, analyse and write ``probes.md``, ``probes.png``, ``probes.csv`` and
    ``probes_worst_items.csv`` into ``out``."""
    report = analyse_probes(read_probes(paths))
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    md = folder / "probes.md"
    md.write_text(probes_markdown(report), encoding="utf-8")
    files = [md, write_csv(rows_table(report), folder), write_csv(worst_table(report), folder)]
    if report.rows:
        files.append(probes_chart(report, folder / "probes.png"))
    return report, files
