"""The text of the report section "Has the model seen these cases?" (the findings are worked
out in ``report.py``): per model probed, the row test, each probe's share above the control,
the scenarios most clearly recalled and the leaderboard rows' completion on them; and the
mark after a flagged model's leaderboard rows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from inspect_medsp.contamination.probes import PROBE_NAMES
from inspect_medsp.contamination.report import (
    SECTION_NAME,
    ModelRecall,
    is_probe_log,
    model_recall,
    probe_logs,
    recall_of,
)
from inspect_medsp.contamination.rowtest import NULL_FLOOR, ROW_ALPHA, RowTest
from inspect_medsp.measure import ReportAnalysis
from inspect_medsp.report import Analysis, Page, Section, esc, table
from inspect_medsp.scoring import MIN_CASES

PROBE_LABELS = {
    "continuation_patient": "Patient script",
    "continuation_environment": "Environment materials",
    "continuation_marking": "Marking guide",
    "checklist": "Checklist",
    "slot": "Masked values",
}
"""The section's column of each probe."""

FLAG = "⚠ recalls cases above the control"
"""The mark after a leaderboard row's clinician whose model the probe flagged."""


def leaderboard_marks(analysis: ReportAnalysis) -> Mapping[str, str]:
    """The leaderboard rows (group labels) whose clinician the probe flagged, with the
    mark."""
    flagged = {m.model for m in model_recall(probe_logs(analysis), []) if m.flagged}
    return {g.label: FLAG for g in analysis.groups if g.clinician in flagged}


def _pct(n: int, of: int) -> str:
    return f"{n}/{of} ({n / of:.0%})" if of else "not probed"


def _cell(test: RowTest, name: str, above: int, probed: int) -> str:
    """A probe's share with its interval, or "not probed"."""
    if not probed:
        return "not probed"
    found = next(t for t in test.probes if t.name == name)
    low, high = found.interval
    return f"{_pct(above, probed)} [{low:.0%} to {high:.0%}]"


def _p(value: float) -> str:
    return "<0.0001" if value < 1e-4 else f"{value:.4f}" if value < 0.01 else f"{value:.2f}"


def test_lines(m: ModelRecall) -> list[str]:
    """The row test of one model, in words."""
    test = m.test
    verdict = f"**flagged** ({', '.join(test.reasons)})" if test.flagged else "**not flagged**"
    parts = [
        f"{t.name} {t.above}/{t.probed} above against a null rate of {t.null_rate:.0%} "
        f"(control above the probe in {t.below}), p = {_p(t.adjusted)}"
        for t in test.probes
    ]
    return [
        f"- Row test for {esc(m.model)}: {verdict} at a false-positive rate of "
        f"{ROW_ALPHA:.0%} for the whole row. " + "; ".join(parts) + " (one-sided exact "
        "binomial test of each probe's share above against the larger of the control's own "
        f"rate of beating the probe (its 95% upper bound) and {NULL_FLOOR:.0%}, Holm-adjusted "
        "over the probes; docs/contamination.md).",
    ]


def comparison_lines(m: ModelRecall, rows: Sequence[str]) -> list[str]:
    """The recalled-vs-rest comparison of a model's leaderboard rows, or why there is none."""
    probed = [s for s in m.scenarios if s.result is not None]
    recalled = sum(s.recalled for s in probed)
    out: list[str] = []
    if not rows:
        out.append(
            f"- Recalled vs rest: not compared: no leaderboard row of {esc(m.model)} is "
            "among the report's inputs."
        )
    elif not probed:
        out.append("- Recalled vs rest: not compared: no scenario was probed.")
    elif recalled == len(probed):
        out.append(
            f"- Recalled vs rest: not compared: all {len(probed)} scenarios probed are above "
            "the control on some probe, so there is no rest to compare with."
        )
    elif recalled == 0:
        out.append(
            f"- Recalled vs rest: not compared: none of the {len(probed)} scenarios probed is "
            "above the control on any probe, so there is no recalled stratum."
        )
    compared = {c.group for c in m.comparisons}
    for label in rows:
        if label not in compared and 0 < recalled < len(probed):
            out.append(
                f"- Recalled vs rest for leaderboard row {esc(label)}: not compared: none of "
                "its scored scenarios is on both sides."
            )
    for c in m.comparisons:
        ci = (
            f" (95% CI {c.interval[0]:+.1%} to {c.interval[1]:+.1%})"
            if c.interval is not None
            else f" (no interval: fewer than {MIN_CASES} cases on one side)"
        )
        out.append(
            f"- Leaderboard row {esc(c.group)}: macro completion {c.recalled_mean:.1%} on the "
            f"{c.recalled} recalled scenarios against {c.rest_mean:.1%} on the other "
            f"{c.rest}: a difference of {c.difference:+.1%}{ci}. A positive difference "
            "means part of the score may be memory, or knowledge the probe could not "
            "count out."
        )
    return out


