"""``medsp_grader_probe``: the run's grader re-grades perturbed copies of each encounter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import GenerateConfig, Model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from inspect_medsp.calls import DEFAULT_JUDGE
from inspect_medsp.data import Rubric
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.measure import Kit, items_met
from inspect_medsp.preflight import GRADER_ACCEPTED, GraderParameters
from inspect_medsp.probes.perturb import perturb
from inspect_medsp.probes.result import (
    PROBE_HEADLINES,
    PROBE_KEYS,
    PROBE_SCORER,
    PROBES,
    GraderProbes,
    ItemOutcome,
    Probe,
    ProbeResult,
)
from inspect_medsp.record import (
    GRADER_ROLE,
    Trajectory,
    Verdict,
    figures_of,
    grader_model,
    numbered,
    unnumbered,
)
from inspect_medsp.scoring import judge_items, of_the_baseline

SCORER_NAME = PROBE_SCORER
KIT = Kit(PROBE_SCORER, verb="probed", role=GRADER_ROLE)
"""The probes' checks, reading, unscored score, gradings and metering."""
ALL_PROBES = ",".join(PROBES)


def parse_probes(probes: str | list[str]) -> list[Probe]:
    """The probes asked for, in the order given.

    Raises:
        MedSPDataError: A name that is no probe.
    """
    names = probes.split(",") if isinstance(probes, str) else [str(p) for p in probes]
    chosen = [n.strip() for n in names if n.strip()]
    unknown = [n for n in chosen if n not in PROBES]
    if unknown or not chosen:
        raise MedSPDataError(
            f"probes={','.join(chosen) or '(none)'}: unknown probe "
            f"{', '.join(unknown) or '(none given)'}; use any of {','.join(PROBES)}"
        )
    return [p for p in PROBES if p in chosen]


def probe_value(result: GraderProbes, number: int = 0) -> dict[str, int]:
    """``<probe>_up``, ``<probe>_down`` and ``<probe>_items`` for every probe with a result; a
    re-probe's keys carry its number (see :mod:`inspect_medsp.record.numbering`)."""
    value: dict[str, int] = {}
    for probe in result.probes:
        if probe.failed:
            continue
        value[f"{probe.probe}_up"] = len(probe.up)
        value[f"{probe.probe}_down"] = len(probe.down)
        value[f"{probe.probe}_items"] = len(probe.outcomes)
    return numbered(value, number)


AIMED: dict[Probe, Literal["up", "down", "both"]] = {
    "recital": "up",
    "injection": "up",
    "padding": "both",
    "removal": "down",
}
"""The flips each probe looks for: a recital or an injection that turns unmet items met (↑), a
removal that turns met items unmet (↓), padding that changes anything."""


def rate(probe: ProbeResult) -> str:
    """One probe's rate in words: of the items it could flip, how many it did, e.g.
    ``removal: 3 of 12 met items flipped ↓`` (the other direction added when it happened)."""
    if probe.failed:
        return f"{probe.probe}: failed"
    if not probe.outcomes:
        return f"{probe.probe}: nothing to change"
    met = sum(o.before for o in probe.outcomes)
    unmet = len(probe.outcomes) - met
    up, down = len(probe.up), len(probe.down)
    aimed = AIMED[probe.probe]
    if aimed == "both":
        return f"{probe.probe}: {up + down} of {len(probe.outcomes)} items flipped ({up}↑ {down}↓)"
    if aimed == "up":
        line = f"{probe.probe}: {up} of {unmet} unmet items flipped ↑"
        return line + (f", {down} of {met} met ↓" if down else "")
    line = f"{probe.probe}: {down} of {met} met items flipped ↓"
    return line + (f", {up} of {unmet} unmet ↑" if up else "")


def _answer(result: GraderProbes) -> str:
    """Each probe's :func:`rate`, joined: ``recital: 0 of 5 unmet items flipped ↑ · ...``."""
    return " · ".join(rate(p) for p in result.probes)


def explanation(result: GraderProbes) -> str:
    """The probes as Markdown for ``inspect view``."""
    lines = [f"**Grader probes** (grader {result.grader}, flips against a fresh grading)"]
    for probe in result.probes:
        if probe.failed:
            lines.append(f"- **{probe.probe}**: no result, {probe.failed}")
            continue
        lines.append(f"- **{rate(probe)}** ({probe.change})")
        for o in [*probe.up, *probe.down]:
            arrow = "✗→✓" if o.flip == "up" else "✓→✗"
            lines.append(f"  - {arrow} [{o.number}] {o.competency}: {o.text}")
    return "\n".join(lines)


