"""The contamination probe as a capability: its columns, its report section and how a
re-score is labelled. It has no ``-T`` switch: it runs as its own task
(``inspect_medsp/medsp_contamination``), never inside a benchmark encounter."""

from __future__ import annotations

from inspect_medsp.contamination.probes import PROBE_NAMES
from inspect_medsp.contamination.recall_text import CONTAMINATION_SECTION, leaderboard_marks
from inspect_medsp.contamination.result import CONTAMINATION_SCORER, Contamination
from inspect_medsp.contamination.scorer import CLEAR_KEY, SHARE_KEY, medsp_contamination_probe
from inspect_medsp.measure import Capability, Column

_LABELS = {
    "continuation_patient": "Patient script above control (flag)",
    "continuation_environment": "Environment above control (flag)",
    "continuation_marking": "Marking guide above control (flag)",
    "checklist": "Checklist above knowledge control (flag)",
    "slot": "Masked values above knowledge control (flag)",
}
"""Each probe's column: a flag per scenario (1 above the control, 0 not), its mean over a
run the share of scenarios above."""

CONTAMINATION = Capability(
    name=CONTAMINATION_SCORER,
    scorer=medsp_contamination_probe,
    columns=(
        Column(
            CLEAR_KEY,
            "Share of probes not above control (higher = less recall)",
            palette="good-high",
            low=0,
            high=1,
        ),
        Column(SHARE_KEY, "Share of probes above control", palette="good-low", low=0, high=1),
        *(Column(k, _LABELS[k], palette="good-low", low=0, high=1) for k in PROBE_NAMES),
    ),
    result=Contamination,
    rescore="Re-probe contamination",
    sections=(CONTAMINATION_SECTION,),
    leaderboard_marks=leaderboard_marks,
)
"""The contamination probe: its own task; its section of ``medsp-report`` reads its logs
beside the benchmark's. No headline in a benchmark run's grid (it never scores one)."""