CAVEAT = (
    "What a share means: continuations are compared with the case's text shuffled (text no "
    "one has written), verbatim (`run_margin` words in a row) or in the model's own words "
    "(`content_margin` of the passage's content words); the checklist and the masked values "
    "with a knowledge control, the same question without the case's title, source and "
    "passage (or, with `-T control_cases=`, an unpublished case). A checklist or slot hit "
    "above the knowledge control can still be knowledge: of the context only the probe "
    "showed. A single scenario above its control is not a finding: a row is flagged only "
    "by the row test over all its scenarios. Absence of recall is not proof that the model "
    "was not trained on the cases."
)
"""Said beside the numbers, every time the section shows."""


def recall_lines(
    found: Sequence[ModelRecall], rows: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The section's Markdown (``rows``: each model's leaderboard rows among the inputs)."""
    rows = rows or {}
    out = [
        "## Has the model seen these cases?",
        "",
        "From the contamination probe (`inspect_medsp/medsp_contamination`): each scenario's "
        "patient script, environment materials and marking guide continued from their "
        "opening words, its checklist listed from its title, and masked values guessed; each "
        "beside a control. A share is of the scenarios probed that are above the control by "
        "the probe's margins, with its 95% interval. The probe's logs are read here (the "
        "runs read, under Files, name them); a leaderboard row whose model the row test "
        f"flags is marked {FLAG}.",
        "",
        CAVEAT,
        "",
    ]
    header = ["Model", "Row test", *(PROBE_LABELS[p] for p in PROBE_NAMES)]
    body = []
    for m in found:
        test = m.test
        body.append(
            [
                esc(m.model),
                "⚠ flagged: recalls cases" if test.flagged else "not flagged",
                *[_cell(test, p, *m.share(p)) for p in PROBE_NAMES],
            ]
        )
    out += table(header, body)
    if out[-1] != "":
        out.append("")
    for m in found:
        out += test_lines(m)
        unscored = [s for s in m.scenarios if s.result is None]
        if unscored:
            listed = ", ".join(f"{s.id} [{s.unscored or 'no result'}]" for s in unscored)
            out += [f"- {esc(m.model)}: {len(unscored)} scenario(s) not probed: {esc(listed)}"]
        out += comparison_lines(m, rows.get(m.model, ()))
        out.append("")
        top = m.most_recalled()
        if top:
            out.append(f"Most clearly recalled by {esc(m.model)}:")
            out.append("")
            for s in top:
                assert s.result is not None
                shown = "; ".join(f"{o.name}: {o.shown}" for o in s.result.outcomes if o.above)
                count = len(s.result.recalled)
                probes = "probe" if count == 1 else "probes"
                out.append(f"- {esc(s.id)}: {count} {probes} above the control ({esc(shown)})")
            out.append("")
    return out


def _text(page: Page) -> list[str]:
    rows: dict[str, list[str]] = defaultdict(list)
    for g in page.analysis.groups:
        rows[g.clinician].append(g.label)
    return recall_lines(recall_of(page.analysis), rows)


def _shows(analysis: Analysis) -> bool:
    return bool(probe_logs(analysis))


CONTAMINATION_SECTION = Section(name=SECTION_NAME, text=_text, shows=_shows, reads=is_probe_log)
"""The section of ``medsp-report`` (shown when a probe's log is among the inputs)."""