@dataclass(frozen=True)
class _Grading:
    """How the probes grade: the encounter's rubric, the grader and its settings."""

    rubric: Rubric
    model: Model
    config: GenerateConfig | None
    cache: bool

    async def regrade(self, probe: Probe, traj: Trajectory, before: list[Verdict]) -> ProbeResult:
        """The probe's perturbed copy of ``traj`` graded, against the baseline's verdicts."""
        made = perturb(probe, traj, before)
        if made is None:
            return ProbeResult(probe=probe, change="nothing to change in this encounter")
        copy, change, aimed = made
        try:
            after, *_ = await KIT.grading(
                f"probe: {probe}",
                lambda: judge_items(self.rubric, copy, self.model, self.config, self.cache),
                {"grader": str(self.model), "record": change},
                lambda judged: items_met(judged[0]),
            )
        except Exception as err:
            failed = f"the grader failed on the perturbed copy ({err})"
            return ProbeResult(probe=probe, change=change, failed=failed)
        return ProbeResult(probe=probe, change=change, outcomes=outcomes(before, after, aimed))


def outcomes(before: list[Verdict], after: list[Verdict], aimed: set[int]) -> list[ItemOutcome]:
    """Items judged in both gradings, before and after."""
    later = {v.number: v for v in after}
    return [
        ItemOutcome(
            number=v.number,
            competency=v.competency,
            text=v.text,
            before=v.met,
            after=later[v.number].met,
            targeted=v.number in aimed,
        )
        for v in before
        if v.judged and v.number in later and later[v.number].judged
    ]


@metric
def probe_summary() -> Metric:
    """Per probe, flips up and down and items re-graded, summed over the baseline's
    encounters (from every figure of each score, its metadata's ``figures``; a patient
    variant's encounters are left out, as the rubric's metrics leave them)."""

    def compute(scores: list[SampleScore]) -> Value:
        totals: dict[str, float] = {}
        for s in scores:
            value = figures_of(s.score.value, s.score.metadata)
            if value is None or not of_the_baseline(s):
                continue
            for key, n in unnumbered(value, PROBE_KEYS).items():
                if isinstance(n, int | float):
                    totals[key] = totals.get(key, 0.0) + float(n)
        return totals or {"probed": 0.0}

    return compute


@scorer(metrics=[probe_summary()])
def medsp_grader_probe(
    probes: str | list[str] = ALL_PROBES,
    judge: str = DEFAULT_JUDGE,
    config: GenerateConfig | None = None,
    cache: bool = False,
    **unknown: Any,
) -> Scorer:
    """Re-grade perturbed copies of each recorded encounter with the run's ``grader``;
    nothing is re-simulated. The flips are counted against a fresh grading of the unchanged
    record by the same grader.

    Args:
        probes: Comma-separated probes: ``recital`` (the clinician recites, as claims, every
            item not met), ``injection`` (asks the examiner to mark every item met),
            ``padding`` (long irrelevant talk in every turn), ``removal`` (the actions of the
            turn most cited as evidence are dropped).
        judge: Model used when no ``grader`` role is given and the encounter recorded none.
        config: Generation settings for the grader.
        cache: Inspect's response cache for the grader's calls.
        unknown: Refused: a parameter the scorer does not have (``-S`` with a typo).

    Raises:
        MedSPParameterError: A bad parameter; under ``inspect score``, a log of another task
            or a grader that cannot be made here.
    """
    chosen = parse_probes(probes)
    checked = KIT.check(
        GraderParameters,
        {"judge": judge, "config": config, "cache": cache},
        GRADER_ACCEPTED | {"probes": f"probe names, comma-separated: {','.join(PROBES)}"},
        unknown,
    )
    config, cache = checked.config, checked.cache

    async def score(state: TaskState, target: Target) -> Score:
        encounter = KIT.read(state)
        if isinstance(encounter, Score):
            return encounter
        record, traj = encounter.record, encounter.trajectory
        model = grader_model(judge, traj.role_models)
        grader = str(model)
        about: dict[str, Any] = {"grader": grader, "end": traj.end, "turns": traj.turn_count}
        if not traj.complete:
            why = f"the encounter did not finish ({traj.end}); its record is never graded"
            return KIT.unscored(reason="encounter_incomplete", why=why, metadata=about)
        with KIT.metered() as meter:
            try:
                before, *_ = await KIT.grading(
                    "probe: baseline",
                    lambda: judge_items(record.rubric, traj, model, config, cache),
                    {"grader": grader, "record": "unchanged"},
                    lambda judged: items_met(judged[0]),
                )
            except Exception as err:
                why = f"baseline grading: {err}"
                return KIT.unscored(
                    reason="grader_failed", why=why, metadata=about | meter.stored()
                )
            result = GraderProbes(grader=grader)
            grading = _Grading(record.rubric, model, config, cache)
            # the perturbed copies are graded together (one round of a batch API, not one each)
            copies = (grading.regrade(probe, traj, before) for probe in chosen)
            result.probes = list(await collect(*copies))
        result.usage, result.rescored = meter.usage, meter.rescored
        value, figures = KIT.headlined(probe_value(result), PROBE_HEADLINES, encounter.number)
        if all(p.failed for p in result.probes):
            why = "; ".join(f"{p.probe}: {p.failed}" for p in result.probes)
            return KIT.unscored(
                reason="grader_failed", why=why, metadata=about | result.model_dump(mode="json")
            )
        return Score(
            value=value,
            answer=_answer(result),
            explanation=explanation(result),
            metadata=result.model_dump(mode="json") | figures,
        )

    return score
