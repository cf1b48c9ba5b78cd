"""The contamination scorer: each probe's reply and its control's measured the same way, on
the measure kit (it asks no model)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from inspect_medsp.contamination.measures import outcome
from inspect_medsp.contamination.probes import PROBE_NAMES, SHUFFLED, ProbePair
from inspect_medsp.contamination.result import CONTAMINATION_SCORER, TASK_KEY, Contamination
from inspect_medsp.contamination.settings import ACCEPTED, ProbeSettings
from inspect_medsp.contamination.solver import STORE_KEY
from inspect_medsp.measure import Kit
from inspect_medsp.record import unnumbered

KIT = Kit(CONTAMINATION_SCORER, verb="probed", task_key=TASK_KEY)
"""The scorer's checks, reading and unscored score."""

CLEAR_KEY = "clear"
"""The value key of the share of a scenario's probes *not* above the control: the probe's
headline, first, so that beside benchmark scores higher is better (1 = nothing recalled)."""

SHARE_KEY = "recalled"
"""The value key of the share of a scenario's probes above the control (higher = more
recall)."""

VALUE_KEYS: tuple[str, ...] = (CLEAR_KEY, SHARE_KEY, *PROBE_NAMES)
"""Every value key: the share not above, the share above, then a flag for each probe run (1
above the control, 0 not; a probe the scenario could not have is absent, not 0)."""

THRESHOLDS = (
    "ngram",
    "run_margin",
    "ngram_margin",
    "content_margin",
    "item_share",
    "checklist_margin",
    "slot_margin",
)
"""The scorer's parameters: the measures' settings, which a re-score may change."""


def contamination_value(result: Contamination) -> dict[str, float]:
    """The score's value: the share not above the control, the share above it, and each
    probe's flag (1 or 0)."""
    value = {CLEAR_KEY: 1.0 - result.share_above, SHARE_KEY: result.share_above}
    value |= {o.name: float(o.above) for o in result.outcomes}
    return value


def explanation(result: Contamination) -> str:
    """The probes' numbers as Markdown for ``inspect view``."""
    lines = [f"**{len(result.recalled)} of {len(result.outcomes)} probes above the control**"]
    for o in result.outcomes:
        mark = (
            "above the control"
            if o.above
            else ("control above the probe" if o.below else "not above")
        )
        lines.append(f"- {o.name}: {mark}; {o.shown}")
    lines += [f"- {name}: not probed ({why})" for name, why in result.not_probed.items()]
    lines.append(f"\nControl: {result.control}")
    if any(o.against == "knowledge" for o in result.outcomes):
        lines.append(
            "\nThe checklist's and the slots' control is the same question without the case's "
            "title, source and passage: a hit above it can still be knowledge of the context "
            "only the probe showed. One scenario above the control is not a finding; the "
            "report's row test over all scenarios is."
        )
    return "\n".join(lines)


@metric
def above_control() -> Metric:
    """The mean share of each scenario's probes not above the control (``clear``, first:
    higher = less recall), the mean share above it (``recalled``), and per probe the share
    of scenarios probed that are above the control; a re-score's numbered keys read as the
    first score's. Whether a model recalls the cases is the report's row test, not these
    means."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [
            unnumbered(s.score.value, VALUE_KEYS)
            for s in scores
            if isinstance(s.score.value, Mapping)
        ]
        out: dict[str, float] = {}
        for key in VALUE_KEYS:
            found = [float(x) for v in values if isinstance(x := v.get(key), int | float)]
            if found:
                out[key] = sum(found) / len(found)
        return out

    return compute


def measured(
    pairs: Sequence[ProbePair], missing: Mapping[str, str], s: ProbeSettings, control: str
) -> Contamination:
    """The scenario's result from its asked probes."""
    return Contamination(
        outcomes=[outcome(p, s) for p in pairs], control=control, not_probed=dict(missing)
    )


@scorer(metrics=[above_control()])
def medsp_contamination_probe(
    ngram: int = 5,
    run_margin: int = 8,
    ngram_margin: float = 0.1,
    content_margin: float = 0.25,
    item_share: float = 0.6,
    checklist_margin: float = 0.25,
    slot_margin: float = 0.5,
    **unknown: Any,
) -> Scorer:
    """Measure each probe's replies against the true text and its control's against the
    shuffled text, the same way; a probe is above the control when it beats it by the
    margins (``ProbeSettings`` gives each default and why).

    Raises:
        MedSPDataError: A bad parameter, one line naming it.
    """
    given = {
        "ngram": ngram,
        "run_margin": run_margin,
        "ngram_margin": ngram_margin,
        "content_margin": content_margin,
        "item_share": item_share,
        "checklist_margin": checklist_margin,
        "slot_margin": slot_margin,
    }
    settings = KIT.check(ProbeSettings, given, {k: ACCEPTED[k] for k in THRESHOLDS}, unknown)

    async def score(state: TaskState, target: Target) -> Score:
        read = KIT.read(state)
        if isinstance(read, Score):
            return read
        stored = state.store.get(STORE_KEY)
        if not stored:
            why = "the sample holds no probe replies (the eval did not ask them)"
            return KIT.unscored(reason="not_asked", why=why, metadata={})
        pairs = [ProbePair.model_validate(p) for p in stored["probes"]]
        missing: dict[str, str] = stored.get("not_probed", {})
        if not pairs:
            why = "; ".join(f"{k}: {v}" for k, v in missing.items())
            return KIT.unscored(
                reason="nothing_to_probe", why=why, metadata={"not_probed": missing}
            )
        result = measured(pairs, missing, settings, str(stored.get("control", SHUFFLED)))
        return Score(
            value=KIT.numbered(contamination_value(result), read.number),
            answer=", ".join(result.recalled) or "none above the control",
            explanation=explanation(result),
            metadata=result.model_dump(),
        )

    return score
